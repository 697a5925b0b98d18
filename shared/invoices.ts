// A paid order's invoice as the API answers it (GET /api/purchases/{id}/invoice) and the words it
// and its PDF use. Numbering, who may read it and what it shows: docs/tax.md ("Invoices").
import { z } from "zod";
import { dollars, isoTime, publicId } from "./answers";

/** 123 -> "AW-000123": six digits at least, more once past 999999. */
export const invoiceNumber = (n: number): string => `AW-${String(n).padStart(6, "0")}`;

/** The file name a download saves as. */
export const invoiceFileName = (number: string): string => `ApeWall-invoice-${number}.pdf`;

/** The link the success page, the library and the receipt show, word for word. */
export const INVOICE_LINK_TEXT = "Download invoice (PDF)";
export const INVOICE_MAIL_LINK_TEXT = "Download your invoice (PDF)";

/** GET /api/purchases/{id}/invoice and …/invoice.pdf: the access link's token, when the caller holds one. */
export const invoiceQuerySchema = z.object({
  access: z.string().max(500).optional().meta({
    description:
      "The purchase's access token, as its access link carries it, or the invoice link's own token (it reads this invoice only)",
  }),
});

export const invoiceParamSchema = z.object({ id: z.string().regex(/^[A-Za-z0-9]{1,32}$/, "invalid id") });

const invoiceLineSchema = z.object({
  purchaseId: publicId,
  title: z.string(),
  net: dollars,
  rate: z
    .string()
    .nullable()
    .meta({ description: "The tax rate in percent; null where no tax applied", example: "20" }),
  tax: dollars,
  total: dollars.meta({ description: "What the buyer paid for the line, tax included" }),
});

export const invoiceSchema = z
  .object({
    number: z.string().meta({ example: "AW-000123" }),
    title: z.enum(["Tax invoice", "Invoice"]).meta({
      description: "Tax invoice where tax was charged or reverse charged; Invoice otherwise",
    }),
    issuedAt: isoTime,
    currency: z.string().meta({ example: "usd" }),
    seller: z.object({
      name: z.string().meta({ example: "ApeWall" }),
      address: z.string().nullable(),
      registration: z
        .string()
        .nullable()
        .meta({ description: "ApeWall's tax registration for the buyer's place", example: "EU372000041" }),
    }),
    onBehalfOf: z
      .string()
      .nullable()
      .meta({ description: "The creator who made the item (sold on their behalf)", example: "Maya Lens" }),
    buyer: z.object({
      email: z.string().nullable(),
      vatId: z.string().nullable().meta({ example: "DE123456789" }),
      country: z.string().nullable().meta({ example: "FR" }),
      place: z.string().nullable().meta({ example: "France" }),
    }),
    lines: z.array(invoiceLineSchema).meta({ description: "The item and, where bought with it, the order bump" }),
    net: dollars,
    tax: dollars,
    total: dollars,
    taxLabel: z.string().nullable().meta({ description: "The tax line's words", example: "VAT (20%, France)" }),
    reverseCharge: z.string().nullable().meta({ example: "Reverse charge: the customer accounts for the VAT" }),
    state: z.enum(["paid", "partly_refunded", "refunded", "disputed"]),
    refunded: dollars.meta({ description: "What was refunded of the order so far (a credit note is not issued)" }),
    pdfUrl: z.string().meta({ description: "The invoice as a PDF, for the same caller" }),
  })
  .meta({ id: "Invoice", description: "A paid order's invoice (docs/tax.md, Invoices)" });
export type Invoice = z.infer<typeof invoiceSchema>;

/** Where a verify answer points to a purchase's invoice; null while it has none. */
export const invoiceLinkSchema = z
  .object({ number: z.string().meta({ example: "AW-000123" }), url: z.string() })
  .nullable()
  .meta({ description: "The order's invoice (its PDF), once issued" });
export type InvoiceLink = z.infer<typeof invoiceLinkSchema>;
