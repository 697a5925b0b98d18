// A buyer's reads of what they bought: whether this browser (or the access link) owns an item, the
// purchase unlocked, the access email again, and "Lost your access?". Behaviour: docs/payments.md.
import { Hono } from "hono";
import { z } from "zod";
import {
  RECOVER_ACCESS_MESSAGE,
  recoverAccessSchema,
  sendAccessEmailSchema,
  verifyPurchaseQuery,
  type ContentAccess,
  contentAccessSchema,
  purchaseProgressSchema,
  purchaseVerificationSchema,
  recoverAccessAnswerSchema,
  revokedPurchaseSchema,
} from "../../shared/payments";
import type { AppEnv } from "../middleware/context";
import { ApiError, notFound } from "../lib/errors";
import { rateLimit } from "../lib/rate-limit";
import { validate } from "../lib/validate";
import { sendViaOutbox } from "../services/mail/email-outbox";
import type { EmailJob } from "../services/mail/templates";
import { processingFor } from "../services/purchases/processing";
import {
  assertPaid,
  claimedPurchase,
  currentPurchaseOfContent,
  revokedPurchase,
  verification,
} from "../services/purchases/buyer-access";
import { syncWithStripe } from "../services/purchases/fulfil";
import { cheapResendAllowed } from "../services/purchases/receipt-cap";
import { receiptData } from "../services/purchases/receipts";
import { doc } from "../openapi/describe";
import { claimOf, purchaseDeps } from "./purchase-context";
import { sentSchema } from "../../shared/answers";
import { CHEAP_RESEND_REFUSED } from "../../shared/card-testing";

const idParam = z.object({ id: z.string().regex(/^[A-Za-z0-9]{1,32}$/, "invalid id") });

