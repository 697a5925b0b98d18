// The Stripe contract for creator money: Connect accounts, billing on a test clock, transfers to a
// connected account (with reversals and the balance they draw on), and the stand-in's transfer controls.
// Scenarios `describe.each(targets)` run against the local stand-in and, when STRIPE_TEST_SECRET_KEY is
// set, against real Stripe test mode (support.ts); the others play what only the stand-in can.
import Stripe from "stripe";
import { describe, expect, inject, it } from "vitest";
import { createStandin } from "../../../dev/stripe-standin/server.mjs";
import { standinClient, standinConnectedAccount, targets, transferTargets } from "./support";

describe.each(targets)("creator money against %s", (_name, client, enabled) => {
  it.runIf(enabled)(
    "Connect: Express account, onboarding link, status, login link refused before onboarding, transfer refused without capability, balance",
    async () => {
      const stripe = client();
      const email = `connect-${Date.now()}@example.com`;
      const key = `contract-acct-${Date.now()}`;
      const account = await stripe.accounts.create(
        { type: "express", email, capabilities: { transfers: { requested: true } }, metadata: { userId: "u1" } },
        { idempotencyKey: key },
      );
      expect(account).toMatchObject({
        object: "account",
        type: "express",
        email,
        details_submitted: false,
        payouts_enabled: false,
        metadata: { userId: "u1" },
      });
      expect(
        (
          await stripe.accounts.create(
            { type: "express", email, capabilities: { transfers: { requested: true } }, metadata: { userId: "u1" } },
            { idempotencyKey: key },
          )
        ).id,
      ).toBe(account.id);
      const link = await stripe.accountLinks.create({
        account: account.id,
        refresh_url: "https://example.com/connect?refresh=true",
        return_url: "https://example.com/connect?connected=true",
        type: "account_onboarding",
      });
      expect(link).toMatchObject({ object: "account_link" });
      expect(link.url).toMatch(/^https?:\/\//);
      expect(link.expires_at).toBeGreaterThan(link.created);
      expect(await stripe.accounts.retrieve(account.id)).toMatchObject({ id: account.id, details_submitted: false });
      await expect(stripe.accounts.createLoginLink(account.id)).rejects.toMatchObject({
        type: "StripeInvalidRequestError",
      });
      await expect(
        stripe.transfers.create(
          { amount: 100, currency: "usd", destination: account.id },
          { idempotencyKey: `${key}-tr` },
        ),
      ).rejects.toMatchObject({ type: "StripeInvalidRequestError" });
      const balance = await stripe.balance.retrieve();
      expect(balance.object).toBe("balance");
      expect(balance.available[0]).toMatchObject({ currency: "usd" });
    },
  );

  it.runIf(enabled)(
    "Billing: recurring price, default_incomplete subscription with the invoice's confirmation secret, pay it, renew on a test clock, cancel at period end",
    async () => {
      const stripe = client();
      const start = Math.floor(Date.now() / 1000);
      const clock = await stripe.testHelpers.testClocks.create({ frozen_time: start });
      expect(clock).toMatchObject({ object: "test_helpers.test_clock", status: "ready", frozen_time: start });
      const customer = await stripe.customers.create({ email: `pro-${Date.now()}@example.com`, test_clock: clock.id });
      const price = await stripe.prices.create({
        currency: "usd",
        unit_amount: 9900,
        recurring: { interval: "month" },
        product_data: { name: "Contract Pro" },
      });
      const sub = await stripe.subscriptions.create(
        {
          customer: customer.id,
          items: [{ price: price.id }],
          payment_behavior: "default_incomplete",
          payment_settings: { save_default_payment_method: "on_subscription" },
          expand: ["latest_invoice.confirmation_secret"],
          metadata: { userId: "u1" },
        },
        { idempotencyKey: `contract-sub-${Date.now()}` },
      );
      expect(sub).toMatchObject({ object: "subscription", status: "incomplete", cancel_at_period_end: false });
      const invoice = sub.latest_invoice as Stripe.Invoice;
      expect(invoice).toMatchObject({
        object: "invoice",
        status: "open",
        amount_due: 9900,
        billing_reason: "subscription_create",
      });
      expect(invoice.parent?.subscription_details?.subscription).toBe(sub.id);
      expect(invoice.confirmation_secret).toMatchObject({ type: "payment_intent" });
      const intentId = invoice.confirmation_secret!.client_secret.split("_secret_")[0];
      await stripe.paymentIntents.confirm(intentId, { payment_method: "pm_card_visa" });
      const active = await stripe.subscriptions.retrieve(sub.id);
      expect(active.status).toBe("active");
      const periodEnd = active.items.data[0].current_period_end;
      expect(periodEnd).toBeGreaterThan(start + 27 * 86400);
      expect((await stripe.invoices.retrieve(invoice.id)).status).toBe("paid");

      // Test clocks advance in the background: the advance answers `advancing`, then the clock is `ready`.
      expect((await stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: periodEnd + 3600 })).status).toBe(
        "advancing",
      );
      for (let i = 0; i < 60 && (await stripe.testHelpers.testClocks.retrieve(clock.id)).status !== "ready"; i++)
        await new Promise((r) => setTimeout(r, 2000));
      expect(await stripe.testHelpers.testClocks.retrieve(clock.id)).toMatchObject({
        status: "ready",
        frozen_time: periodEnd + 3600,
      });
      const renewed = await stripe.subscriptions.retrieve(sub.id);
      expect(renewed.items.data[0].current_period_end).toBeGreaterThan(periodEnd);
      const invoices = await stripe.invoices.list({ subscription: sub.id, limit: 10 });
      expect(invoices.data.some((i) => i.billing_reason === "subscription_cycle")).toBe(true);

      const canceling = await stripe.subscriptions.update(sub.id, { cancel_at_period_end: true });
      expect(canceling).toMatchObject({ cancel_at_period_end: true, status: "active" });
    },
  );
});

