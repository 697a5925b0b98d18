// The receipt carries the purchase's permanent access link: it goes out exactly when the buyer keeps
// access (whatever order Stripe's events arrive in), only to the address the buyer gave for this
// purchase, and once sent the outbox no longer holds the link.
import { describe, expect, it, vi } from "vitest";
import type Stripe from "stripe";
import { createDb } from "../../db/client";
import type { PurchaseDeps } from "../../services/purchases/deps";
import { fulfil } from "../../services/purchases/fulfil";
import {
  checkout,
  contentForm,
  deliver,
  env,
  eventFor,
  outbox,
  postForm,
  row,
  signIn,
  standin,
  waitForMail,
} from "../support/helpers";

async function creatorWithItem(email: string) {
  const cookie = await signIn(email);
  const res = await postForm(
    "/api/content",
    contentForm({ title: "Guide", price: "10", accessType: "link", linkUrl: "https://example.com/guide" }),
    cookie,
  );
  if (res.status !== 201) throw new Error(await res.text());
  return (await res.json<{ id: string }>()).id;
}

const purchaseOf = (pi: string) =>
  row<{ id: string; status: string; buyer_email: string | null }>(
    "select id, status, buyer_email from purchases where payment_intent_id = ?",
    pi,
  );
const receiptRow = (purchaseId: string) =>
  row<{ job: string; sent_at: number | null }>(
    "select job, sent_at from outbox_emails where id = ?",
    `purchase-access:${purchaseId}`,
  );

describe("the receipt, whatever the order of Stripe's events", () => {
  it("a partial refund handled before payment_intent.succeeded: the buyer keeps access and still gets the access link by email", async () => {
    const itemId = await creatorWithItem("early-partial@example.com");
    const { paymentIntent } = await checkout(itemId, { email: "early-partial-buyer@example.com" });
    expect((await standin("POST", "/v1/refunds", { payment_intent: paymentIntent, amount: "300" })).status).toBe(200);
    expect((await deliver(await eventFor("charge.refunded", paymentIntent))).status).toBe(200);
    expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
    const purchase = (await purchaseOf(paymentIntent))!;
    expect(purchase.status).toBe("paid");
    const mail = await waitForMail("early-partial-buyer@example.com");
    expect(mail.subject).toBe("Your access to Guide");
    expect(mail.links.some((l) => l.includes("access="))).toBe(true);
  });

  it("a full refund handled before payment_intent.succeeded: no access email", async () => {
    const itemId = await creatorWithItem("early-full@example.com");
    const { paymentIntent } = await checkout(itemId, { email: "early-full-buyer@example.com" });
    expect((await standin("POST", "/v1/refunds", { payment_intent: paymentIntent })).status).toBe(200);
    expect((await deliver(await eventFor("charge.refunded", paymentIntent))).status).toBe(200);
    expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
    const purchase = (await purchaseOf(paymentIntent))!;
    expect(purchase.status).toBe("refunded");
    expect(await receiptRow(purchase.id)).toBeNull();
  });
});

describe("the receipt goes only to the buyer's own address", () => {
  it("a PaymentIntent without receipt_email whose browser Customer carries another buyer's email: no receipt to that address", async () => {
    await env.DB.batch([
      env.DB.prepare("insert or ignore into users (id, email) values ('rcp_creator', 'rcp@example.com')"),
      env.DB.prepare(
        "insert or ignore into content (id, user_id, title, price_cents) values ('rcp_item', 'rcp_creator', 'Shared', 1000)",
      ),
      env.DB.prepare(
        "insert into purchases (id, content_id, creator_id, amount_cents, status, payment_intent_id, stripe_customer_id) values ('rcp1', 'rcp_item', 'rcp_creator', 1000, 'pending', 'pi_rcp1', 'cus_shared')",
      ),
    ]);
    // A Customer made before browser Customers carried no email: it holds the first buyer's address.
    const stripe = {
      customers: { retrieve: async (id: string) => ({ id, object: "customer", email: "first-buyer@example.com" }) },
    } as unknown as Stripe;
    const deps: PurchaseDeps = {
      db: createDb(env.DB),
      d1: env.DB,
      stripe,
      emails: env.EMAILS,
      appUrl: "http://127.0.0.1:8787",
      accessSecret: "worker-test-access-secret",
    };
    const intent = {
      id: "pi_rcp1",
      object: "payment_intent",
      status: "succeeded",
      amount: 1000,
      amount_received: 1000,
      currency: "usd",
      created: Math.floor(Date.now() / 1000),
      customer: "cus_shared",
      receipt_email: null,
      metadata: { purchaseId: "rcp1" },
    } as unknown as Stripe.PaymentIntent;
    expect(await fulfil(deps, intent)).toBe("fulfilled");
    expect((await row<{ status: string }>("select status from purchases where id = 'rcp1'"))?.status).toBe("paid");
    expect(await row("select id from outbox_emails where job like '%first-buyer@example.com%'")).toBeNull();
    expect(
      (await row<{ buyer_email: string | null }>("select buyer_email from purchases where id = 'rcp1'"))?.buyer_email,
    ).toBeNull();
  });
});

describe("a sent receipt leaves no access link behind", () => {
  it("after delivery the outbox row keeps who and what, but no access token", async () => {
    const itemId = await creatorWithItem("redacted@example.com");
    const { paymentIntent } = await checkout(itemId, { email: "redacted-buyer@example.com" });
    expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
    const mail = await waitForMail("redacted-buyer@example.com");
    expect(mail.links.some((l) => l.includes("access="))).toBe(true);
    const purchase = (await purchaseOf(paymentIntent))!;
    const sent = await vi.waitUntil(
      async () => {
        const r = await receiptRow(purchase.id);
        return r?.sent_at ? r : undefined;
      },
      { timeout: 10_000, interval: 100 },
    );
    expect(sent.job).not.toContain("access=");
    expect(JSON.parse(sent.job)).toMatchObject({
      dedupeKey: `purchase-access:${purchase.id}`,
      to: "redacted-buyer@example.com",
      template: "purchase-access",
    });
    expect((await outbox()).filter((m) => m.to === "redacted-buyer@example.com")).toHaveLength(1);
  });
});
