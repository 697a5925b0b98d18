// The signed-in creator's money: earnings stats, sales, the money timeline, the next payout, payout
// history, payout setup and "Withdraw now". Every query is scoped to c.var.userId.
import { Hono, type Context } from "hono";
import { pageQuerySchema, payoutDefaultSchema, payoutSetupSchema, purchaseIdParamSchema, refundSaleSchema, withdrawSchema } from "../../shared/schemas";
import type { WithdrawStatus } from "../../shared/types";
import { requireUser, type AppEnv } from "../lib/context";
import { validate } from "../lib/validate";
import { requestRefund } from "../services/creator-refunds";
import { withLicenses } from "../services/licenses";
import { creatorSales, earningsStats, moneyTimeline, nextPayout, payoutHistory, setPayoutDefault, setupPayout } from "../services/earnings";
import { payoutDeps } from "../services/payouts";
import { withdraw, withdrawStatus } from "../services/withdrawals";
import { purchaseDeps } from "./payments";

export const creatorRoutes = new Hono<AppEnv>()
  .get("/earnings/stats", requireUser, async (c) => c.json(await earningsStats(c.var.db, c.var.userId)))
  .get("/earnings/timeline", requireUser, validate("query", pageQuerySchema), async (c) => c.json(await moneyTimeline(c.var.db, c.var.userId, c.req.valid("query"))))
  .get("/creator/sales", requireUser, validate("query", pageQuerySchema), async (c) => c.json(await withLicenses(c.env.DB, c.var.userId, await creatorSales(c.var.db, c.var.userId, c.req.valid("query")))))
  .get("/payout/next", requireUser, async (c) => c.json(await nextPayout(c.var.db, c.var.userId)))
  .get("/payout/history", requireUser, async (c) => c.json(await payoutHistory(c.var.db, c.var.userId)))
  .post("/payout/setup", requireUser, validate("json", payoutSetupSchema), async (c) => {
    await setupPayout(c.var.db, c.var.userId, c.req.valid("json"));
    return c.json({ success: true });
  })
  .post("/payout/default", requireUser, validate("json", payoutDefaultSchema), async (c) => {
    await setPayoutDefault(c.var.db, c.var.userId, c.req.valid("json").payoutDefault);
    return c.json({ success: true });
  })
  .get("/payout/withdraw", requireUser, async (c) => {
    const { available, blockedBy, latest } = await withdrawStatus(c.var, c.var.userId);
    return c.json({ available, blockedBy, latest } satisfies WithdrawStatus);
  })
  // Everything available goes to the connected bank now (worker/services/withdrawals.ts).
  .post("/payout/withdraw", requireUser, validate("json", withdrawSchema), async (c) => c.json(await withdraw(payoutDeps(c.env), c.var.userId)))

  // ---- refunds: the creator refunds one of their own sales through Stripe (worker/services/creator-refunds.ts) ----
  .post("/sales/:purchaseId/refund", requireUser, validate("param", purchaseIdParamSchema), validate("json", refundSaleSchema), async (c) =>
    c.json(await requestRefund(purchaseDeps(c as unknown as Context<AppEnv>), c.var.userId, c.req.valid("param").purchaseId, c.req.valid("json"))),
  );
