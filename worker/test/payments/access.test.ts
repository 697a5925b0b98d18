// Buyers keep what they bought: the paywall knows its owner, downloads go through short-lived
// signed URLs, lost access links come back by email, and a few defects stay fixed.
import { describe, expect, it } from "vitest";
import { RECOVER_ACCESS_MESSAGE } from "../../../shared/payments";
import { CROSS_SITE_REFUSED } from "../../app";
import { signedDownloadPath } from "../../services/download-links";
import {
  call,
  checkout,
  contentForm,
  deliver,
  env,
  eventFor,
  outbox,
  postForm,
  postJson,
  row,
  rows,
  signIn,
  signedWebhook,
  waitForMail,
} from "../support/helpers";

const SECRET = (env as unknown as { ACCESS_TOKEN_SECRET: string }).ACCESS_TOKEN_SECRET;
const fileBytes = Uint8Array.from({ length: 3000 }, (_, i) => (i * 7) % 256);

async function itemOf(email: string, fields: Record<string, string | Blob> = {}) {
  const cookie = await signIn(email);
  const res = await postForm(
    "/api/content",
    contentForm({
      title: "Field notes",
      price: "5",
      file: new File([fileBytes], "notes.bin", { type: "application/octet-stream" }),
      ...fields,
    }),
    cookie,
  );
  if (res.status !== 201) throw new Error(await res.text());
  return { cookie, item: await res.json<{ id: string }>() };
}

const purchaseIdOf = async (pi: string) =>
  (await row<{ id: string }>("select id from purchases where payment_intent_id = ?", pi))!.id;
const accessOf = (contentId: string, init: { cookie?: string; access?: string } = {}) =>
  call(`/api/content/${contentId}/access${init.access ? `?access=${encodeURIComponent(init.access)}` : ""}`, {
    cookie: init.cookie,
  });

describe("the paywall knows its owner", () => {
  it("the paying browser and the access link's holder own it; anyone else does not", async () => {
    const { item } = await itemOf("owner-a@example.com");
    expect(await (await accessOf(item.id)).json()).toEqual({ owned: false, status: "none" });
    const { buyerCookie, paymentIntent } = await checkout(item.id);
    const mine = await (await accessOf(item.id, { cookie: buyerCookie })).json<{
      owned: boolean;
      verification: { accessUrl: string; content: { id: string; fileUrl: string } };
    }>();
    expect(mine.owned).toBe(true);
    expect(mine.verification.content.id).toBe(item.id);
    const token = new URL(mine.verification.accessUrl).searchParams.get("access")!;
    expect(new URL(mine.verification.accessUrl).searchParams.get("payment_intent")).toBe(paymentIntent);

    expect((await (await accessOf(item.id, { access: token })).json<{ owned: boolean }>()).owned).toBe(true);
    expect(await (await accessOf(item.id, { cookie: "aw_buyer=someoneelse-someoneelse-1234" })).json()).toEqual({
      owned: false,
      status: "none",
    });
    // A token for one purchase says nothing about another item.
    const { item: other } = await itemOf("owner-b@example.com");
    expect((await (await accessOf(other.id, { access: token })).json<{ owned: boolean }>()).owned).toBe(false);
    expect((await (await accessOf(item.id, { access: `${token}x` })).json<{ owned: boolean }>()).owned).toBe(false);
  });

  it("a second checkout from the browser that paid is offered its access, with no new charge", async () => {
    const { item } = await itemOf("twice@example.com");
    const { buyerCookie } = await checkout(item.id);
    const before = await row<{ n: number }>("select count(*) as n from purchases where content_id = ?", item.id);
    const again = await postJson("/api/create-payment-intent", { contentId: item.id }, buyerCookie);
    expect(again.status).toBe(200);
    const body = await again.json<{ alreadyOwned: boolean; accessUrl: string; clientSecret?: string }>();
    expect(body.alreadyOwned).toBe(true);
    expect(body.clientSecret).toBeUndefined();
    expect(new URL(body.accessUrl).searchParams.get("access")).toMatch(/\./);
    expect(await row<{ n: number }>("select count(*) as n from purchases where content_id = ?", item.id)).toEqual(
      before,
    );
    // Another browser still pays.
    const other = await postJson("/api/create-payment-intent", { contentId: item.id });
    expect(await other.json()).toHaveProperty("clientSecret");
  });

  it("a refunded buyer is not an owner and may buy again", async () => {
    const { item } = await itemOf("refund-owner@example.com");
    const { buyerCookie, paymentIntent } = await checkout(item.id);
    await postJson("/api/create-payment-intent", { contentId: item.id }, buyerCookie);
    await fetch(`${(env as unknown as { STRIPE_API_BASE: string }).STRIPE_API_BASE}/v1/refunds`, {
      method: "POST",
      headers: { authorization: "Bearer sk_test_worker", "content-type": "application/x-www-form-urlencoded" },
      body: `payment_intent=${paymentIntent}`,
    });
    await deliver(await eventFor("charge.refunded", paymentIntent));
    expect(await (await accessOf(item.id, { cookie: buyerCookie })).json()).toMatchObject({
      owned: false,
      status: "refunded",
    });
    expect(
      await (await postJson("/api/create-payment-intent", { contentId: item.id }, buyerCookie)).json(),
    ).toHaveProperty("clientSecret");
  });
});

