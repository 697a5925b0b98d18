// A paid order's invoice, as JSON for the success page and as a PDF to download, for the buyer only:
// the access link's token, the browser that paid, or their library session. Behaviour: docs/tax.md
// ("Invoices").
import type { Context } from "hono";
import { Hono } from "hono";
import { invoiceFileName, invoiceParamSchema, invoiceQuerySchema, invoiceSchema } from "../../shared/invoices";
import type { AppEnv } from "../middleware/context";
import { notFound } from "../lib/errors";
import { validate } from "../lib/validate";
import { doc } from "../openapi/describe";
import { libraryEmailOf } from "../services/library/session";
import { invoiceOf, invoicePdfPath, readableOrder, sellerConfig } from "../services/tax/invoice";
import { invoicePdf } from "../services/tax/pdf";
import { buyerKey, purchaseDeps } from "./purchase-context";

const NO_INVOICE = "Invoice Not Found";
const ERRORS = { 404: "No invoice for this purchase, or it is not yours (one answer for both)" } as const;

/** The invoice of purchase `id`'s order, when this caller may read it; else 404. */
async function readInvoice(c: Context<AppEnv>, id: string, access: string | undefined) {
  const deps = purchaseDeps(c);
  const reader = await readableOrder(deps, id, {
    access,
    buyerKey: buyerKey(c, false),
    libraryEmail: () => libraryEmailOf(c),
  });
  const invoice =
    reader &&
    (await invoiceOf(deps, sellerConfig(c.env), reader.rootId, await invoicePdfPath(deps, id, reader.rootId), {
      maskEmail: !reader.buyer,
    }));
  if (!invoice) throw notFound(NO_INVOICE);
  return invoice;
}

export const invoiceRoutes = new Hono<AppEnv>()
  .get(
    "/purchases/:id/invoice",
    doc({
      tag: "Checkout and access",
      summary: "A paid order's invoice",
      description:
        "The order's invoice (an order bump is a line of its main purchase's; an upsell has its own): number, seller and its tax registration for the buyer's place, the lines, net, tax and total, refunds so far.",
      access: "buyer",
      ok: invoiceSchema,
      errors: ERRORS,
    }),
    validate("param", invoiceParamSchema),
    validate("query", invoiceQuerySchema),
    async (c) => {
      c.header("Cache-Control", "private, no-store");
      return c.json(await readInvoice(c, c.req.valid("param").id, c.req.valid("query").access));
    },
  )
  .get(
    "/purchases/:id/invoice.pdf",
    doc({
      tag: "Checkout and access",
      summary: "Download a paid order's invoice (PDF)",
      description: "The same invoice as a one-page PDF (application/pdf), saved as ApeWall-invoice-AW-000123.pdf.",
      access: "buyer",
      ok: { file: "The invoice, a PDF attachment" },
      errors: ERRORS,
    }),
    validate("param", invoiceParamSchema),
    validate("query", invoiceQuerySchema),
    async (c) => {
      const invoice = await readInvoice(c, c.req.valid("param").id, c.req.valid("query").access);
      const pdf = invoicePdf(invoice);
      return c.body(pdf, 200, {
        "content-type": "application/pdf",
        "content-length": String(pdf.byteLength),
        "content-disposition": `attachment; filename="${invoiceFileName(invoice.number)}"`,
        "cache-control": "private, no-store",
        "x-content-type-options": "nosniff",
      });
    },
  );
