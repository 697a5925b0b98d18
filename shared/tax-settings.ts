// The creator's side of tax (docs/tax.md "What the creator sees"): whether their prices include tax,
// the preview of what buyers in a few places pay and what the creator earns, and the tax part of a
// sale as the sales table, the money timeline, the CSV export and the public API show it.
import { z } from "zod";
import { dollars } from "./answers";
import { MAX_PRICE_CENTS, MIN_PRICE_CENTS } from "./pricing";
import { TAX_BEHAVIORS, type TaxBehavior } from "./tax";

export const TAX_SETTINGS_MESSAGES = {
  behavior: "behavior must be auto, inclusive or exclusive",
  price: `Enter a price from $${(MIN_PRICE_CENTS / 100).toFixed(2)} to $${(MAX_PRICE_CENTS / 100).toLocaleString("en-US")}`,
  unavailable: "The tax preview is unavailable right now. Please try again in a minute.",
} as const;

/** The choice as /settings words it: title and what it means for a buyer. */
export const TAX_BEHAVIOR_TEXT: Record<TaxBehavior, { title: string; text: string }> = {
  auto: {
    title: "Automatic (recommended)",
    text: "US buyers see tax added at checkout, as they expect; everywhere else your price includes tax.",
  },
  inclusive: {
    title: "Always include tax",
    text: "Every buyer pays the price you set; the tax comes out of it.",
  },
  exclusive: {
    title: "Never include tax",
    text: "Tax is added on top of your price at checkout, everywhere.",
  },
};

const behaviorSchema = z.enum(TAX_BEHAVIORS, { error: TAX_SETTINGS_MESSAGES.behavior });

/** PUT /api/settings/tax. */
export const taxSettingsInputSchema = z.strictObject({ behavior: behaviorSchema });

/** GET and PUT /api/settings/tax. */
export const taxSettingsSchema = z.object({
  behavior: z.enum(TAX_BEHAVIORS).meta({ description: "auto: tax on top for US buyers, included elsewhere" }),
  suggestedPrice: dollars.meta({ description: "The preview's first price: the creator's most common price, or $10" }),
});
export type TaxSettings = z.infer<typeof taxSettingsSchema>;

/** GET /api/settings/tax/preview?priceCents=1000&behavior=inclusive (behavior defaults to the saved one). */
export const taxPreviewQuerySchema = z.object({
  priceCents: z.coerce
    .number({ error: TAX_SETTINGS_MESSAGES.price })
    .int(TAX_SETTINGS_MESSAGES.price)
    .min(MIN_PRICE_CENTS, TAX_SETTINGS_MESSAGES.price)
    .max(MAX_PRICE_CENTS, TAX_SETTINGS_MESSAGES.price),
  behavior: behaviorSchema.optional(),
});

/** The buyers the preview shows, in order: a consumer in France, a business in Germany, the UK, Washington, Australia. */
export const PREVIEW_BUYERS = [
  { id: "fr", label: "France", country: "FR", region: null, postalCode: "75001", vatId: null },
  {
    id: "de-business",
    label: "Germany (business with a VAT number)",
    country: "DE",
    region: null,
    postalCode: "10115",
    vatId: "DE123456789",
  },
  { id: "gb", label: "United Kingdom", country: "GB", region: null, postalCode: "SW1A 1AA", vatId: null },
  { id: "us-wa", label: "Washington (US)", country: "US", region: "WA", postalCode: "98101", vatId: null },
  { id: "au", label: "Australia", country: "AU", region: null, postalCode: "2000", vatId: null },
] as const;

const previewRowSchema = z.object({
  id: z.string().meta({ example: "fr" }),
  buyer: z.string().meta({ example: "France" }),
  buyerPays: dollars.meta({ description: "What the buyer pays, tax included" }),
  tax: dollars,
  net: dollars.meta({ description: "The price without tax: what the fee is computed on" }),
  fee: dollars.meta({ description: "ApeWall's fee on the net (20% on the free plan, 0% on Pro)" }),
  earns: dollars.meta({ description: "What the creator earns: net minus the fee" }),
  inclusive: z.boolean(),
  reverseCharge: z.boolean(),
  taxLine: z.string().nullable().meta({ example: "Includes $1.67 VAT (20%, France)" }),
});
export type TaxPreviewRow = z.infer<typeof previewRowSchema>;

export const taxPreviewSchema = z.object({
  price: dollars,
  behavior: z.enum(TAX_BEHAVIORS),
  feePercent: z.number().int().meta({ example: 20 }),
  rows: z.array(previewRowSchema),
});
export type TaxPreview = z.infer<typeof taxPreviewSchema>;

/** A sale's tax, in dollars like every answer; null on a sale that carried none. */
export const saleTaxSchema = z
  .object({
    amount: dollars.meta({ description: "The tax in the buyer's payment (the sale's amount includes it)" }),
    net: dollars.meta({ description: "The sale without tax: amount − tax" }),
    type: z.string().nullable().meta({ example: "vat" }),
    rate: z.string().nullable().meta({ description: "Percent", example: "20" }),
    country: z.string().nullable().meta({ example: "FR" }),
    region: z.string().nullable().meta({ example: null }),
    reverseCharge: z.boolean(),
  })
  .meta({ id: "SaleTax", description: "The tax in a sale (docs/tax.md)" });
export type SaleTax = z.infer<typeof saleTaxSchema>;
