// The Stripe contract for ConfirmationTokens ("finalize payments on the server", as checkout pays):
// a token read by the server before it confirms, its card's fingerprint the same as the PaymentMethod
// confirm makes from it (and a decline's), used once, and the object's required properties.
// Scenarios run against the local stand-in and, when STRIPE_TEST_SECRET_KEY is set, real Stripe test mode.
import type Stripe from "stripe";
import { describe, expect, it } from "vitest";
import required from "../../../dev/stripe-standin/required-properties.json" with { type: "json" };
import { missingRequired } from "../../../dev/stripe-standin/schema-check.mjs";
import { targets } from "./support";

describe.each(targets)("ConfirmationTokens against %s", (_name, client, enabled) => {
  it.runIf(enabled)(
    "read before confirming, then used once: the card's fingerprint, a decline's, and the token spent",
    async () => {
      const stripe = client();
      const base = { amount: 1500, currency: "usd", allowed_payment_method_types: ["card"] };

      const token = await stripe.testHelpers.confirmationTokens.create({ payment_method: "pm_card_visa" });
      const read = await stripe.confirmationTokens.retrieve(token.id);
      expect(read).toMatchObject({
        object: "confirmation_token",
        payment_intent: null,
        setup_intent: null,
        payment_method_preview: { type: "card", card: { brand: "visa", last4: "4242" } },
      });
      expect(read.id).toMatch(/^ctoken_/);
      expect(read.expires_at).toBeGreaterThan(read.created);
      expect(missingRequired(read, required)).toEqual([]);
      const fingerprint = read.payment_method_preview!.card!.fingerprint;
      expect(fingerprint).toBeTruthy();

      const intent = await stripe.paymentIntents.create(base);
      const paid = await stripe.paymentIntents.confirm(intent.id, {
        confirmation_token: token.id,
        return_url: "https://example.com/success",
      });
      expect(paid.status).toBe("succeeded");
      const pm = await stripe.paymentMethods.retrieve(paid.payment_method as string);
      expect(pm.card?.fingerprint).toBe(fingerprint);
      expect((await stripe.confirmationTokens.retrieve(token.id)).payment_intent).toBe(intent.id);

      // Used: another intent cannot be confirmed with it.
      const other = await stripe.paymentIntents.create(base);
      await expect(stripe.paymentIntents.confirm(other.id, { confirmation_token: token.id })).rejects.toMatchObject({
        type: "StripeInvalidRequestError",
        statusCode: 400,
      });

      // A declining card: 402, and the intent's last_payment_error names the card by the same fingerprint.
      const declining = await stripe.testHelpers.confirmationTokens.create({
        payment_method: "pm_card_chargeDeclined",
      });
      const declinedFingerprint = (await stripe.confirmationTokens.retrieve(declining.id)).payment_method_preview!.card!
        .fingerprint;
      const error = (await stripe.paymentIntents
        .confirm(other.id, { confirmation_token: declining.id })
        .catch((e) => e)) as Stripe.errors.StripeCardError;
      expect(error).toMatchObject({ type: "StripeCardError", code: "card_declined", statusCode: 402 });
      expect(error.payment_intent?.status).toBe("requires_payment_method");
      expect(error.payment_intent?.last_payment_error?.charge).toMatch(/^ch_/);
      expect(error.payment_intent?.last_payment_error?.payment_method?.card?.fingerprint).toBe(declinedFingerprint);
    },
  );
});
