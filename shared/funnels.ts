// The funnels contract (spec §3, §5, §7): creator calls for funnels, steps and upsell products, and
// the buyer's one-click offer calls. Money leaves the API in dollars, as the screens use it.
import { z } from "zod";
import { taxLineSchema } from "./tax";
import { dollars, isoTime, publicId } from "./answers";
import { ACCESS_TYPES, PRICING_MODELS, dollarsToCents } from "./content";
import { MAX_PRICE_CENTS, MIN_PRICE_CENTS } from "./pricing";
import { purchaseVerificationSchema } from "./payments";

/**
 * One-click upsells: offers can be seen and accepted only by the browser that paid, and only this
 * long after the first purchase was paid. After that the saved card is not charged without the
 * buyer typing it again.
 */
export const UPSELL_WINDOW_MINUTES = 30;
/** A tip (pay-what-you-want) upsell step takes at most this many times its minimum, unless its creator set a ceiling. */
export const TIP_CEILING_MULTIPLE = 5;

export const DEFAULT_CTA = "Add this to my order";
/** A step sells one of the creator's items: chosen, or made with title, price and file/link/text. */
export const STEP_ITEM_MESSAGE = "Choose one of your items, or create one for this step";
export const STEP_TYPES = ["upsell", "downsell"] as const;
export type StepType = (typeof STEP_TYPES)[number];

export const FUNNEL_MESSAGES = {
  funnelName: "Please enter a funnel name",
  requiredFields: "Please fill in required fields",
  titleAndPrice: "Please fill in title and price",
  downloadFile: "Please upload a file for download products",
  linkUrl: "Please provide a link URL",
} as const;

/**
 * A funnel is shown after buying its items ("Show after buying") and offers its steps' items: an
 * item cannot be both in one funnel (its buyer would be offered what they just bought).
 */
export const FUNNEL_ITEM_MESSAGES = {
  offeredInStep: (title: string, stepOrder: number) =>
    `${title} is offered in step ${stepOrder} of this funnel: a funnel is not shown after buying the item it offers`,
  shownAfter: (title: string) =>
    `${title} is one of the items this funnel is shown after: a step cannot offer the item just bought`,
} as const;
/** Said wherever a change to a funnel in Test is saved (a step added, an A/B test started). */
export const FUNNEL_TEST_NOTICE = "This funnel is in Test: no buyer sees it until it is Live.";

const id = (what: string) => z.string().regex(/^[A-Za-z0-9]{1,32}$/, `${what} is invalid`);
export const priceIdSchema = z
  .string()
  .trim()
  .regex(/^price_[A-Za-z0-9]{1,64}$/, "offerPriceId must be a price id (price_…)");

export const createFunnelSchema = z.object({
  name: z.string().trim().min(1, FUNNEL_MESSAGES.funnelName).max(200, "name must be at most 200 characters"),
});
export const updateFunnelSchema = z.object({ testMode: z.boolean({ error: "testMode must be true or false" }) });
/** 'Edit funnel' on an item: open that item's funnel, or make one for it. */
export const itemFunnelSchema = z.object({ contentId: id("contentId") });
export const funnelProductsSchema = z.object({
  contentIds: z
    .array(id("contentId"))
    .min(1, "contentIds must name at least one item")
    .max(100, "at most 100 items at once"),
});

/** A tip step's ceiling in dollars (null: the default, TIP_CEILING_MULTIPLE x its minimum), as cents. */
const maximumPriceSchema = z
  .union([z.number(), z.string(), z.null()])
  .optional()
  .transform((v) =>
    v === undefined
      ? undefined
      : v === null || v === ""
        ? null
        : dollarsToCents(typeof v === "number" ? String(Math.round(v * 100) / 100) : v),
  )
  .refine(
    (cents) =>
      cents === undefined ||
      cents === null ||
      (Number.isFinite(cents) && cents >= MIN_PRICE_CENTS && cents <= MAX_PRICE_CENTS),
    "maximumPrice must be between $0.50 and $10,000 with at most two decimals",
  );

/** A step's price in dollars as cents (upsell steps may be free to take: min 0). */
const stepPriceSchema = z
  .union([z.number(), z.string()])
  .optional()
  .transform((v) =>
    v === undefined || v === ""
      ? undefined
      : dollarsToCents(typeof v === "number" ? String(Math.round(v * 100) / 100) : v),
  )
  .refine(
    (cents) => cents === undefined || (Number.isFinite(cents) && cents >= 0 && cents <= MAX_PRICE_CENTS),
    "price must be between $0 and $10,000 with at most two decimals",
  );

