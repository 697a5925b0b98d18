// A refunded buyer's old access link: verify still refuses (403), and GET /api/purchase/revoked says
// why and since when, with the item's title and the order number only (docs/payments.md,
// "Access: what a buyer keeps").
import { describe, expect, it } from "vitest";
import { call, checkout, deliver, eventFor, standin } from "../support/helpers";
import { creatorWithItem, purchaseOf } from "./payment-fixtures";

async function paidWithLink(email: string) {
  const { item } = await creatorWithItem(email);
  const { paymentIntent, buyerCookie } = await checkout(item.id, { email: "reader@example.com" });
  const verified = await call(`/api/purchase/verify?payment_intent=${paymentIntent}`, { cookie: buyerCookie });
  expect(verified.status).toBe(200);
  const body = await verified.json<{ accessUrl: string; purchase: Record<string, unknown> }>();
  return { item, paymentIntent, buyerCookie, link: new URL(body.accessUrl).searchParams, purchase: body.purchase };
}

describe("a revoked purchase's link", () => {
  it("a paid purchase's answer names where the receipt went, masked, never the address", async () => {
    const { purchase } = await paidWithLink("masked@example.com");
    expect(purchase.emailedTo).toBe("r…@example.com");
    expect(JSON.stringify(purchase)).not.toContain("reader@");
  });

  it("still opens: no revoked answer", async () => {
    const { link } = await paidWithLink("still-paid@example.com");
    expect((await call(`/api/purchase/revoked?${link}`)).status).toBe(404);
  });

  it("after a full refund says refunded and when, to the link and the paying browser, and nothing more", async () => {
    const { paymentIntent, buyerCookie, link, item } = await paidWithLink("revoked@example.com");
    await standin("POST", "/v1/refunds", { payment_intent: paymentIntent });
    const before = Date.now();
    expect((await deliver(await eventFor("charge.refunded", paymentIntent))).status).toBe(200);
    const purchase = await purchaseOf(paymentIntent);
    expect(purchase?.status).toBe("refunded");

    expect((await call(`/api/purchase/verify?${link}`)).status).toBe(403);
    const res = await call(`/api/purchase/revoked?${link}`);
    expect(res.status).toBe(200);
    const answer = await res.json<{ since: string }>();
    expect(answer).toEqual({
      state: "refunded",
      since: expect.any(String),
      orderId: purchase!.id,
      content: { id: item.id, title: "Beats" },
    });
    expect(Math.abs(Date.parse(answer.since) - before)).toBeLessThan(60_000);
    // Exactly these fields (toEqual above): no email, no amount.
    expect(JSON.stringify(answer)).not.toContain("@");

    const byBrowser = await call(`/api/purchase/revoked?payment_intent=${paymentIntent}`, { cookie: buyerCookie });
    expect(await byBrowser.json()).toEqual(answer);
  });

  it("answers nobody else: a stranger, a forged link, or another item's id", async () => {
    const { paymentIntent, link } = await paidWithLink("revoked-others@example.com");
    await standin("POST", "/v1/refunds", { payment_intent: paymentIntent });
    await deliver(await eventFor("charge.refunded", paymentIntent));
    expect((await call(`/api/purchase/revoked?payment_intent=${paymentIntent}`)).status).toBe(404);
    const forged = `${link.get("access")!.split(".")[0]}.AAAA`;
    expect((await call(`/api/purchase/revoked?access=${encodeURIComponent(forged)}`)).status).toBe(404);
    const other = new URLSearchParams(link);
    other.set("content_id", "someOtherItem1");
    expect((await call(`/api/purchase/revoked?${other}`)).status).toBe(404);
    expect((await call("/api/purchase/revoked")).status).toBe(400);
  });
});
