// The signed-in creator's money: earnings stats, sales, the money timeline, the next payout, payout
// history, payout setup and "Withdraw now". Every query is scoped to c.var.userId.
import { Hono, type Context } from "hono";
import {
  pageQuerySchema,
  purchaseIdParamSchema,
  refundSaleSchema,
  earningsStatsSchema,
  refundRequestSchema,
  timelinePageSchema,
  saleListSchema,
} from "../../shared/earnings";
import {
  payoutDefaultSchema,
  payoutSetupSchema,
  withdrawSchema,
  nextPayoutSchema,
  payoutHistoryItemSchema,
  withdrawStatusSchema,
  payoutHistorySchema,
} from "../../shared/payouts";
import type { WithdrawStatus } from "../../shared/payouts";
import { requireUser, type AppEnv } from "../middleware/context";
import { validate } from "../lib/validate";
import { requestRefund } from "../services/refunds/creator-refunds";
import { refundQuote } from "../services/refunds/refund-quote";
import { refundQuoteQuerySchema, refundQuoteSchema } from "../../shared/refunds";
import { withLicenses } from "../services/licenses";
import { creatorSales, earningsStats, moneyTimeline, nextPayout, payoutHistory } from "../services/earnings";
import { setPayoutDefault, setupPayout, type DestinationDeps } from "../services/payouts/destination-settings";
import { requireRecentSignIn } from "../middleware/recent-sign-in";
import { PAYOUT_DESTINATION_MESSAGES, PAYOUT_DESTINATION_RECENT_SIGN_IN_MS } from "../../shared/payout-destination";
import type { Bindings } from "../lib/env";
import { payoutDeps } from "../deps";
import { withdraw, withdrawStatus } from "../services/payouts/withdraw-now";
import { purchaseDeps } from "./purchase-context";
import { doc } from "../openapi/describe";
import { successSchema } from "../../shared/answers";
import { resendReceiptAnswerSchema, resendReceiptSchema } from "../../shared/mail";
import { resendReceipt, withReceipts } from "../services/mail/receipts-delivered";

/** Where payouts go changes only on a sign-in younger than 10 minutes (a stolen cookie cannot redirect them). */
const recentSignIn = requireRecentSignIn(PAYOUT_DESTINATION_RECENT_SIGN_IN_MS, PAYOUT_DESTINATION_MESSAGES.signInAgain);
const destinationDeps = (env: Bindings): DestinationDeps => ({ d1: env.DB, emails: env.EMAILS, appUrl: env.APP_URL });
const changeContext = (c: { req: { header: (name: string) => string | undefined } }) => ({
  ip: c.req.header("cf-connecting-ip") ?? null,
});

