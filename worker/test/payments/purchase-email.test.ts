// Changing the email on a purchase (docs/payments.md, "Changing a purchase's email"): only the browser
// that paid or the library signed in as its current email may; the old address is told, the new one
// gets the receipt, written with the change; anyone else (an access link too) learns nothing.
import { describe, expect, it } from "vitest";
import type { Sale } from "../../../shared/earnings";
import type { PurchaseVerification } from "../../../shared/payments";
import {
  BROWSER_EMAIL_CHANGE_DAYS,
  EMAIL_CHANGES_PER_CREATOR_DAY,
  EMAIL_CHANGES_PER_ORDER,
  PURCHASE_EMAIL_MESSAGES as M,
} from "../../../shared/purchase-email";
import { newToken, sha256Hex } from "../../lib/ids";
import {
  CARDS,
  call,
  checkout,
  confirmAsStripeJs,
  contentForm,
  cookieValue,
  deliver,
  env,
  eventFor,
  outbox,
  postForm,
  postJson,
  row,
  rows,
  waitForMail,
} from "../support/helpers";
import { creatorWithItem, purchaseOf } from "./payment-fixtures";

const changeEmail = (id: string, email: unknown, cookie?: string, init: RequestInit = {}) =>
  call(`/api/purchases/${id}/email`, {
    method: "POST",
    ...init,
    headers: { "content-type": "application/json", ...(init.headers as Record<string, string>) },
    body: JSON.stringify({ email }),
    cookie,
  });

/** A creator's item paid by a fresh browser with `email`: the purchase, its buyer cookie and its access link. */
async function paidPurchase(tag: string, email = `${tag}-old@example.com`) {
  const creator = await creatorWithItem(`${tag}-creator@example.com`);
  const { paymentIntent, buyerCookie } = await checkout(creator.item.id, { email });
  expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
  const purchase = (await purchaseOf(paymentIntent))!;
  const verified = await call(`/api/purchase/verify?payment_intent=${paymentIntent}`, { cookie: buyerCookie });
  const { accessUrl } = await verified.json<PurchaseVerification>();
  const access = new URL(accessUrl).searchParams.get("access")!;
  return { creator, purchase, buyerCookie, paymentIntent, access, email };
}

/** A library session (its own cookie and KV record, worker/services/library/session.ts) signed in as `email`. */
async function libraryCookie(email: string): Promise<string> {
  const token = newToken();
  await env.SESSIONS.put(`library:${await sha256Hex(token)}`, JSON.stringify({ email, createdAt: Date.now() }));
  return `aw_library=${token}`;
}

const emailOf = async (id: string) =>
  (await row<{ buyer_email: string | null }>("select buyer_email from purchases where id = ?", id))?.buyer_email;
const changeRows = (id: string) =>
  rows<{ id: string; job: string }>(
    "select id, job from outbox_emails where id like ? or id like ? order by created_at",
    `purchase-email-changed:${id}:%`,
    `purchase-access:${id}:to:%`,
  );