const stepFields = {
  title: z.string().trim().min(1, FUNNEL_MESSAGES.requiredFields).max(200, "title must be at most 200 characters"),
  description: z.string().trim().max(2000, "description must be at most 2000 characters").default(""),
  offerPriceId: priceIdSchema,
  ctaText: z
    .string()
    .trim()
    .max(80, "ctaText must be at most 80 characters")
    .optional()
    .transform((v) => v || DEFAULT_CTA),
  stepType: z.enum(STEP_TYPES, { error: "stepType must be upsell or downsell" }).default("upsell"),
  contentId: id("contentId").nullish(),
  maximumPrice: maximumPriceSchema,
};
/**
 * A step is one of the creator's items (contentId) at its price or at `price` (dollars); the server
 * makes the offer's Stripe price. A raw offerPriceId is still taken from API callers, only if it is
 * one of this creator's own prices. `upsellOnly`: the item was made for this step, so it is sold
 * only through the funnel; an existing item chosen for a step stays on sale on its own paywall.
 */
export const createStepSchema = z
  .object({
    ...stepFields,
    offerPriceId: priceIdSchema.optional(),
    price: stepPriceSchema,
    upsellOnly: z.boolean({ error: "upsellOnly must be true or false" }).optional().default(false),
    stepOrder: z.number().int().min(1).max(1000).optional(),
  })
  .refine((v) => v.contentId || v.offerPriceId, { message: STEP_ITEM_MESSAGE, path: ["contentId"] });
export type CreateStepInput = z.input<typeof createStepSchema>;

/** A move (stepOrder) and/or an edit of the step's fields. */
export const updateStepSchema = z
  .object({
    stepOrder: z
      .number({ error: "stepOrder must be a number" })
      .int("stepOrder must be a whole number")
      .min(1, "stepOrder starts at 1")
      .max(1000)
      .optional(),
    title: stepFields.title.optional(),
    description: z.string().trim().max(2000).optional(),
    offerPriceId: priceIdSchema.optional(),
    ctaText: z.string().trim().max(80).optional(),
    stepType: z.enum(STEP_TYPES).optional(),
    contentId: id("contentId").nullish(),
    maximumPrice: maximumPriceSchema,
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), { message: "nothing to change" });
export type UpdateStepInput = z.input<typeof updateStepSchema>;
export type UpdateStepFields = z.output<typeof updateStepSchema>;

export const createUpsellProductSchema = z.object({
  name: z.string().trim().min(1, FUNNEL_MESSAGES.titleAndPrice).max(250, "name must be at most 250 characters"),
  description: z.string().trim().max(2000).optional().default(""),
  // Dollars (spec §7: "price as number"); upsell steps may be free to take (min 0).
  price: z
    .union([z.number(), z.string()])
    .transform((v) => dollarsToCents(typeof v === "number" ? String(Math.round(v * 100) / 100) : v))
    .refine(
      (cents) => Number.isFinite(cents) && cents >= 0 && cents <= MAX_PRICE_CENTS,
      "price must be between $0 and $10,000 with at most two decimals",
    ),
});

/** The one status a funnel shows everywhere: Test (only previews see it) or Live (buyers see it). */
const funnelStatusSchema = z.enum(["test", "live"]);
export type FunnelStatus = z.infer<typeof funnelStatusSchema>;
export const funnelStatus = (f: { testMode: boolean }): FunnelStatus => (f.testMode ? "test" : "live");
export const FUNNEL_STATUS_LABEL: Record<FunnelStatus, string> = { test: "Test", live: "Live" };
export const funnelSchema = z.object({
  id: publicId,
  name: z.string(),
  isActive: z.boolean(),
  testMode: z.boolean(),
  status: funnelStatusSchema,
  createdAt: isoTime,
  contentIds: z.array(z.string()),
});
export type Funnel = z.infer<typeof funnelSchema>;
export const funnelListSchema = z.array(funnelSchema);
/** PATCH /api/funnels/{id}: the funnel without its items. */
export const funnelModeSchema = funnelSchema.pick({
  id: true,
  name: true,
  isActive: true,
  testMode: true,
  status: true,
});
export const funnelProductsResultSchema = z.object({ funnelId: z.string(), contentIds: z.array(z.string()) });
export const funnelProductRemovedSchema = z.object({ funnelId: z.string(), contentId: z.string() });

const stepType = z.enum(STEP_TYPES);
export const funnelStepSchema = z.object({
  id: publicId,
  title: z.string(),
  description: z.string(),
  offerPriceId: z.string(),
  price: dollars.nullable(),
  /** A tip step's ceiling as its creator set it; null: TIP_CEILING_MULTIPLE x its minimum. */
  maximumPrice: dollars.nullable(),
  ctaText: z.string(),
  stepType,
  stepOrder: z.number().int(),
  contentId: z.string().nullable(),
  /** revenue: gross, what buyers paid for this step less refunds; net: the creator's share of it. */
  figures: z.object({
    shown: z.number().int(),
    accepted: z.number().int(),
    declined: z.number().int(),
    revenue: dollars,
    net: dollars,
  }),
});
export type FunnelStep = z.infer<typeof funnelStepSchema>;
export const funnelStepListSchema = z.array(funnelStepSchema);
export const upsellProductSchema = z.object({ priceId: z.string(), productId: z.string() });

