// The admin's tax page API (docs/tax.md, "The admin's tax report"): behind requireAdmin (401 signed
// out, 403 for anyone but ADMIN_EMAIL), on the server; inputs validated with shared/admin.ts and
// shared/admin-tax.ts. Like every /api/admin route, left out of the public OpenAPI document.
import { Hono } from "hono";
import { adminPeriodQuerySchema, CSV_ROW_COUNT_HEADER } from "../../shared/admin";
import { taxRereadSchema } from "../../shared/admin-tax";
import { ApiError } from "../lib/errors";
import { validate } from "../lib/validate";
import { type AppEnv, requireAdmin } from "../middleware/context";
import { stripeClient } from "../services/stripe";
import { reconcileTax, rereadMissing } from "../services/tax/reconcile";
import { taxCsvFileName, taxReport, taxReportCsv } from "../services/tax/report";
import { registrationsAndThresholds } from "../services/tax/thresholds";

/** A Stripe call that failed: 502 with what Stripe said, never a bare 500. */
async function fromStripe<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ApiError) throw err;
    const e = err as { type?: string; message?: string };
    if (typeof e?.type === "string" && e.type.startsWith("Stripe"))
      throw new ApiError(502, `Stripe did not answer as expected: ${e.message ?? e.type}`);
    throw err;
  }
}

export const adminTaxRoutes = new Hono<AppEnv>()
  .use("/admin/tax/*", requireAdmin)
  .get("/admin/tax/report", validate("query", adminPeriodQuerySchema), async (c) =>
    c.json(await taxReport(c.var.db, c.req.valid("query"))),
  )
  .get("/admin/tax/report.csv", validate("query", adminPeriodQuerySchema), async (c) => {
    const period = c.req.valid("query");
    const report = await taxReport(c.var.db, period);
    return new Response(taxReportCsv(report), {
      headers: {
        // The jurisdictions and the total row.
        [CSV_ROW_COUNT_HEADER]: String(report.rows.length + 1),
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="${taxCsvFileName(period)}"`,
        "cache-control": "no-store",
      },
    });
  })
  .get("/admin/tax/reconciliation", validate("query", adminPeriodQuerySchema), async (c) =>
    c.json(await reconcileTax(c.var.db, c.req.valid("query"))),
  )
  // One batch of orders per call (services/tax/reconcile.ts REREAD_BATCH); the page calls again with `after`.
  .post("/admin/tax/reconciliation/reread", validate("json", taxRereadSchema), async (c) => {
    const { after, ...period } = c.req.valid("json");
    return c.json(await fromStripe(() => rereadMissing({ db: c.var.db, stripe: stripeClient(c.env) }, period, after)));
  })
  .get("/admin/tax/registrations", async (c) =>
    c.json(await fromStripe(() => registrationsAndThresholds({ db: c.var.db, stripe: stripeClient(c.env) }))),
  );
