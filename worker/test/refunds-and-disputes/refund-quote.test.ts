// What the refund dialog says before a refund (GET /api/sales/{purchaseId}/refund-quote): the share
// of the creator's balance the amount takes is exactly what the ledger then books, partial refunds
// included; and the buyer's refund email replies to the creator (Reply-To).
import { describe, expect, it } from "vitest";
import type { RefundQuote } from "../../../shared/refunds";
import { httpTransport } from "../../services/mail/transport";
import {
  call,
  checkout,
  contentForm,
  deliver,
  eventFor,
  postForm,
  postJson,
  row,
  signIn,
  waitForMail,
} from "../support/helpers";

async function sale(creator: string, buyer: string, price: string) {
  const cookie = await signIn(creator);
  const res = await postForm(
    "/api/content",
    contentForm({ title: "Presets", price, accessType: "link", linkUrl: "https://example.com/p" }),
    cookie,
  );
  expect(res.status).toBe(201);
  const { id } = await res.json<{ id: string }>();
  const { paymentIntent } = await checkout(id, { email: buyer });
  expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
  const p = (await row<{ id: string }>("select id from purchases where payment_intent_id = ?", paymentIntent))!;
  return { cookie, purchaseId: p.id };
}

const quote = (purchaseId: string, amountCents: number | string, cookie: string) =>
  call(`/api/sales/${purchaseId}/refund-quote?amountCents=${amountCents}`, { cookie });
const creatorRefunded = async (purchaseId: string) =>
  -(await row<{ c: number }>(
    "select coalesce(sum(amount_cents), 0) as c from ledger_entries where purchase_id = ? and account = 'creator' and kind = 'refund'",
    purchaseId,
  ))!.c;

describe("the refund dialog's figure", () => {
  it("is the creator's share the ledger books, refund after refund, to the cent", async () => {
    // $9.99 at 80%: $7.99 is the creator's; thirds of it do not divide evenly.
    const { cookie, purchaseId } = await sale("rq-creator@example.com", "rq-buyer@example.com", "9.99");
    const full = await quote(purchaseId, 999, cookie);
    expect(full.status).toBe(200);
    expect(await full.json<RefundQuote>()).toEqual({ amount: 9.99, leavesBalance: 7.99 });

    for (const cents of [333, 333, 333]) {
      const before = await creatorRefunded(purchaseId);
      const q = await (await quote(purchaseId, cents, cookie)).json<RefundQuote>();
      const res = await postJson(
        `/api/sales/${purchaseId}/refund`,
        { amountCents: cents, reason: "duplicate" },
        cookie,
      );
      expect(res.status).toBe(200);
      expect((await creatorRefunded(purchaseId)) - before).toBe(Math.round(q.leavesBalance * 100));
    }
    expect(await creatorRefunded(purchaseId)).toBe(799);
  });

  it("answers only the sale's creator, and refuses an amount that is not one", async () => {
    const { cookie, purchaseId } = await sale("rq-owner@example.com", "rq-buyer2@example.com", "20");
    expect(await (await quote(purchaseId, 500, cookie)).json<RefundQuote>()).toEqual({ amount: 5, leavesBalance: 4 });
    const other = await signIn("rq-other@example.com");
    expect((await quote(purchaseId, 500, other)).status).toBe(404);
    expect((await quote(purchaseId, "ten", cookie)).status).toBe(400);
    expect((await quote(purchaseId, 0, cookie)).status).toBe(400);
  });
});

describe("the buyer's refund email", () => {
  it("replies to the creator's support address, or to their account address without one", async () => {
    const a = await sale("rq-mail-a@example.com", "rq-mail-buyer-a@example.com", "10");
    const put = await call("/api/profile", {
      method: "PUT",
      cookie: a.cookie,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ supportEmail: "help@studio-a.example.com" }),
    });
    expect(put.status).toBe(200);
    await postJson(`/api/sales/${a.purchaseId}/refund`, { reason: "requested_by_customer" }, a.cookie);
    const mailA = (await waitForMail("rq-mail-buyer-a@example.com", 1)) as { subject: string; replyTo?: string };
    expect(mailA.subject).toBe("Your refund of $10.00 for Presets");
    expect(mailA.replyTo).toBe("help@studio-a.example.com");

    const b = await sale("rq-mail-b@example.com", "rq-mail-buyer-b@example.com", "10");
    await postJson(`/api/sales/${b.purchaseId}/refund`, { reason: "requested_by_customer" }, b.cookie);
    const mailB = (await waitForMail("rq-mail-buyer-b@example.com", 1)) as { replyTo?: string };
    expect(mailB.replyTo).toBe("rq-mail-b@example.com");
  });

  it("carries Reply-To to the mail API as its reply_to field", async () => {
    const sent: Record<string, unknown>[] = [];
    const fetchFn = (async (_url: string, init: RequestInit) => {
      sent.push(JSON.parse(String(init.body)));
      return Response.json({ id: "m1" });
    }) as unknown as typeof fetch;
    const mail = { from: "a@x.test", to: "b@x.test", subject: "s", text: "t", html: "h" };
    await httpTransport("https://mail.test", "key", fetchFn).send(
      { ...mail, replyTo: "c@x.test" },
      { idempotencyKey: "k1" },
    );
    await httpTransport("https://mail.test", "key", fetchFn).send(mail, { idempotencyKey: "k2" });
    expect(sent).toEqual([{ ...mail, reply_to: "c@x.test" }, mail]);
  });
});