describe("the browser that paid changes the email", () => {
  it("moves the purchase to the new address: the old one is told (masked), the new one gets the access link, the creator's sales table shows it", async () => {
    const p = await paidPurchase("pe-ok");
    const res = await changeEmail(p.purchase.id, "  PE-OK-New@Example.com ", p.buyerCookie);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ changed: true, emailedTo: "p…@example.com" });
    expect(await emailOf(p.purchase.id)).toBe("pe-ok-new@example.com");

    const notice = await waitForMail(p.email);
    expect(notice.subject).toBe("The email on your order of Beats was changed");
    expect(notice.text).toContain(
      `The email for your purchase of Beats (Order #${p.purchase.id}) was changed to p…@example.com.`,
    );
    expect(notice.text).toContain("If this wasn't you, contact ApeWall: reply to this email with your order number.");
    expect(notice.text).not.toContain("pe-ok-new@");

    const receipt = await waitForMail("pe-ok-new@example.com");
    expect(receipt.subject).toBe("Your access to Beats");
    const link = new URL(receipt.links.find((l) => l.includes("access="))!);
    const opened = await call(`/api/purchase/verify?access=${encodeURIComponent(link.searchParams.get("access")!)}`);
    expect(opened.status).toBe(200);
    expect((await opened.json<PurchaseVerification>()).purchase.emailedTo).toBe("p…@example.com");

    const sales = await (await call("/api/creator/sales", { cookie: p.creator.cookie })).json<Sale[]>();
    expect(sales.find((s) => s.id === p.purchase.id)?.buyerEmail).toBe("pe-ok-new@example.com");
  });

  it("an order with an order bump: the add-on moves too, and the new address gets the order email listing both", async () => {
    const creator = await creatorWithItem("pe-bump-creator@example.com");
    const addOn = await postForm(
      "/api/content",
      contentForm({ title: "Stems", price: "12", accessType: "link", linkUrl: "https://example.com/stems" }),
      creator.cookie,
    );
    const addOnId = (await addOn.json<{ id: string }>()).id;
    const bump = { contentId: addOnId, price: "4" };
    expect(
      (await call(`/api/content/${creator.item.id}/bump`, { ...putJson(bump), cookie: creator.cookie })).status,
    ).toBe(200);
    const started = await postJson("/api/create-payment-intent", {
      contentId: creator.item.id,
      bump: true,
      buyerEmail: "pe-bump-old@example.com",
    });
    const { clientSecret } = await started.json<{ clientSecret: string }>();
    const buyerCookie = `aw_buyer=${cookieValue(started, "aw_buyer")}`;
    const paymentIntent = clientSecret.split("_secret_")[0];
    await confirmAsStripeJs(clientSecret, CARDS.ok, { receipt_email: "pe-bump-old@example.com" });
    expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
    const main = (await purchaseOf(paymentIntent))!;

    expect((await changeEmail(main.id, "pe-bump-new@example.com", buyerCookie)).status).toBe(200);
    const order = await rows<{ content_id: string; buyer_email: string }>(
      "select content_id, buyer_email from purchases where id = ? or bump_of = ?",
      main.id,
      main.id,
    );
    expect(order.map((o) => o.buyer_email)).toEqual(["pe-bump-new@example.com", "pe-bump-new@example.com"]);
    const mail = await waitForMail("pe-bump-new@example.com");
    expect(mail.subject).toBe("Your order: Beats and 1 more");
    expect(mail.text).toContain("Stems");

    // The add-on's own id answers for its order: the two never part ways.
    const addOnRow = order.find((o) => o.content_id === addOnId)!;
    const addOnPurchase = await row<{ id: string }>("select id from purchases where bump_of = ?", main.id);
    expect(addOnRow).toBeDefined();
    expect((await changeEmail(addOnPurchase!.id, "pe-bump-third@example.com", buyerCookie)).status).toBe(200);
    expect(await emailOf(main.id)).toBe("pe-bump-third@example.com");
    expect(await emailOf(addOnPurchase!.id)).toBe("pe-bump-third@example.com");
    // A refunded add-on keeps the address its refund went to.
    await env.DB.prepare("update purchases set status = 'refunded' where id = ?").bind(addOnPurchase!.id).run();
    expect((await changeEmail(main.id, "pe-bump-fourth@example.com", buyerCookie)).status).toBe(200);
    expect(await emailOf(addOnPurchase!.id)).toBe("pe-bump-third@example.com");
  });

  it("the same address again (in any case) is a no-op: nothing is sent", async () => {
    const p = await paidPurchase("pe-same");
    const res = await changeEmail(p.purchase.id, "PE-SAME-old@example.com", p.buyerCookie);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ changed: false, emailedTo: "p…@example.com" });
    expect(await changeRows(p.purchase.id)).toEqual([]);
  });

  it("a bad address is a 400 that says why, and nothing changes", async () => {
    const p = await paidPurchase("pe-bad");
    for (const bad of ["not-an-email", "", null, "a@b", `${"x".repeat(250)}@example.com`]) {
      const res = await changeEmail(p.purchase.id, bad, p.buyerCookie);
      expect(res.status).toBe(400);
      expect((await res.json<{ message: string }>()).message).toMatch(/^email[: ]/);
    }
    expect(await emailOf(p.purchase.id)).toBe(p.email);
    expect(await changeRows(p.purchase.id)).toEqual([]);
  });

  it("an order with no email on it gets one: no notice, the receipt to the new address", async () => {
    const p = await paidPurchase("pe-none");
    await env.DB.prepare("update purchases set buyer_email = null where id = ?").bind(p.purchase.id).run();
    const res = await changeEmail(p.purchase.id, "pe-none-new@example.com", p.buyerCookie);
    expect(res.status).toBe(200);
    const written = await changeRows(p.purchase.id);
    expect(written.map((r) => JSON.parse(r.job).template)).toEqual(["purchase-access"]);
    expect((await waitForMail("pe-none-new@example.com")).subject).toBe("Your access to Beats");
  });

  it("a refunded or disputed order keeps its email (409 saying why)", async () => {
    const p = await paidPurchase("pe-refunded");
    for (const [status, message] of [
      ["refunded", M.refunded],
      ["disputed", M.disputed],
    ]) {
      await env.DB.prepare("update purchases set status = ? where id = ?").bind(status, p.purchase.id).run();
      const res = await changeEmail(p.purchase.id, "pe-refunded-new@example.com", p.buyerCookie);
      expect(res.status).toBe(409);
      expect((await res.json<{ message: string }>()).message).toBe(message);
    }
    expect(await emailOf(p.purchase.id)).toBe(p.email);
    expect(await changeRows(p.purchase.id)).toEqual([]);
  });

  it(`at most ${EMAIL_CHANGES_PER_ORDER} changes of one order, ever: then 429, nothing sent; each one is recorded`, async () => {
    const p = await paidPurchase("pe-limit");
    for (let i = 1; i <= EMAIL_CHANGES_PER_ORDER; i++)
      expect((await changeEmail(p.purchase.id, `pe-limit-${i}@example.com`, p.buyerCookie)).status).toBe(200);
    const res = await changeEmail(p.purchase.id, "pe-limit-more@example.com", p.buyerCookie);
    expect(res.status).toBe(429);
    expect((await res.json<{ message: string }>()).message).toBe(M.tooMany);
    expect(await emailOf(p.purchase.id)).toBe(`pe-limit-${EMAIL_CHANGES_PER_ORDER}@example.com`);
    expect((await outbox()).some((m) => m.to === "pe-limit-more@example.com")).toBe(false);
    const record = await rows<{ old_email: string; new_email: string; changed_by: string }>(
      "select old_email, new_email, changed_by from purchase_email_changes where purchase_id = ? order by created_at",
      p.purchase.id,
    );
    expect(record).toEqual([
      { old_email: p.email, new_email: "pe-limit-1@example.com", changed_by: "browser" },
      { old_email: "pe-limit-1@example.com", new_email: "pe-limit-2@example.com", changed_by: "browser" },
      { old_email: "pe-limit-2@example.com", new_email: "pe-limit-3@example.com", changed_by: "browser" },
    ]);
  });

  it(`one creator's orders: at most ${EMAIL_CHANGES_PER_CREATOR_DAY} changes a day in all (a seller buying their own item is no mailer either)`, async () => {
    const p = await paidPurchase("pe-seller");
    const stmt = env.DB.prepare(
      "insert into purchase_email_changes (id, purchase_id, creator_id, new_email, changed_by, created_at) values (?, ?, ?, ?, 'browser', ?)",
    );
    await env.DB.batch(
      Array.from({ length: EMAIL_CHANGES_PER_CREATOR_DAY }, (_, i) =>
        stmt.bind(`pe-seller-${i}`, `other-order-${i}`, p.creator.creatorId, `x${i}@example.com`, Date.now() - 1000),
      ),
    );
    const res = await changeEmail(p.purchase.id, "pe-seller-new@example.com", p.buyerCookie);
    expect(res.status).toBe(429);
    expect((await res.json<{ message: string }>()).message).toBe(M.busy);
    expect(await emailOf(p.purchase.id)).toBe(p.email);
    expect(await changeRows(p.purchase.id)).toEqual([]);
  });

  it(`the browser that paid may for ${BROWSER_EMAIL_CHANGE_DAYS} days after paying; then 404, and the success page no longer offers it`, async () => {
    const p = await paidPurchase("pe-late");
    const verify = async () =>
      (
        await (
          await call(`/api/purchase/verify?payment_intent=${p.paymentIntent}`, { cookie: p.buyerCookie })
        ).json<PurchaseVerification>()
      ).purchase.canChangeEmail;
    expect(await verify()).toBe(true);
    const viaLink = await call(`/api/purchase/verify?access=${encodeURIComponent(p.access)}`);
    expect((await viaLink.json<PurchaseVerification>()).purchase.canChangeEmail).toBe(false);
    await env.DB.prepare("update purchases set paid_at = ? where id = ?")
      .bind(Date.now() - (BROWSER_EMAIL_CHANGE_DAYS * 24 + 1) * 3600 * 1000, p.purchase.id)
      .run();
    expect(await verify()).toBe(false);
    expect((await changeEmail(p.purchase.id, "pe-late-new@example.com", p.buyerCookie)).status).toBe(404);
    expect(await emailOf(p.purchase.id)).toBe(p.email);
    expect((await changeEmail(p.purchase.id, "pe-late-new@example.com", await libraryCookie(p.email))).status).toBe(
      200,
    );
  });

  it("a failed checkout has no receipt to move: 409 saying so", async () => {
    const p = await paidPurchase("pe-failed");
    await env.DB.prepare("update purchases set status = 'failed' where id = ?").bind(p.purchase.id).run();
    const res = await changeEmail(p.purchase.id, "pe-failed-new@example.com", p.buyerCookie);
    expect(res.status).toBe(409);
    expect((await res.json<{ message: string }>()).message).toBe(M.notPaid);
  });
});

