// The content contract: the publish form's rules (spec §5) and what the item routes answer, shared by the SPA and the Worker.
import { z } from "zod";
import { licenseFormFields } from "./licenses";
import { dollarsToCents } from "./money";
import { MAX_PRICE_CENTS, MIN_PRICE_CENTS } from "./pricing";
import { dollars, isoTime, publicId } from "./answers";
import { creatorBumpSchema, publicBumpSchema } from "./bumps";
import { publicCreatorSchema } from "./profile";

export const CATEGORIES = [
  "digital-art",
  "video-course",
  "template",
  "music",
  "photography",
  "document",
  "other",
] as const;
/** Each category in words, wherever a creator sees one (upload form, edit page, dashboard rows). */
export const CATEGORY_LABELS: Record<(typeof CATEGORIES)[number], string> = {
  "digital-art": "Digital art",
  "video-course": "Video course",
  template: "Template",
  music: "Music",
  photography: "Photography",
  document: "Document",
  other: "Other",
};
/** A stored category in words (one written before the list changed shows as stored). */
export const categoryLabel = (category: string) =>
  (CATEGORY_LABELS as Record<string, string | undefined>)[category] ?? category;
export const ACCESS_TYPES = ["download", "view", "stream", "link"] as const;
/** How buyers get a file, in words: the publish form's and the edit page's "Access type". */
export const FILE_ACCESS_LABELS = {
  download: "Download the file",
  view: "View online",
  stream: "Stream (video/audio)",
} as const;
/** How buyers get an item, in one word or two: the dashboard row's badge. */
export const ACCESS_BADGES: Record<(typeof ACCESS_TYPES)[number], string> = {
  download: "Download",
  view: "View online",
  stream: "Stream",
  link: "Link",
};
export const PRICING_MODELS = ["fixed", "pay_what_you_want"] as const;
export const SORT_OPTIONS = ["newest", "oldest", "price-high", "price-low", "unlocks", "earnings"] as const;
export const MAX_TEXT_CONTENT_CHARS = 100_000;

export const CONTENT_MESSAGES = {
  titleAndPrice: "Please fill in title and price",
  minimumPrice: "Please set a minimum price for pay-what-you-want content",
  file: "Please select a file to upload",
  linkUrl: "Please provide a link URL",
  text: "Please add the text buyers unlock",
  priceRange: `Price must be between $${(MIN_PRICE_CENTS / 100).toFixed(2)} and $${(MAX_PRICE_CENTS / 100).toLocaleString("en-US")}`,
} as const;

export { dollarsToCents } from "./money";

export const isHttpUrl = (value: string) => {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
};

const optionalText = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    .optional()
    .transform((v) => (v?.trim() ? v : undefined));

/**
 * The publish form's text fields as they arrive (strings from a form). `hasFile` says whether a
 * file came along (inline or as a finished upload); it is not a form field.
 */
export const contentFormSchema = z
  .object({
    title: z.string().trim().max(200, "title must be at most 200 characters").default(""),
    description: z.string().trim().max(5000, "description must be at most 5000 characters").default(""),
    price: z.string().optional(),
    pricingModel: z.enum(PRICING_MODELS, { error: "pricingModel must be fixed or pay_what_you_want" }).default("fixed"),
    minimumPrice: z.string().optional(),
    category: z.enum(CATEGORIES, { error: `category must be one of ${CATEGORIES.join(", ")}` }).default("other"),
    accessType: z
      .enum(ACCESS_TYPES, { error: `accessType must be one of ${ACCESS_TYPES.join(", ")}` })
      .default("download"),
    linkUrl: optionalText(2048),
    textContent: optionalText(MAX_TEXT_CONTENT_CHARS),
    hasFile: z.boolean().default(false),
    ...licenseFormFields,
  })
  .superRefine((v, ctx) => {
    const fail = (message: string, path: string) => ctx.addIssue({ code: "custom", message, path: [path] });
    if (!v.title || (v.pricingModel === "fixed" && !v.price?.trim()))
      return fail(CONTENT_MESSAGES.titleAndPrice, "title");
    if (v.pricingModel === "pay_what_you_want" && !v.minimumPrice?.trim())
      return fail(CONTENT_MESSAGES.minimumPrice, "minimumPrice");
    const cents = dollarsToCents(v.pricingModel === "pay_what_you_want" ? v.minimumPrice : v.price);
    if (!(cents >= MIN_PRICE_CENTS && cents <= MAX_PRICE_CENTS)) return fail(CONTENT_MESSAGES.priceRange, "price");
    if (v.accessType === "link") {
      if (!v.linkUrl) return fail(CONTENT_MESSAGES.linkUrl, "linkUrl");
      if (!isHttpUrl(v.linkUrl)) return fail("Link URL must start with http:// or https://", "linkUrl");
      return;
    }
    if (v.accessType === "view" && v.textContent) return;
    if (!v.hasFile) return fail(CONTENT_MESSAGES.file, "file");
  })
  .transform((v) => {
    // Spec §5: for pay-what-you-want the price equals the minimum.
    const minimumPriceCents = v.pricingModel === "pay_what_you_want" ? dollarsToCents(v.minimumPrice) : null;
    return {
      title: v.title,
      description: v.description,
      pricingModel: v.pricingModel,
      priceCents: minimumPriceCents ?? dollarsToCents(v.price),
      minimumPriceCents,
      category: v.category,
      accessType: v.accessType,
      linkUrl: v.accessType === "link" ? v.linkUrl : undefined,
      textContent: v.accessType === "view" ? v.textContent : undefined,
      issueLicenseKeys: v.issueLicenseKeys,
      licenseActivationLimit: v.issueLicenseKeys ? v.activationLimit : null,
    };
  });