export const purchaseAccessRoutes = new Hono<AppEnv>()
  // The paywall asks this on every visit: an owner sees the item unlocked, never 'Unlock' again.
  .get(
    "/content/:id/access",
    doc({
      tag: "Checkout and access",
      summary: "Whether this browser (or the access link) owns the item",
      access: "buyer",
      ok: contentAccessSchema,
    }),
    validate("param", idParam),
    async (c) => {
      const claim = claimOf(c);
      if (!claim.buyerKey && !claim.access) return c.json({ owned: false, status: "none" } satisfies ContentAccess);
      const deps = purchaseDeps(c);
      const purchase = await currentPurchaseOfContent(deps, claim, c.req.valid("param").id);
      if (!purchase) return c.json({ owned: false, status: "none" } satisfies ContentAccess);
      if (purchase.status !== "paid") {
        // A payment on its way (worker/services/purchases/processing.ts) is told apart from a checkout left open.
        const processing =
          purchase.status === "pending" &&
          (!!purchase.processingSince ||
            (!!claim.buyerKey && (await processingFor(c.env.DB, claim.buyerKey, purchase.contentId))));
        return c.json({ owned: false, status: processing ? "processing" : purchase.status } satisfies ContentAccess);
      }
      return c.json({
        owned: true,
        verification: await verification(deps, purchase, claim.buyerKey),
      } satisfies ContentAccess);
    },
  )
  .post(
    "/content/:id/process-recent-purchase",
    doc({
      tag: "Checkout and access",
      summary: "Where this browser's latest purchase of the item stands",
      access: "buyer",
      ok: purchaseProgressSchema,
    }),
    validate("param", idParam),
    async (c) => {
      const purchase = await currentPurchaseOfContent(purchaseDeps(c), claimOf(c), c.req.valid("param").id);
      if (!purchase) return c.json({ status: "none", unlocked: false });
      return c.json({ status: purchase.status, unlocked: purchase.status === "paid" });
    },
  )
  .get(
    "/purchase/verify",
    doc({
      tag: "Checkout and access",
      summary: "A paid purchase: the item unlocked",
      access: "buyer",
      ok: purchaseVerificationSchema,
      errors: {
        403: "Access to this purchase was revoked after a refund or dispute",
        404: "Purchase Not Found",
        409: "Payment is still processing",
      },
    }),
    validate("query", verifyPurchaseQuery),
    async (c) => {
      const q = c.req.valid("query");
      if (!q.payment_intent && !q.access) throw new ApiError(400, "payment_intent is required");
      const deps = purchaseDeps(c);
      const found = await claimedPurchase(deps, claimOf(c, q.access), {
        paymentIntentId: q.payment_intent,
        contentId: q.content_id,
      });
      if (!found) throw notFound("Purchase Not Found");
      const purchase = await syncWithStripe(deps, found, { bestEffort: true });
      assertPaid(purchase);
      return c.json(await verification(deps, purchase, claimOf(c).buyerKey));
    },
  )
  // A refunded (or charged-back) buyer's old link reads why it no longer opens, and since when.
  .get(
    "/purchase/revoked",
    doc({
      tag: "Checkout and access",
      summary: "Why a purchase no longer opens: refunded or disputed, and since when",
      description: "Answers the holder of the access link (or the browser that paid) only; no email, no amount.",
      access: "buyer",
      ok: revokedPurchaseSchema,
      errors: { 404: "No such purchase, or it still opens" },
    }),
    validate("query", verifyPurchaseQuery),
    async (c) => {
      const q = c.req.valid("query");
      if (!q.payment_intent && !q.access) throw new ApiError(400, "payment_intent is required");
      const revoked = await revokedPurchase(purchaseDeps(c), claimOf(c, q.access), {
        paymentIntentId: q.payment_intent,
        contentId: q.content_id,
      });
      if (!revoked) throw notFound("Purchase Not Found");
      return c.json(revoked);
    },
  )
  .post(
    "/purchase/send-access-email",
    doc({
      tag: "Checkout and access",
      summary: "Email the access link again",
      access: "buyer",
      ok: sentSchema,
      errors: {
        403: "Access to this purchase was revoked after a refund or dispute",
        404: "Purchase Not Found",
        409: "Payment is still processing",
        429: "A cheap order's receipt already went to another address of this buyer today (docs/payments.md)",
      },
    }),
    validate("json", sendAccessEmailSchema),
    async (c) => {
      const body = c.req.valid("json");
      const deps = purchaseDeps(c);
      const purchase = await claimedPurchase(deps, claimOf(c, body.access), {
        paymentIntentId: body.paymentIntentId,
        contentId: body.contentId,
      });
      assertPaid(purchase);
      if (!purchase.buyerEmail) throw new ApiError(400, "No email address is on this purchase");
      if (!(await cheapResendAllowed(c.env.DB, purchase, purchase.buyerEmail)))
        throw new ApiError(429, CHEAP_RESEND_REFUSED);
      const job: EmailJob = {
        // One reminder per purchase per ten minutes, however often the button is pressed.
        dedupeKey: `purchase-access-reminder:${purchase.id}:${Math.floor(Date.now() / 600_000)}`,
        to: purchase.buyerEmail,
        template: "purchase-access",
        data: await receiptData(deps, purchase),
      };
      await sendViaOutbox(c.env.DB, c.env.EMAILS, job);
      return c.json({ sent: true });
    },
  )
  // "Lost your access?": the answer never says whether the email bought anything. The queue
  // consumer looks the purchases up and sends at most one such email per address per hour.
  .post(
    "/purchase/recover",
    doc({
      tag: "Checkout and access",
      summary: "Lost your access? Email the links for an address",
      description: "The same answer whether or not the address bought anything.",
      access: "public",
      status: 202,
      ok: recoverAccessAnswerSchema,
      errors: { 429: "Too many requests from this address" },
    }),
    rateLimit("FORMS_LIMITER", "recover"),
    validate("json", recoverAccessSchema),
    async (c) => {
      const email = c.req.valid("json").email.toLowerCase();
      const job: EmailJob = {
        dedupeKey: `access-recovery:${email}:${Math.floor(Date.now() / 3_600_000)}`,
        to: email,
        template: "access-recovery",
        data: {},
      };
      await sendViaOutbox(c.env.DB, c.env.EMAILS, job);
      return c.json({ message: RECOVER_ACCESS_MESSAGE }, 202);
    },
  );
