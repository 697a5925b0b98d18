// The admin's API. Every route here is behind requireAdmin (401 signed out, 403 for anyone but
// ADMIN_EMAIL), enforced on the server; inputs are validated with shared/admin.ts.
import { eq } from "drizzle-orm";
import { Hono } from "hono";
import {
  adminFeedbackFilterSchema,
  adminPeriodQuerySchema,
  CSV_ROW_COUNT_HEADER,
  fixPurchaseEmailsSchema,
  holdCreatorSchema,
  markPayoutFailedSchema,
  markPayoutPaidSchema,
  processPayoutsSchema,
} from "../../shared/admin";
import { users } from "../db/schema";
import { requireAdmin, type AppEnv } from "../middleware/context";
import { optionalJson, validate } from "../lib/validate";
import { creatorPayoutRows, feedbackInbox, monthlyReports, payoutSummary } from "../services/admin-reports";
import { fixPurchaseEmails } from "../services/fix-purchase-emails";
import { csvFileName, payoutsCsvExport } from "../services/payouts-csv";
import { markPayoutFailed, markPayoutPaid, payoutsWaiting, resendPayout } from "../services/payouts/admin";
import { holdCreator, releaseCreator } from "../services/payouts/hold";
import type { Actor } from "../services/payouts/deps";
import { payoutDeps } from "../deps";
import { payoutRunView, processPayouts } from "../workflows/payout-run";
import { stripeClient } from "../services/stripe";

type AdminEnv = { Bindings: AppEnv["Bindings"]; Variables: { db: AppEnv["Variables"]["db"]; userId: string } };

async function actorOf(c: { var: AdminEnv["Variables"] }): Promise<Actor> {
  const u = await c.var.db.select({ email: users.email }).from(users).where(eq(users.id, c.var.userId)).get();
  return { userId: c.var.userId, email: u?.email ?? null };
}

export const adminRoutes = new Hono<AppEnv>()
  .use("/admin/*", requireAdmin)
  .get("/admin/payout-summary", async (c) => c.json(await payoutSummary(c.var.db)))
  .get("/admin/creator-payouts", validate("query", adminPeriodQuerySchema), async (c) => {
    const { month, year } = c.req.valid("query");
    return c.json(await creatorPayoutRows(c.var.db, { year, month }));
  })
  .get("/admin/monthly-reports", async (c) => c.json(await monthlyReports(c.var.db)))
  .post("/admin/process-payouts", validate("json", processPayoutsSchema), async (c) => {
    const { month, year, markPaid } = c.req.valid("json");
    const actor = await actorOf(c as never);
    return c.json(await processPayouts(c.env, { year, month }, actor, markPaid));
  })
  // The period's run, live (the admin's run panel polls it).
  .get("/admin/payout-run", validate("query", adminPeriodQuerySchema), async (c) => {
    const { month, year } = c.req.valid("query");
    return c.json(await payoutRunView(c.env, { year, month }));
  })
  // Payouts and withdrawals Stripe refused for the platform's balance, with that balance (any month).
  .get("/admin/payouts-waiting", async (c) => c.json(await payoutsWaiting(payoutDeps(c.env))))
  .get("/admin/export-payouts", validate("query", adminPeriodQuerySchema), async (c) => {
    const { month, year } = c.req.valid("query");
    const { rowCount, stream } = await payoutsCsvExport(c.var.db, { year, month });
    return new Response(stream, {
      headers: {
        [CSV_ROW_COUNT_HEADER]: String(rowCount),
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="${csvFileName({ year, month })}"`,
        "cache-control": "no-store",
      },
    });
  })
  // One page per call (a bare POST starts at the oldest); the screen calls again with `next`.
  .post("/admin/fix-purchase-emails", async (c) => {
    const { after } = await optionalJson(c, fixPurchaseEmailsSchema);
    const actor = await actorOf(c as never);
    return c.json(await fixPurchaseEmails({ db: c.var.db, d1: c.env.DB, stripe: stripeClient(c.env) }, actor, after));
  })
  .get("/admin/feedback", validate("query", adminFeedbackFilterSchema), async (c) =>
    c.json(await feedbackInbox(c.var.db, c.req.valid("query"))),
  )
  // ---- actions on one payout, and a creator's hold (services/payouts/admin.ts): each audited, each a
  // no-op answering 200 with the current state when pressed again, 409 when the state refuses it.
  .post("/admin/payouts/:id/mark-paid", validate("json", markPayoutPaidSchema), async (c) =>
    c.json(
      await markPayoutPaid(
        payoutDeps(c.env),
        await actorOf(c as never),
        c.req.param("id"),
        c.req.valid("json").reference,
      ),
    ),
  )
  .post("/admin/payouts/:id/mark-failed", validate("json", markPayoutFailedSchema), async (c) =>
    c.json(
      await markPayoutFailed(
        payoutDeps(c.env),
        await actorOf(c as never),
        c.req.param("id"),
        c.req.valid("json").reason,
      ),
    ),
  )
  .post("/admin/payouts/:id/resend", async (c) =>
    c.json(await resendPayout(payoutDeps(c.env), await actorOf(c as never), c.req.param("id"))),
  )
  .post("/admin/creators/:id/hold", validate("json", holdCreatorSchema), async (c) =>
    c.json(
      await holdCreator(payoutDeps(c.env), await actorOf(c as never), c.req.param("id"), c.req.valid("json").reason),
    ),
  )
  .post("/admin/creators/:id/release", async (c) =>
    c.json(await releaseCreator(payoutDeps(c.env), await actorOf(c as never), c.req.param("id"))),
  );
