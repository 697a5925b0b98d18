// Buying and access: checkout, the speed-up calls of the paywall and success page, verification,
// access emails and the purchased file itself.
import { eq } from "drizzle-orm";
import { Hono, type Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { z } from "zod";
import {
  checkoutEmailSchema,
  createPaymentIntentSchema,
  RECOVER_ACCESS_MESSAGE,
  recoverAccessSchema,
  sendAccessEmailSchema,
  verifyPurchaseQuery,
  type AlreadyOwned,
  type ContentAccess,
  type DownloadLink,
  type PaymentsConfig,
  checkoutAnswerSchema,
  checkoutStartedSchema,
  contentAccessSchema,
  downloadLinkSchema,
  paymentsConfigSchema,
  purchaseProgressSchema,
  purchaseVerificationSchema,
  checkoutEmailSavedSchema,
  recoverAccessAnswerSchema,
} from "../../shared/payments";
import { content, purchases } from "../db/schema";
import { cookieIsSecure, type AppEnv } from "../lib/context";
import { ApiError, notFound } from "../lib/errors";
import { newToken } from "../lib/ids";
import { rateLimit } from "../lib/rate-limit";
import { optionalJson, validate } from "../lib/validate";
import { downloadSignatureValid, signedDownloadPath } from "../services/download-links";
import { serveFile } from "../services/files";
import { sendViaOutbox, dispatch } from "../services/mail/email-outbox";
import type { EmailJob } from "../services/mail/templates";
import {
  accessUrlFor,
  assertPaid,
  BUYER_COOKIE,
  claimedPurchase,
  currentPurchaseOfContent,
  purchaseIdFromToken,
  receiptData,
  startCheckout,
  syncWithStripe,
  verification,
  type PurchaseDeps,
} from "../services/purchases";
import { RECOVER_LINK_OTHER_EMAIL, reminder } from "../services/recovery";
import { processingFor, refuseWhileProcessing } from "../services/payment-processing";
import { stripeClient } from "../services/stripe";
import { doc } from "../openapi/describe";
import { sentSchema } from "../../shared/answers";

const idParam = z.object({ id: z.string().regex(/^[A-Za-z0-9]{1,32}$/, "invalid id") });
/** The download call's body: the access link's token when the caller holds one; a bare POST is `{}`. */
const downloadBodySchema = z.object({ access: z.string().max(500).optional() });
const piParam = z.object({ paymentIntent: z.string().regex(/^pi_[A-Za-z0-9]{1,64}$/, "invalid payment intent") });

export function purchaseDeps(c: Context<AppEnv>): PurchaseDeps {
  if (!c.env.ACCESS_TOKEN_SECRET) throw new Error("ACCESS_TOKEN_SECRET is not set");
  const reminderSeconds = Number(c.env.CHECKOUT_REMINDER_DELAY_SECONDS);
  return {
    db: c.var.db,
    d1: c.env.DB,
    stripe: stripeClient(c.env),
    emails: c.env.EMAILS,
    webhooks: c.env.WEBHOOKS,
    appUrl: c.env.APP_URL,
    accessSecret: c.env.ACCESS_TOKEN_SECRET,
    ...(reminderSeconds > 0 ? { reminderDelayMs: reminderSeconds * 1000 } : {}),
  };
}

/** This browser's buyer key (HttpOnly cookie), created at its first checkout. */
function buyerKey(c: Context<AppEnv>, create: boolean): string | undefined {
  const existing = getCookie(c, BUYER_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{20,100}$/.test(existing)) return existing;
  if (!create) return undefined;
  const key = newToken();
  setCookie(c, BUYER_COOKIE, key, {
    httpOnly: true,
    secure: cookieIsSecure(c.req.url),
    sameSite: "Lax",
    path: "/",
    maxAge: 365 * 24 * 3600,
  });
  return key;
}

const claimOf = (c: Context<AppEnv>, access?: string | null) => ({
  buyerKey: buyerKey(c, false),
  access: access ?? c.req.query("access"),
});

export const paymentRoutes = new Hono<AppEnv>()
  .get(
    "/payments/config",
    doc({
      tag: "Checkout and access",
      summary: "Stripe.js settings for checkout",
      access: "public",
      ok: paymentsConfigSchema,
      errors: { 503: "Payments are not configured" },
    }),
    (c) => {
      if (!c.env.STRIPE_PUBLISHABLE_KEY) throw new ApiError(503, "Payments are not configured");
      return c.json({
        publishableKey: c.env.STRIPE_PUBLISHABLE_KEY,
        stripeJsUrl: c.env.STRIPE_JS_URL || null,
      } satisfies PaymentsConfig);
    },
  )
  .post(
    "/create-payment-intent",
    doc({
      tag: "Checkout and access",
      summary: "Start a checkout",
      description:
        "Sets the buyer cookie. The amount is the server's: the item's price, or the buyer's amount for pay-what-you-want (at least its minimum).",
      access: "public",
      ok: checkoutStartedSchema,
      also: {
        200: {
          description: "A checkout to pay with Stripe.js; or, when this browser already owns the item, its access link",
          answer: checkoutAnswerSchema,
        },
      },
      errors: {
        400: "The body is not valid, the discount code does not apply (`discountCode: …`), or a reminder's link is not valid or names another address (`recoverToken: …`, `buyerEmail: …`)",
        404: "No such item",
        409: "The item is not on sale, the discount code is used up or held by this browser's other checkouts, the order bump is no longer available or already owned, the reminder's checkout is already paid, or this browser's payment for the item is still processing",
        429: "Too many checkouts from this address",
        502: "Stripe could not be reached",
      },
    }),
    rateLimit("CHECKOUT_LIMITER", "checkout"),
    validate("json", createPaymentIntentSchema),
    async (c) => {
      const input = c.req.valid("json");
      const deps = purchaseDeps(c);
      // A browser that already owns the item is offered its access, not a second charge.
      const key = buyerKey(c, false);
      const mine = key ? await currentPurchaseOfContent(deps, { buyerKey: key }, input.contentId) : null;
      const owned = mine?.status === "paid" ? mine : null;
      if (owned)
        return c.json({ alreadyOwned: true, accessUrl: await accessUrlFor(deps, owned) } satisfies AlreadyOwned);
      await refuseWhileProcessing(c.env.DB, key, input.contentId);
      const result = await startCheckout(deps, {
        contentId: input.contentId,
        customAmount: input.customAmount,
        buyerEmail: input.buyerEmail || null,
        buyerKey: buyerKey(c, true)!,
        discountCode: input.discountCode || null,
        recoverToken: input.recoverToken || null,
        bump: input.bump === true,
        noReminder: input.noReminder === true,
      });
      return c.json({
        clientSecret: result.clientSecret,
        amount: result.amountCents / 100,
        ...(result.discount
          ? { discount: { code: result.discount.code, amountOff: result.discount.amountOffCents / 100 } }
          : {}),
        ...(result.bump ? { bump: { title: result.bump.title, amount: result.bump.amountCents / 100 } } : {}),
        ...(result.recovered
          ? {
              buyerEmail: result.recovered.buyerEmail,
              ...(result.recovered.notice ? { notice: result.recovered.notice } : {}),
            }
          : {}),
      });
    },
  )
  // The address the buyer typed at checkout, before paying, and their "Don't send me a reminder" box:
  // kept on their pending checkout, with its one reminder an hour later should they leave
  // (worker/services/recovery.ts). Only the browser that started the checkout may set them; a
  // reminder's checkout keeps the address it was sent to.
  .post(
    "/checkout/email",
    doc({
      tag: "Checkout and access",
      summary: "Keep the email typed at checkout",
      description:
        "Schedules the one reminder an hour later should the buyer leave without paying, unless `noReminder` is true.",
      access: "buyer",
      ok: checkoutEmailSavedSchema,
      errors: {
        400: "Not an email, or another address for a reminder's checkout",
        404: "No open checkout of this browser",
        429: "Too many requests from this address",
      },
    }),
    rateLimit("FORMS_LIMITER", "checkout-email"),
    validate("json", checkoutEmailSchema),
    async (c) => {
      const body = c.req.valid("json");
      const deps = purchaseDeps(c);
      const key = buyerKey(c, false);
      const found = key
        ? await claimedPurchase(deps, { buyerKey: key }, { paymentIntentId: body.paymentIntent })
        : null;
      if (found?.status !== "pending") throw notFound("No open checkout");
      const email = body.email?.toLowerCase();
      if (email && found.recoveredFrom && found.buyerEmail && email !== found.buyerEmail.toLowerCase())
        throw new ApiError(400, `email: ${RECOVER_LINK_OTHER_EMAIL}`);
      const update = c.env.DB.prepare(
        "update purchases set buyer_email = coalesce(?, buyer_email), no_reminder = coalesce(?, no_reminder) where id = ? and status = 'pending'",
      ).bind(email ?? null, body.noReminder === undefined ? null : body.noReminder ? 1 : 0, found.id);
      const now = Date.now();
      const to = email ?? found.buyerEmail;
      const remind = to
        ? await reminder(
            c.env.DB,
            { purchaseId: found.id, contentId: found.contentId, email: to },
            now,
            deps.reminderDelayMs,
          )
        : null;
      await c.env.DB.batch([update, ...(remind ? [remind.statement] : [])]);
      if (remind) await dispatch(c.env.DB, c.env.EMAILS, [remind.id], now);
      return c.json({ saved: true as const });
    },
  )
  .post(
    "/payments/:paymentIntent/complete",
    doc({
      tag: "Checkout and access",
      summary: "After Stripe.js confirmed: read the payment from Stripe",
      access: "buyer",
      ok: purchaseProgressSchema,
      errors: { 404: "Purchase Not Found" },
    }),
    validate("param", piParam),
    async (c) => {
      const deps = purchaseDeps(c);
      const found = await claimedPurchase(deps, claimOf(c), { paymentIntentId: c.req.valid("param").paymentIntent });
      if (!found) throw notFound("Purchase Not Found");
      const purchase = await syncWithStripe(deps, found, { bestEffort: true });
      return c.json({ status: purchase.status, unlocked: purchase.status === "paid" });
    },
  )
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
        // A payment on its way (./services/payment-processing.ts) is told apart from a checkout left open.
        const processing =
          purchase.status === "pending" &&
          (!!purchase.processingSince ||
            (!!claim.buyerKey && (await processingFor(c.env.DB, claim.buyerKey, purchase.contentId))));
        return c.json({ owned: false, status: processing ? "processing" : purchase.status } satisfies ContentAccess);
      }
      return c.json({ owned: true, verification: await verification(deps, purchase) } satisfies ContentAccess);
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
      return c.json(await verification(deps, purchase));
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
  )
  // A short-lived URL signed for the caller's purchase: navigating to it streams the file to disk.
  .post(
    "/content/:id/download",
    doc({
      tag: "Checkout and access",
      summary: "A short-lived download URL for the purchased file",
      access: "buyer",
      ok: downloadLinkSchema,
      errors: {
        403: "Access to this purchase was revoked after a refund or dispute",
        404: "No purchase, or the item has no file",
        409: "Payment is still processing",
      },
    }),
    validate("param", idParam),
    async (c) => {
      const deps = purchaseDeps(c);
      const { access } = await optionalJson(c, downloadBodySchema);
      const purchase = await currentPurchaseOfContent(deps, claimOf(c, access), c.req.valid("param").id);
      assertPaid(purchase);
      const item = await c.var.db
        .select({ fileKey: content.fileKey })
        .from(content)
        .where(eq(content.id, purchase.contentId))
        .get();
      if (!item?.fileKey) throw notFound("This item has no file to download");
      return c.json((await signedDownloadPath(deps.accessSecret, purchase.id)) satisfies DownloadLink);
    },
  )
  .on(
    ["GET", "HEAD"],
    "/purchases/:id/download",
    doc({
      tag: "Checkout and access",
      summary: "Download the purchased file (a signed URL)",
      access: "public",
      ok: { file: "The file, as an attachment; Range requests are answered 206" },
      also: {
        206: { description: "Part of the file (a Range request)", answer: { file: "The requested range" } },
        304: { description: "Not modified (If-None-Match)", answer: { empty: "Not modified" } },
      },
      errors: {
        416: "The requested range is outside the file",
        403: "The link has expired or is not valid, or access was revoked after a refund or dispute",
        404: "No such file",
        409: "Payment is still processing",
      },
    }),
    validate("param", idParam),
    async (c) => {
      const id = c.req.valid("param").id;
      const secret = c.env.ACCESS_TOKEN_SECRET;
      if (!secret || !(await downloadSignatureValid(secret, id, c.req.query("expires"), c.req.query("sig")))) {
        throw new ApiError(
          403,
          "This download link has expired or is not valid. Open your access link to download again.",
        );
      }
      const purchase = await c.var.db.select().from(purchases).where(eq(purchases.id, id)).get();
      assertPaid(purchase ?? null);
      const item = await c.var.db.select().from(content).where(eq(content.id, purchase!.contentId)).get();
      if (!item?.fileKey) throw notFound("This item has no file");
      return serveFile(
        c.env.FILES,
        item.fileKey,
        { name: item.fileName ?? "download", type: item.fileContentType },
        c.req.raw,
        "attachment",
      );
    },
  )
  .on(
    ["GET", "HEAD"],
    "/purchases/:id/file",
    doc({
      tag: "Checkout and access",
      summary: "Open the purchased file with an access link",
      access: "buyer",
      ok: { file: "The file, inline (download=1: as an attachment)" },
      also: {
        206: { description: "Part of the file (a Range request)", answer: { file: "The requested range" } },
        304: { description: "Not modified (If-None-Match)", answer: { empty: "Not modified" } },
      },
      errors: {
        416: "The requested range is outside the file",
        403: "This link does not grant access to the file, or access was revoked after a refund or dispute",
        404: "No such file",
        409: "Payment is still processing",
      },
    }),
    validate("param", idParam),
    async (c) => {
      const secret = c.env.ACCESS_TOKEN_SECRET;
      const purchaseId = secret ? await purchaseIdFromToken(secret, c.req.query("access")) : null;
      if (!purchaseId || purchaseId !== c.req.valid("param").id)
        throw new ApiError(403, "This link does not grant access to the file");
      const purchase = await c.var.db.select().from(purchases).where(eq(purchases.id, purchaseId)).get();
      assertPaid(purchase ?? null);
      const item = await c.var.db.select().from(content).where(eq(content.id, purchase!.contentId)).get();
      if (!item?.fileKey) throw notFound("This item has no file");
      const disposition = c.req.query("download") === "1" ? "attachment" : "inline";
      return serveFile(
        c.env.FILES,
        item.fileKey,
        { name: item.fileName ?? "file", type: item.fileContentType },
        c.req.raw,
        disposition,
      );
    },
  );