describe("signed download URLs", () => {
  it("stream the file as an attachment, for the purchase they were signed for, until they expire", async () => {
    const { item } = await itemOf("dl@example.com");
    const { buyerCookie, paymentIntent } = await checkout(item.id);
    const res = await call(`/api/content/${item.id}/download`, { method: "POST", cookie: buyerCookie });
    expect(res.status).toBe(200);
    const { url, expiresAt } = await res.json<{ url: string; expiresAt: string }>();
    const purchaseId = await purchaseIdOf(paymentIntent);
    expect(url).toMatch(new RegExp(`^/api/purchases/${purchaseId}/download\\?expires=\\d+&sig=`));
    const minutes = (Date.parse(expiresAt) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(4);
    expect(minutes).toBeLessThanOrEqual(5);

    const file = await call(url);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-disposition")).toMatch(/^attachment; filename="notes.bin"/);
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(fileBytes);
    // Range works on it too (resumed downloads).
    const part = await call(url, { headers: { range: "bytes=10-19" } });
    expect(part.status).toBe(206);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(fileBytes.slice(10, 20));

    // Bound to its purchase: the same signature on another purchase id is refused.
    const { paymentIntent: otherPi } = await checkout(item.id);
    const otherId = await purchaseIdOf(otherPi);
    expect((await call(url.replace(purchaseId, otherId))).status).toBe(403);
    // Tampered expiry or signature.
    const u = new URL(url, "http://x");
    const later = new URL(u);
    later.searchParams.set("expires", String(Number(u.searchParams.get("expires")) + 60));
    expect((await call(later.pathname + later.search)).status).toBe(403);
    const forged = new URL(u);
    forged.searchParams.set("sig", "A".repeat(43));
    expect((await call(forged.pathname + forged.search)).status).toBe(403);
    // Expired: signed six minutes ago.
    const old = await signedDownloadPath(SECRET, purchaseId, Date.now() - 6 * 60_000);
    const expired = await call(old.url);
    expect(expired.status).toBe(403);
    expect((await expired.json<{ message: string }>()).message).toContain("expired");
  });

  it("only the owner gets one, and a refund stops an already signed URL", async () => {
    const { item } = await itemOf("dl-refund@example.com");
    expect((await call(`/api/content/${item.id}/download`, { method: "POST" })).status).toBe(404);
    const { buyerCookie, paymentIntent } = await checkout(item.id);
    const { url } = await (
      await call(`/api/content/${item.id}/download`, { method: "POST", cookie: buyerCookie })
    ).json<{ url: string }>();
    await fetch(`${(env as unknown as { STRIPE_API_BASE: string }).STRIPE_API_BASE}/v1/refunds`, {
      method: "POST",
      headers: { authorization: "Bearer sk_test_worker", "content-type": "application/x-www-form-urlencoded" },
      body: `payment_intent=${paymentIntent}`,
    });
    await deliver(await eventFor("charge.refunded", paymentIntent));
    expect((await call(url)).status).toBe(403);
  });

  it("link and text items have no file to download", async () => {
    const cookie = await signIn("dl-link@example.com");
    const res = await postForm(
      "/api/content",
      contentForm({ title: "Secret link", price: "3", accessType: "link", linkUrl: "https://example.com/secret" }),
      cookie,
    );
    const item = await res.json<{ id: string }>();
    const { buyerCookie } = await checkout(item.id);
    expect((await call(`/api/content/${item.id}/download`, { method: "POST", cookie: buyerCookie })).status).toBe(404);
    const owned = await (await accessOf(item.id, { cookie: buyerCookie })).json<{
      verification: { content: { linkUrl: string; fileUrl: string | null } };
    }>();
    expect(owned.verification.content).toMatchObject({ linkUrl: "https://example.com/secret", fileUrl: null });
  });
});

describe("Lost your access?", () => {
  it("mails every paid purchase's access link; the answer is the same for an address that bought nothing", async () => {
    const { item } = await itemOf("recover-creator@example.com");
    const { item: second } = await itemOf("recover-creator2@example.com", { title: "Second thing" });
    for (const [id, email] of [
      [item.id, "Lost.Buyer@example.com"],
      [second.id, "lost.buyer@example.com"],
    ]) {
      const { paymentIntent } = await checkout(id, { email });
      await deliver(await eventFor("payment_intent.succeeded", paymentIntent));
    }
    await waitForMail("lost.buyer@example.com", 1); // the two receipts
    await checkout(second.id, { email: "lost.buyer@example.com", card: "none" }); // never paid: not listed

    const known = await postJson("/api/purchase/recover", { email: "LOST.buyer@example.com " });
    const unknown = await postJson("/api/purchase/recover", { email: "nobody-bought@example.com" });
    expect(known.status).toBe(202);
    expect(unknown.status).toBe(202);
    const [a, b] = [await known.json(), await unknown.json()];
    expect(a).toEqual({ message: RECOVER_ACCESS_MESSAGE });
    expect(b).toEqual(a);

    const mail = await waitForMail("lost.buyer@example.com", 2); // after the two receipts
    expect(mail.subject).toBe("Your ApeWall access links");
    expect(mail.text).toContain("Field notes");
    expect(mail.text).toContain("Second thing");
    const links = mail.links.filter((l) => l.includes("access="));
    expect(new Set(links).size).toBe(2);
    for (const link of links) {
      const u = new URL(link);
      const verified = await call(`/api/purchase/verify?${u.searchParams}`);
      expect(verified.status).toBe(200);
    }
    // Asking again within the hour sends nothing more; the unknown address never got anything.
    await postJson("/api/purchase/recover", { email: "lost.buyer@example.com" });
    await new Promise((r) => setTimeout(r, 1500));
    expect((await outbox()).filter((m) => m.to === "lost.buyer@example.com")).toHaveLength(3);
    expect((await outbox()).filter((m) => m.to === "nobody-bought@example.com")).toHaveLength(0);
  }, 30_000);

  it("refuses a malformed address with a clear message", async () => {
    const res = await postJson("/api/purchase/recover", { email: "not-an-email" });
    expect(res.status).toBe(400);
    expect((await res.json<{ message: string }>()).message).toContain("valid email");
  });
});

describe("small defects", () => {
  it("an event about an object Stripe does not know is acknowledged and changes nothing", async () => {
    const event = {
      id: `evt_unknown${Date.now()}`,
      object: "event",
      type: "payment_intent.succeeded",
      data: { object: { id: "pi_notknownbystripe", object: "payment_intent" } },
    };
    const before = await rows("select * from ledger_entries");
    const purchasesBefore = await rows("select * from purchases");
    const payload = JSON.stringify(event);
    const res = await call("/api/stripe/webhook", {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": await signedWebhook(payload) },
      body: payload,
    });
    expect(res.status).toBe(200);
    for (const type of ["charge.refunded", "charge.dispute.created"]) {
      const other = JSON.stringify({
        ...event,
        id: `${event.id}${type}`,
        type,
        data: { object: { id: type.startsWith("charge.refunded") ? "ch_gone" : "dp_gone" } },
      });
      const answer = await call("/api/stripe/webhook", {
        method: "POST",
        headers: { "content-type": "application/json", "stripe-signature": await signedWebhook(other) },
        body: other,
      });
      expect(answer.status).toBe(200);
    }
    expect(await rows("select * from ledger_entries")).toEqual(before);
    expect(await rows("select * from purchases")).toEqual(purchasesBefore);
  });

  it("a cross-site form post is refused with a message that says so", async () => {
    const res = await call("/api/feedback", {
      method: "POST",
      headers: { origin: "https://evil.example", "content-type": "application/x-www-form-urlencoded" },
      body: "type=bug",
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ message: CROSS_SITE_REFUSED });
  });

  it("robots.txt allows paywall pages and keeps crawlers out of the API, dev tools, the app and checkout", async () => {
    const res = await (env as unknown as { ASSETS: Fetcher }).ASSETS.fetch("http://127.0.0.1:8787/robots.txt");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    for (const line of [
      "User-agent: *",
      "Allow: /p/",
      "Allow: /paywall/",
      "Disallow: /api/",
      "Disallow: /dev/",
      "Disallow: /dashboard",
      "Disallow: /checkout/",
      "Disallow: /success",
    ]) {
      expect(text.split("\n")).toContain(line);
    }
    expect(text).not.toContain("<html");
  });
});