describe("the stand-in's transfers (for the payout run)", () => {
  it("pays a connected account from the platform balance, reverses it, refuses more than the balance", async () => {
    const stripe = standinClient();
    const base = inject("stripeUrl");
    const account = await stripe.accounts.create({ type: "express", capabilities: { transfers: { requested: true } } });
    await fetch(`${base}/_standin/accounts/${account.id}/onboard`, {
      method: "POST",
      headers: { authorization: "Bearer sk_test_e2e" },
    });
    expect(await stripe.accounts.retrieve(account.id)).toMatchObject({
      details_submitted: true,
      payouts_enabled: true,
      capabilities: { transfers: "active" },
    });
    // Card payments wait in the pending balance; the 0077 card (pm_card_bypassPending) adds to the available one.
    const start = await stripe.balance.retrieve();
    const pending = await stripe.paymentIntents.create({
      amount: 5000,
      currency: "usd",
      payment_method: "pm_card_visa",
      confirm: true,
    });
    expect(pending.status).toBe("succeeded");
    const afterCard = await stripe.balance.retrieve();
    // A charge adds its net to the balance: the amount less Stripe's processing fee.
    const netOf = async (pi: Stripe.PaymentIntent) =>
      (
        (await stripe.charges.retrieve(pi.latest_charge as string, { expand: ["balance_transaction"] }))
          .balance_transaction as Stripe.BalanceTransaction
      ).net;
    const pendingNet = await netOf(pending);
    expect(pendingNet).toBeLessThan(5000);
    expect(afterCard.available[0].amount).toBe(start.available[0].amount);
    expect(afterCard.pending[0].amount).toBe(start.pending[0].amount + pendingNet);
    const intent = await stripe.paymentIntents.create({
      amount: 5000,
      currency: "usd",
      payment_method: "pm_card_bypassPending",
      confirm: true,
    });
    expect(intent.status).toBe("succeeded");
    const before = (await stripe.balance.retrieve()).available[0].amount;
    expect(before).toBe(start.available[0].amount + (await netOf(intent)));
    if (before < 3000)
      await fetch(`${base}/_standin/balance/top_up`, {
        method: "POST",
        headers: { authorization: "Bearer sk_test_e2e", "content-type": "application/x-www-form-urlencoded" },
        body: "amount=100000",
      });
    const funded = (await stripe.balance.retrieve()).available[0].amount;

    const key = `payout-${Date.now()}`;
    const transfer = await stripe.transfers.create(
      {
        amount: 3000,
        currency: "usd",
        destination: account.id,
        transfer_group: "payout_2026_12",
        metadata: { payoutId: "po1" },
      },
      { idempotencyKey: key },
    );
    expect(transfer).toMatchObject({
      object: "transfer",
      amount: 3000,
      amount_reversed: 0,
      destination: account.id,
      reversed: false,
      transfer_group: "payout_2026_12",
      metadata: { payoutId: "po1" },
    });
    expect(
      (
        await stripe.transfers.create(
          {
            amount: 3000,
            currency: "usd",
            destination: account.id,
            transfer_group: "payout_2026_12",
            metadata: { payoutId: "po1" },
          },
          { idempotencyKey: key },
        )
      ).id,
    ).toBe(transfer.id);
    expect((await stripe.balance.retrieve()).available[0].amount).toBe(funded - 3000);
    const events = await stripe.events.list({ type: "transfer.created", limit: 5 });
    expect(events.data.map((e) => (e.data.object as Stripe.Transfer).id)).toContain(transfer.id);

    const reversal = await stripe.transfers.createReversal(transfer.id, { amount: 1000 });
    expect(reversal).toMatchObject({ object: "transfer_reversal", amount: 1000, transfer: transfer.id });
    expect(await stripe.transfers.retrieve(transfer.id)).toMatchObject({ amount_reversed: 1000, reversed: false });
    const reversedEvents = await stripe.events.list({ type: "transfer.reversed", limit: 5 });
    expect(reversedEvents.data.map((e) => (e.data.object as Stripe.Transfer).id)).toContain(transfer.id);

    await expect(
      stripe.transfers.create({ amount: 100_000_000, currency: "usd", destination: account.id }),
    ).rejects.toMatchObject({ type: "StripeInvalidRequestError", code: "balance_insufficient" });
    await fetch(`${base}/_standin/accounts/${account.id}/restrict`, {
      method: "POST",
      headers: { authorization: "Bearer sk_test_e2e" },
    });
    await expect(
      stripe.transfers.create({ amount: 100, currency: "usd", destination: account.id }),
    ).rejects.toMatchObject({ code: "insufficient_capabilities_for_transfer" });
  });
});