describe("two changes at once", () => {
  it("to different addresses: one wins, the other gets a clear 409, and only the winner's emails are written", async () => {
    const p = await paidPurchase("pe-race");
    const [a, b] = await Promise.all([
      changeEmail(p.purchase.id, "pe-race-a@example.com", p.buyerCookie),
      changeEmail(p.purchase.id, "pe-race-b@example.com", p.buyerCookie),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const loser = a.status === 409 ? a : b;
    expect((await loser.json<{ message: string }>()).message).toBe(M.changedMeanwhile);
    const winner = a.status === 200 ? "pe-race-a@example.com" : "pe-race-b@example.com";
    expect(await emailOf(p.purchase.id)).toBe(winner);
    const written = (await changeRows(p.purchase.id)).map((r) => JSON.parse(r.job) as { to: string; template: string });
    expect(written.map((j) => [j.template, j.to]).sort()).toEqual(
      [
        ["purchase-access", winner],
        ["purchase-email-changed", p.email],
      ].sort(),
    );
  });

  it("to the same address (a double click): both answer 200, one email each way", async () => {
    const p = await paidPurchase("pe-double");
    const answers = await Promise.all(
      [1, 2].map(async () => (await changeEmail(p.purchase.id, "pe-double-new@example.com", p.buyerCookie)).json()),
    );
    expect(answers.map((a) => (a as { changed: boolean }).changed).sort()).toEqual([false, true]);
    expect(await changeRows(p.purchase.id)).toHaveLength(2);
  });
});

describe("nobody else may change it", () => {
  const refused = async (p: Awaited<ReturnType<typeof paidPurchase>>, res: Response, status = 404) => {
    expect(res.status).toBe(status);
    if (status === 404) expect((await res.json<{ message: string }>()).message).toBe("Purchase Not Found");
    expect(await emailOf(p.purchase.id)).toBe(p.email);
    expect(await changeRows(p.purchase.id)).toEqual([]);
    expect((await outbox()).some((m) => m.to === "pe-thief@example.com")).toBe(false);
  };

  it("another browser: 404, as for a purchase that does not exist", async () => {
    const p = await paidPurchase("pe-other");
    const other = await checkout(p.creator.item.id, { card: "none" });
    await refused(p, await changeEmail(p.purchase.id, "pe-thief@example.com", other.buyerCookie));
    await refused(p, await changeEmail("nosuchpurchase", "pe-thief@example.com", p.buyerCookie));
  });

  it("the access link (a leaked link cannot redirect the purchase): 404, in the query, the body or with another browser", async () => {
    const p = await paidPurchase("pe-leak");
    const access = encodeURIComponent(p.access);
    await refused(
      p,
      await call(`/api/purchases/${p.purchase.id}/email?access=${access}`, postBody("pe-thief@example.com")),
    );
    await refused(
      p,
      await postJson(`/api/purchases/${p.purchase.id}/email?access=${access}`, {
        email: "pe-thief@example.com",
        access: p.access,
      }),
    );
    const other = await checkout(p.creator.item.id, { card: "none" });
    await refused(
      p,
      await call(`/api/purchases/${p.purchase.id}/email?access=${access}`, {
        ...postBody("pe-thief@example.com"),
        cookie: other.buyerCookie,
      }),
    );
  });

  it("the creator who sold it: 404", async () => {
    const p = await paidPurchase("pe-creator");
    await refused(p, await changeEmail(p.purchase.id, "pe-thief@example.com", p.creator.cookie));
  });

  it("an API key of the creator: 403, the route is not for keys", async () => {
    const p = await paidPurchase("pe-key");
    const made = await postJson(
      "/api/developer/keys",
      { name: "k", scopes: ["sales:read", "content:write"] },
      p.creator.cookie,
    );
    const { key } = await made.json<{ key: string }>();
    await refused(
      p,
      await changeEmail(p.purchase.id, "pe-thief@example.com", undefined, {
        headers: { authorization: `Bearer ${key}` },
      }),
      403,
    );
  });
});

describe("from the library, signed in as the purchase's current email", () => {
  it("may change it; the library of another address may not, nor the old address's once it moved", async () => {
    const p = await paidPurchase("pe-lib");
    await refused404(p.purchase.id, await libraryCookie("pe-lib-someone@example.com"));
    const mine = await libraryCookie(p.email);
    const res = await changeEmail(p.purchase.id, "pe-lib-new@example.com", mine);
    expect(res.status).toBe(200);
    expect(await emailOf(p.purchase.id)).toBe("pe-lib-new@example.com");
    await refused404(p.purchase.id, mine);
    expect((await changeEmail(p.purchase.id, p.email, await libraryCookie("pe-lib-new@example.com"))).status).toBe(200);
  });
});

const putJson = (body: unknown): RequestInit => ({
  method: "PUT",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

const postBody = (email: string): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ email }),
});

async function refused404(id: string, cookie: string) {
  const before = await emailOf(id);
  const res = await changeEmail(id, "pe-thief@example.com", cookie);
  expect(res.status).toBe(404);
  expect(await emailOf(id)).toBe(before);
}
