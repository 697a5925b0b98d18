// Discount codes: the creator's form, the one price rule, and what the API answers. The
// server computes every discounted price with `discountedCents`; the /discounts form shows the same
// function's result before saving, and the paywall shows it for `?code=`.
import { z } from "zod";
import { dollars, isoTime, publicId } from "./answers";
import { MAX_PRICE_CENTS, MIN_PRICE_CENTS } from "./pricing";
import { PRICING_MODELS, dollarsToCents } from "./content";

/** A reminder's checkout whose code no longer applies: the sentence the buyer reads above its price. */
export const codeDropped = (code: string, why: string) =>
  `Code ${code} no longer applies (${why.charAt(0).toLowerCase()}${why.slice(1)}), so this checkout is at the full price.`;

export const DISCOUNT_CODE_RE = /^[A-Za-z0-9_-]{2,40}$/;
/** A checkout holds a use of its code this long; after it, only a paid (or disputed) sale counts. */
export const DISCOUNT_HOLD_MINUTES = 30;
export const MAX_DISCOUNT_CODES = 200;

export const DISCOUNT_MESSAGES = {
  unknown: "This code isn't valid",
  expired: "This code has expired",
  notForItem: "This code isn't valid for this item",
  usedUp: "This code has been used up",
  usedByBuyer: "You have already used this code",
  heldByBrowser:
    "This code is already held by your other open checkouts. Finish one of them, or try again in a few minutes.",
  taken: "You already have a code with this name",
  tooMany: `At most ${MAX_DISCOUNT_CODES} codes`,
} as const;

/** What a buyer types (any case); stored and compared upper-case. */
export const discountCodeText = z
  .string()
  .trim()
  .regex(DISCOUNT_CODE_RE, "Use 2 to 40 letters, digits, - or _")
  .transform((s) => s.toUpperCase());

const optionalCount = (max: number, what: string) =>
  z
    .union([z.number(), z.string().max(10), z.null()])
    .optional()
    .transform((v) => (v === undefined || v === null || String(v).trim() === "" ? null : Number(String(v).trim())))
    .refine(
      (v) => v === null || (Number.isInteger(v) && v >= 1 && v <= max),
      `${what} must be a whole number from 1 to ${max.toLocaleString("en-US")}, or empty for no limit`,
    );

export const createDiscountSchema = z
  .object({
    code: discountCodeText,
    kind: z.enum(["percent", "fixed"], { error: "Choose percent or a fixed amount" }),
    percentOff: z.union([z.number(), z.string().max(10), z.null()]).optional(),
    amountOff: z.union([z.number(), z.string().max(12), z.null()]).optional(),
    /** One of the creator's items, or empty / null for all of them. */
    contentId: z
      .union([z.string().regex(/^[A-Za-z0-9]{1,32}$/, "contentId is invalid"), z.literal(""), z.null()])
      .optional(),
    /** The last day the code works (YYYY-MM-DD, until the end of that day UTC), or empty. */
    expiresOn: z
      .union([z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "Expiry must be a date (YYYY-MM-DD)"), z.literal(""), z.null()])
      .optional(),
    maxUses: optionalCount(1_000_000, "Maximum uses"),
    maxUsesPerBuyer: optionalCount(1000, "Uses per buyer"),
  })
  .transform((v, ctx) => {
    let percentOff: number | null = null;
    let amountOffCents: number | null = null;
    if (v.kind === "percent") {
      const n = Number(String(v.percentOff ?? "").trim());
      if (!Number.isInteger(n) || n < 1 || n > 100 || String(v.percentOff ?? "").trim() === "") {
        ctx.addIssue({
          code: "custom",
          path: ["percentOff"],
          message: "Percent off must be a whole number from 1 to 100",
        });
        return z.NEVER;
      }
      percentOff = n;
    } else {
      const cents = dollarsToCents(
        typeof v.amountOff === "number" ? String(Math.round(v.amountOff * 100) / 100) : v.amountOff,
      );
      if (!Number.isFinite(cents) || cents < 1 || cents > MAX_PRICE_CENTS) {
        ctx.addIssue({
          code: "custom",
          path: ["amountOff"],
          message: "Amount off must be between $0.01 and $10,000 with at most two decimals",
        });
        return z.NEVER;
      }
      amountOffCents = cents;
    }
    const expiresAt = v.expiresOn ? Date.parse(`${v.expiresOn}T23:59:59.999Z`) : null;
    if (expiresAt !== null && !Number.isFinite(expiresAt)) {
      ctx.addIssue({ code: "custom", path: ["expiresOn"], message: "Expiry must be a real date" });
      return z.NEVER;
    }
    return {
      code: v.code,
      kind: v.kind,
      percentOff,
      amountOffCents,
      contentId: v.contentId || null,
      expiresAt,
      maxUses: v.maxUses,
      maxUsesPerBuyer: v.maxUsesPerBuyer,
    };
  });
