// Starting a checkout and following it: Stripe.js settings, the PaymentIntent (or this browser's
// access when it already owns the item), the email typed before paying, and reading the payment
// back after Stripe.js confirmed it. Behaviour: docs/payments.md, docs/checkout-and-codes.md.
import { Hono } from "hono";
import { z } from "zod";
import {
  checkoutEmailSchema,
  createPaymentIntentSchema,
  type AlreadyOwned,
  type PaymentsConfig,
  checkoutStartedSchema,
  paymentsConfigSchema,
  purchaseProgressSchema,
  checkoutEmailSavedSchema,
  checkoutAnswerSchema,
  checkoutTermsSchema,
  checkoutTermsAnswerSchema,
  type CheckoutTermsAnswer,
} from "../../shared/payments";
import { DECLINE_LIMIT_MESSAGES } from "../../shared/card-testing";
import { checkoutStarts } from "../db/schema";
import type { AppEnv } from "../middleware/context";
import { ApiError, notFound } from "../lib/errors";
import { humanCheck } from "../lib/human-check";
import { clientKey, rateLimit } from "../lib/rate-limit";
import { validate } from "../lib/validate";
import { dispatch } from "../services/mail/email-outbox";
import { refuseWhileProcessing } from "../services/purchases/processing";
import { accessUrlFor } from "../services/purchases/access-tokens";
import { claimedPurchase, currentPurchaseOfContent } from "../services/purchases/buyer-access";
import { clientHashOf, declineLimitReached } from "../services/purchases/card-testing";
import { startCheckout } from "../services/purchases/checkout";
import { changeCheckoutTerms } from "../services/purchases/checkout-terms";
import { syncWithStripe } from "../services/purchases/fulfil";
import { RECOVER_LINK_OTHER_EMAIL, reminder } from "../services/purchases/recovery";
import { doc } from "../openapi/describe";
import { buyerKey, claimOf, edgeOf, purchaseDeps } from "./purchase-context";

const piParam = z.object({ paymentIntent: z.string().regex(/^pi_[A-Za-z0-9]{1,64}$/, "invalid payment intent") });

export const checkoutRoutes = new Hono<AppEnv>()
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
        "Sets the buyer cookie. The amount is the server's: the item's price, or the buyer's amount for pay-what-you-want (at least its minimum), with sales tax or VAT as Stripe Tax computes it for where the edge places the buyer (`tax`; the card's billing address decides at confirm). `vatId`: a business buyer's EU or UK VAT number (reverse charge).",
      access: "public",
      ok: checkoutStartedSchema,
      also: {
        200: {
          description: "A checkout to pay with Stripe.js; or, when this browser already owns the item, its access link",
          answer: checkoutAnswerSchema,
        },
      },
      errors: {
        400: "The body is not valid (a VAT number of the wrong format: `vatId: …`), the discount code does not apply (`discountCode: …`), or a reminder's link is not valid or names another address (`recoverToken: …`, `buyerEmail: …`)",
        403: "The bot check refused the Turnstile token (`cf-turnstile-response`)",
        404: "No such item",
        409: "The item is not on sale, the discount code is used up or held by this browser's other checkouts, the order bump is no longer available or already owned, the reminder's checkout is already paid, or this browser's payment for the item is still processing",
        429: "Too many checkouts from this address, or too many declined payments for this email or address in the last hour",
        502: "Stripe could not be reached",
      },
    }),
    rateLimit("CHECKOUT_LIMITER", "checkout"),
    validate("json", createPaymentIntentSchema),
    humanCheck("checkout"),
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
      // Card testing: an email or address over its decline limit gets no checkout to test cards on.
      const clientHash = await clientHashOf(deps.accessSecret, clientKey(c));
      const email = input.buyerEmail?.toLowerCase() || null;
      const limit = await declineLimitReached(c.env.DB, { fingerprint: null, email, clientHash });
      if (limit) throw new ApiError(429, DECLINE_LIMIT_MESSAGES[limit]);
      const result = await startCheckout(deps, {
        contentId: input.contentId,
        customAmount: input.customAmount,
        buyerEmail: input.buyerEmail || null,
        buyerKey: buyerKey(c, true)!,
        discountCode: input.discountCode || null,
        recoverToken: input.recoverToken || null,
        bump: input.bump === true,
        noReminder: input.noReminder === true,
        edge: edgeOf(c),
        vatId: input.vatId ?? null,
      });
      // Who started it, so a decline made straight at Stripe with the client secret counts for them.
      const paymentIntentId = result.clientSecret.split("_secret_")[0];
      await deps.db
        .insert(checkoutStarts)
        .values({ paymentIntentId, clientHash, createdAt: new Date() })
        .onConflictDoUpdate({ target: checkoutStarts.paymentIntentId, set: { clientHash } })
        .catch((err) => console.error("could not record a checkout's start", paymentIntentId, err));
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
        tax: result.tax,
      });
    },
  )
  // The address the buyer typed at checkout, before paying, and their "Don't send me a reminder" box:
  // kept on their pending checkout, with its one reminder an hour later should they leave
  // (worker/services/purchases/recovery.ts). Only the browser that started the checkout may set them; a
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
  // The code applied or removed, the order bump ticked or not: the same PaymentIntent at the
  // server's new price, so the card typed into the Payment Element stays.
  .post(
    "/checkout/terms",
    doc({
      tag: "Checkout and access",
      summary: "Change an open checkout's code or order bump",
      description:
        "Only the browser that started the checkout. The server prices the terms (item, code, add-on, VAT number), computes their tax again (`tax`) and sets the PaymentIntent's amount to match; sending the same terms again changes nothing.",
      access: "buyer",
      ok: checkoutTermsAnswerSchema,
      errors: {
        400: "The body is not valid (a VAT number of the wrong format: `vatId: …`), or the discount code does not apply (`discountCode: …`)",
        404: "No open checkout of this browser",
        409: "The payment is already under way, the code is used up or held elsewhere, the add-on can no longer be sold or is owned, or the checkout changed at the same time elsewhere",
        429: "Too many checkouts from this address",
        502: "Stripe could not be reached, or Stripe Tax could not calculate the tax",
      },
    }),
    rateLimit("CHECKOUT_LIMITER", "checkout"),
    validate("json", checkoutTermsSchema),
    async (c) => {
      const body = c.req.valid("json");
      const key = buyerKey(c, false);
      if (!key) throw notFound("No open checkout");
      const terms = await changeCheckoutTerms(purchaseDeps(c), {
        paymentIntentId: body.paymentIntent,
        buyerKey: key,
        discountCode: body.discountCode || null,
        bump: body.bump,
        vatId: body.vatId,
        edge: edgeOf(c),
      });
      return c.json({
        amount: terms.amountCents / 100,
        ...(terms.discount
          ? { discount: { code: terms.discount.code, amountOff: terms.discount.amountOffCents / 100 } }
          : {}),
        ...(terms.bump ? { bump: { title: terms.bump.title, amount: terms.bump.amountCents / 100 } } : {}),
        tax: terms.tax,
      } satisfies CheckoutTermsAnswer);
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
  );