// ---- buyer side ----

/**
 * Offers are for the browser that paid (its aw_buyer cookie) and the purchase it names, within
 * UPSELL_WINDOW_MINUTES of paying; an access link is not enough to see or charge the saved card.
 */
const buyerFields = { purchaseId: id("purchaseId").optional() };
export const offerQuerySchema = z.object(buyerFields);
/** The order (what was added) may also be read with the purchase's access link: it shows no card. */
export const orderQuerySchema = z.object({ ...buyerFields, access: z.string().max(200).optional() });
export const acceptOfferSchema = z.object({
  ...buyerFields,
  stepId: id("stepId"),
  // Dollars, for a tip (pay-what-you-want) step only; the server decides every other amount.
  amount: z.union([z.number(), z.string(), z.null()]).optional(),
});
export const declineOfferSchema = z.object({ ...buyerFields, stepId: id("stepId") });
/**
 * The 409 of an accept whose terms are no longer the ones the buyer was shown (the creator changed
 * the price meanwhile, or the offer was never shown): nothing was charged; the page shows it again.
 */
export const OFFER_CHANGED_MESSAGE = "This offer has changed. Please review it again.";

export const upsellOfferSchema = z.object({
  stepId: z.string(),
  stepType,
  title: z.string(),
  description: z.string(),
  ctaText: z.string(),
  price: dollars,
  pricingModel: z.enum(PRICING_MODELS),
  minimumPrice: dollars.nullable(),
  /** A tip step's ceiling (dollars); null for a fixed price. */
  maximumPrice: dollars.nullable(),
  previewImage: z.string().nullable(),
  accessType: z.enum(ACCESS_TYPES),
  /** The card that will be charged, as the buyer would recognise it. */
  card: z.object({ brand: z.string(), last4: z.string() }).nullable(),
  /** Its tax at the first purchase's place and rate (docs/tax.md); null where that purchase was untaxed, absent in a preview. */
  tax: taxLineSchema.nullable().optional(),
});
export type UpsellOffer = z.infer<typeof upsellOfferSchema>;
/** GET /api/funnels/{id}/preview?variant=A|B: which variant of the steps under an A/B test to show (A: the steps as they are). */
export const funnelPreviewQuerySchema = z.object({
  variant: z.enum(["A", "B"], { error: "variant must be A or B" }).optional().default("A"),
});
/** GET /api/funnels/{id}/preview: every step's offer as a buyer would see it. */
export const funnelPreviewSchema = z.array(upsellOfferSchema);
/**
 * What this order has charged, in the server's word: the first item as paid, the order bump's
 * add-on paid with it (`bumps`), `paid` the first payment (the item and its add-on), each offer
 * whose purchase Stripe says succeeded, and their total. Never computed from the prices shown.
 */
export const orderSummarySchema = z.object({
  first: z.object({ title: z.string(), amount: dollars, accessUrl: z.string() }),
  bumps: z.array(z.object({ purchaseId: z.string(), title: z.string(), amount: dollars, accessUrl: z.string() })),
  paid: dollars,
  added: z.array(z.object({ purchaseId: z.string(), title: z.string(), amount: dollars })),
  total: dollars,
});
export type OrderSummary = z.infer<typeof orderSummarySchema>;
export const offerStateSchema = z.object({
  purchaseId: z.string(),
  contentId: z.string(),
  offer: upsellOfferSchema.nullable(),
  order: orderSummarySchema,
});
export type OfferState = z.infer<typeof offerStateSchema>;
export const acceptResultSchema = z.union([
  z.object({
    status: z.literal("paid"),
    purchaseId: z.string(),
    next: upsellOfferSchema.nullable(),
    order: orderSummarySchema,
  }),
  z.object({
    status: z.literal("requires_action"),
    purchaseId: z.string(),
    clientSecret: z.string(),
    paymentMethod: z.string().nullable(),
  }),
  z.object({ status: z.literal("declined"), purchaseId: z.string(), message: z.string() }),
  z.object({ status: z.literal("processing"), purchaseId: z.string() }),
]);
export type AcceptResult = z.infer<typeof acceptResultSchema>;
export const declineResultSchema = z.object({ next: upsellOfferSchema.nullable() });
/** GET /api/upsell/order: every purchase of the order, as the success page shows them. */
export const orderSchema = z.object({ items: z.array(purchaseVerificationSchema), order: orderSummarySchema });