describe.each(transferTargets)("payout transfers against %s", (_name, client, connectedAccount, enabled) => {
  it.runIf(enabled)(
    "transfer with idempotency and transfer_group, list by group, reversal, unknown destination",
    async () => {
      const stripe = client();
      const destination = connectedAccount || (await standinConnectedAccount(stripe, inject("stripeUrl")));
      const group = `payouts-contract-${Date.now()}`;
      const params: Stripe.TransferCreateParams = {
        amount: 2500,
        currency: "usd",
        destination,
        transfer_group: group,
        metadata: { payout_id: "po_contract" },
      };
      const key = `po_contract_${Date.now()}`;
      const transfer = await stripe.transfers.create(params, { idempotencyKey: key });
      expect(transfer).toMatchObject({
        object: "transfer",
        amount: 2500,
        amount_reversed: 0,
        currency: "usd",
        destination,
        transfer_group: group,
        reversed: false,
        metadata: { payout_id: "po_contract" },
      });
      expect(transfer.reversals).toMatchObject({ object: "list", data: [] });
      expect((await stripe.transfers.create(params, { idempotencyKey: key })).id).toBe(transfer.id);
      await expect(stripe.transfers.create({ ...params, amount: 2600 }, { idempotencyKey: key })).rejects.toMatchObject(
        { type: "StripeIdempotencyError" },
      );

      const listed = await stripe.transfers.list({ destination, transfer_group: group, limit: 10 });
      expect(listed.data.map((t) => t.id)).toEqual([transfer.id]);

      const reversal = await stripe.transfers.createReversal(transfer.id);
      expect(reversal).toMatchObject({ object: "transfer_reversal", amount: 2500, transfer: transfer.id });
      expect(await stripe.transfers.retrieve(transfer.id)).toMatchObject({ reversed: true, amount_reversed: 2500 });

      await expect(
        stripe.transfers.create({ amount: 100, currency: "usd", destination: "nope_not_an_account" }),
      ).rejects.toMatchObject({ type: "StripeInvalidRequestError", param: "destination" });
    },
  );
});

describe("the stand-in's transfer controls", () => {
  it("fail the next transfer to an account with Stripe's error, then transfers work again", async () => {
    const standin = createStandin();
    const url = new URL(await standin.listen(0));
    const stripe = new Stripe("sk_test_transfers", {
      host: url.hostname,
      port: url.port,
      protocol: "http",
      maxNetworkRetries: 0,
    });
    const broke = await standinConnectedAccount(stripe, url.origin);
    const control = await fetch(`${url.origin}/_standin/transfers/fail_next`, {
      method: "POST",
      headers: { authorization: "Bearer sk_test_transfers", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ destination: broke, code: "balance_insufficient" }),
    });
    expect(control.status).toBe(200);
    await expect(stripe.transfers.create({ amount: 100, currency: "usd", destination: broke })).rejects.toMatchObject({
      type: "StripeInvalidRequestError",
      code: "balance_insufficient",
      statusCode: 400,
    });
    expect(await stripe.transfers.create({ amount: 100, currency: "usd", destination: broke })).toMatchObject({
      object: "transfer",
      amount: 100,
    });
    const events = await stripe.events.list({ type: "transfer.created" });
    expect(events.data).toHaveLength(1);
    await standin.close();
  });
});