export const creatorRoutes = new Hono<AppEnv>()
  .get(
    "/earnings/stats",
    doc({ tag: "Sales and earnings", summary: "Balance and totals", access: "creator", ok: earningsStatsSchema }),
    requireUser,
    async (c) => c.json(await earningsStats(c.var.db, c.var.userId)),
  )
  .get(
    "/earnings/timeline",
    doc({
      tag: "Sales and earnings",
      summary: "The money timeline: each sale's share and where it stands",
      access: "creator",
      ok: timelinePageSchema,
    }),
    requireUser,
    validate("query", pageQuerySchema),
    async (c) => c.json(await moneyTimeline(c.var.db, c.var.userId, c.req.valid("query"))),
  )
  .get(
    "/creator/sales",
    doc({ tag: "Sales and earnings", summary: "Sales, newest first", access: "creator", ok: saleListSchema }),
    requireUser,
    validate("query", pageQuerySchema),
    async (c) =>
      c.json(
        await withReceipts(
          c.env.DB,
          c.var.userId,
          await withLicenses(c.env.DB, c.var.userId, await creatorSales(c.var.db, c.var.userId, c.req.valid("query"))),
        ),
      ),
  )
  .get(
    "/payout/next",
    doc({
      tag: "Payouts",
      summary: "The next payout: when and how much, or why none",
      access: "creator",
      ok: nextPayoutSchema,
    }),
    requireUser,
    async (c) => c.json(await nextPayout(c.var.db, c.var.userId)),
  )
  .get(
    "/payout/history",
    doc({
      tag: "Payouts",
      summary: "Payouts and withdrawals",
      access: "creator",
      ok: payoutHistorySchema,
    }),
    requireUser,
    async (c) => c.json(await payoutHistory(c.var.db, c.var.userId)),
  )
  .post(
    "/payout/setup",
    doc({
      tag: "Payouts",
      summary: "Set a manual payout method",
      description: "Needs a sign-in younger than 10 minutes; the creator is emailed at their account address.",
      access: "session",
      ok: successSchema,
      errors: {
        403: "Sign in again: the last sign-in is more than 10 minutes old",
        409: "Changed at the same moment from somewhere else",
      },
    }),
    requireUser,
    validate("json", payoutSetupSchema),
    recentSignIn,
    async (c) => {
      await setupPayout(destinationDeps(c.env), c.var.userId, c.req.valid("json"), changeContext(c));
      return c.json({ success: true });
    },
  )
  .post(
    "/payout/default",
    doc({
      tag: "Payouts",
      summary: "Choose bank or manual when both are set up",
      description: "Needs a sign-in younger than 10 minutes; the creator is emailed at their account address.",
      access: "session",
      ok: successSchema,
      errors: {
        403: "Sign in again: the last sign-in is more than 10 minutes old",
        409: "Changed at the same moment from somewhere else",
      },
    }),
    requireUser,
    validate("json", payoutDefaultSchema),
    recentSignIn,
    async (c) => {
      await setPayoutDefault(destinationDeps(c.env), c.var.userId, c.req.valid("json").payoutDefault, changeContext(c));
      return c.json({ success: true });
    },
  )
  .get(
    "/payout/withdraw",
    doc({
      tag: "Payouts",
      summary: "What Withdraw now would take, or why it cannot",
      access: "creator",
      ok: withdrawStatusSchema,
    }),
    requireUser,
    async (c) => {
      const { available, blockedBy, latest } = await withdrawStatus(c.var, c.var.userId);
      return c.json({ available, blockedBy, latest } satisfies WithdrawStatus);
    },
  )
  // Everything available goes to the connected bank now (worker/services/payouts/withdraw-now.ts).
  .post(
    "/payout/withdraw",
    doc({
      tag: "Payouts",
      summary: "Withdraw the available balance to the connected bank now",
      access: "session",
      ok: payoutHistoryItemSchema,
      errors: { 409: "Cannot withdraw now: the reason is in the message" },
    }),
    requireUser,
    validate("json", withdrawSchema),
    async (c) => c.json(await withdraw(payoutDeps(c.env), c.var.userId)),
  )

  // ---- refunds: a creator refunds one of their own sales through Stripe (services/refunds/creator-refunds.ts) ----
  .get(
    "/sales/:purchaseId/refund-quote",
    doc({
      tag: "Sales and earnings",
      summary: "How much of the balance a refund of this amount would take",
      access: "creator",
      ok: refundQuoteSchema,
      errors: { 404: "No such sale of yours" },
    }),
    requireUser,
    validate("param", purchaseIdParamSchema),
    validate("query", refundQuoteQuerySchema),
    async (c) =>
      c.json(
        await refundQuote(c.env.DB, c.var.userId, c.req.valid("param").purchaseId, c.req.valid("query").amountCents),
      ),
  )
  .post(
    "/sales/:purchaseId/resend-receipt",
    doc({
      tag: "Sales and earnings",
      summary: "Email the buyer their receipt and access link again",
      description:
        "To the buyer's current address, through the outbox. Send the same requestKey again and one email goes. At most 3 an hour per sale and 30 an hour per creator.",
      access: "session",
      ok: resendReceiptAnswerSchema,
      errors: {
        404: "No such sale of yours",
        409: "The sale no longer gives access (refunded or disputed), or has no email address",
        429: "Resent too often in the last hour",
      },
    }),
    requireUser,
    validate("param", purchaseIdParamSchema),
    validate("json", resendReceiptSchema),
    async (c) =>
      c.json(
        await resendReceipt(
          purchaseDeps(c as unknown as Context<AppEnv>),
          c.var.userId,
          c.req.valid("param").purchaseId,
          c.req.valid("json").requestKey,
        ),
      ),
  )
  .post(
    "/sales/:purchaseId/refund",
    doc({
      tag: "Sales and earnings",
      summary: "Refund a sale in full or in part",
      description: "Send the same Idempotency-Key again and nothing is refunded twice.",
      access: "session",
      ok: refundRequestSchema,
      errors: {
        404: "No such sale of yours",
        409: "Not refundable now (the reason is in the message)",
        502: "Stripe could not be reached",
      },
    }),
    requireUser,
    validate("param", purchaseIdParamSchema),
    validate("json", refundSaleSchema),
    async (c) =>
      c.json(
        await requestRefund(
          purchaseDeps(c as unknown as Context<AppEnv>),
          c.var.userId,
          c.req.valid("param").purchaseId,
          c.req.valid("json"),
        ),
      ),
  );