export type ContentFormInput = z.input<typeof contentFormSchema>;
export type ContentFormValues = z.output<typeof contentFormSchema>;

/**
 * Editing a live item (PATCH /api/content/{id}): the publish form's fields, all of them, as the edit
 * form holds them; a replacement file as a finished upload's id; the preview image as a data URL
 * (absent keeps it, null removes it). The same rules as publishing apply (contentFormSchema), with
 * the item's current file counting as its file.
 */
export const updateContentSchema = z.object({
  title: z.string().max(1000).optional(),
  description: z.string().max(10000).optional(),
  price: z.string().max(20).optional(),
  pricingModel: z.string().max(40).optional(),
  minimumPrice: z.string().max(20).optional(),
  category: z.string().max(40).optional(),
  accessType: z.string().max(20).optional(),
  linkUrl: z.string().max(4096).optional(),
  textContent: z
    .string()
    .max(MAX_TEXT_CONTENT_CHARS * 2)
    .optional(),
  issueLicenseKeys: z.union([z.boolean(), z.string().max(10)]).optional(),
  activationLimit: z
    .union([z.number(), z.string().max(10)])
    .nullable()
    .optional(),
  uploadId: z
    .string()
    .regex(/^[A-Za-z0-9]{1,32}$/, "invalid uploadId")
    .optional(),
  // A 5 MB image as a data URL is about 6.7 MB of text.
  previewImage: z.string().max(7_200_000, "Preview image must be at most 5 MB").nullable().optional(),
});
export type UpdateContentInput = z.input<typeof updateContentSchema>;

export const publicationSchema = z.object({ published: z.boolean({ error: "published must be true or false" }) });

/** What anyone may see of an item before paying (GET /api/content/{id}): never its file, link or text. */
const publicContentFieldsSchema = z.object({
  id: publicId,
  title: z.string(),
  description: z.string(),
  price: dollars,
  pricingModel: z.enum(PRICING_MODELS),
  minimumPrice: dollars.nullable(),
  category: z.string(),
  accessType: z.enum(ACCESS_TYPES),
  fileName: z.string().nullable(),
  fileSize: z.number().int().nullable(),
  previewImage: z.string().nullable(),
  createdAt: isoTime,
});
export type PublicContentFields = z.infer<typeof publicContentFieldsSchema>;

/**
 * Whether a buyer can start a checkout on the item's own paywall: on sale, taken off sale by its
 * creator (owners keep access), or an upsell-only item, sold only as a funnel step after a purchase.
 */
const availabilitySchema = z.enum(["on_sale", "unpublished", "upsell_only"]);
export type Availability = z.infer<typeof availabilitySchema>;

/** `creator`: who the buyer pays, as the paywall and checkout show it ("by {name}", avatar, contact). */
export const publicContentSchema = z.object({
  ...publicContentFieldsSchema.shape,
  user: z.object({ firstName: z.string().nullable() }),
  creator: publicCreatorSchema,
  availability: availabilitySchema,
  /** The order bump offered at checkout, or null. */
  bump: publicBumpSchema,
});
export type PublicContent = z.infer<typeof publicContentSchema>;

/** A content item as its creator sees it (GET /api/content). Money in dollars, as the screens use it. */
export const creatorContentSchema = z.object({
  ...publicContentFieldsSchema.shape,
  /** Made for a funnel step: sold only after a purchase, never on its own paywall. */
  upsellOnly: z.boolean(),
  /** False once the creator unpublished it. */
  published: z.boolean(),
  linkUrl: z.string().nullable(),
  textContent: z.string().nullable(),
  unlockCount: z.number().int(),
  totalEarnings: dollars,
  /** "Issue a license key with each purchase", and its activation limit (null = unlimited). */
  issueLicenseKeys: z.boolean(),
  activationLimit: z.number().int().nullable(),
  /** One reminder email to a buyer who left checkout with an email; on by default. */
  checkoutReminders: z.boolean(),
  /** The order bump: another of the creator's items offered at checkout at this price, or null. */
  bump: creatorBumpSchema,
});
export type CreatorContent = z.infer<typeof creatorContentSchema>;
export const creatorContentListSchema = z.array(creatorContentSchema);
/** PUT /api/content/{id}/checkout-reminders: the item's switch now. */
export const checkoutRemindersSchema = z.object({ checkoutReminders: z.boolean() });