export type CreateDiscountInput = z.input<typeof createDiscountSchema>;
export type DiscountFields = z.output<typeof createDiscountSchema>;

export const discountIdParam = z.object({ id: z.string().regex(/^[A-Za-z0-9]{1,32}$/, "invalid discount id") });
/** GET /api/discounts/preview?code=&contentId=&amount=: what the code makes of an item's price. */
export const discountQuoteQuery = z.object({
  code: z.string().max(60),
  contentId: z.string().regex(/^[A-Za-z0-9]{1,32}$/, "contentId is invalid"),
});

type Rule = { kind: "percent" | "fixed"; percentOff: number | null; amountOffCents: number | null };

/**
 * The one price rule. `listCents`: the item's price, or for pay-what-you-want the amount the buyer
 * chose. `floorCents`: the item's pay-what-you-want minimum when it has one, never below Stripe's
 * $0.50. A code never takes a price below its floor, nor raises one that is already below it.
 */
export function discountedCents(listCents: number, rule: Rule, floorCents: number = MIN_PRICE_CENTS): number {
  const floor = Math.max(MIN_PRICE_CENTS, floorCents);
  if (listCents <= floor) return listCents;
  const off =
    rule.kind === "percent" ? Math.round((listCents * (rule.percentOff ?? 0)) / 100) : (rule.amountOffCents ?? 0);
  return Math.max(floor, listCents - off);
}

/** "20% off" / "$5.00 off". */
export const discountLabel = (rule: Rule) =>
  rule.kind === "percent" ? `${rule.percentOff}% off` : `$${((rule.amountOffCents ?? 0) / 100).toFixed(2)} off`;

const discountStatusSchema = z.enum(["active", "expired", "used_up", "archived"]);
export type DiscountStatus = z.infer<typeof discountStatusSchema>;

/** A code as its creator sees it on /discounts. Money in dollars. */
export const discountCodeSchema = z.object({
  id: publicId,
  code: z.string().meta({ example: "SPRING" }),
  kind: z.enum(["percent", "fixed"]),
  percentOff: z.number().int().nullable(),
  amountOff: dollars.nullable(),
  label: z.string().meta({ example: "20% off" }),
  contentId: z.string().nullable(),
  contentTitle: z.string().nullable(),
  expiresAt: isoTime.nullable(),
  maxUses: z.number().int().nullable(),
  maxUsesPerBuyer: z.number().int().nullable(),
  status: discountStatusSchema,
  /** Paid (or disputed) sales with the code, and checkouts holding a use now. */
  uses: z.number().int(),
  held: z.number().int(),
  revenue: dollars,
  discountGiven: dollars,
  createdAt: isoTime,
});
export type DiscountCode = z.infer<typeof discountCodeSchema>;
export const discountCodeListSchema = z.array(discountCodeSchema);

/** What a code makes of an item's price (the paywall's `?code=`, checkout's field, the creator's preview). */
export const discountQuoteSchema = z.object({
  code: z.string(),
  label: z.string(),
  listPrice: dollars,
  price: dollars,
  pricingModel: z.enum(PRICING_MODELS),
  minimumPrice: dollars.nullable(),
});
export type DiscountQuote = z.infer<typeof discountQuoteSchema>;
