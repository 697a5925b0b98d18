// Inputs: no route trusts a body's shape, no 500 on odd but possible input, 404 for
// what the caller does not own, and the smaller hardening items (logout, og tags from APP_URL,
// downloads as opaque attachments, the SPA's CSP, deleted previews, unknown ids remembered).
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import {
  call,
  checkout,
  contentForm,
  env,
  PNG_1X1,
  postForm,
  postJson,
  row,
  rows,
  signIn,
  signedWebhook,
  standin,
} from "../support/helpers";

const json = (method: string, path: string, body: string, cookie?: string, contentType = "application/json") =>
  call(path, { method, headers: { "content-type": contentType }, body, cookie });

const exportsFetch = (url: string) => exports.default.fetch(new Request(url));
const messageOf = async (res: Response) => (await res.json<{ message: unknown }>()).message;

let admin: string;
let creator: string;
beforeAll(async () => {
  admin = await signIn("admin@apewall.test");
  creator = await signIn("inputs-creator@example.com");
});

async function fileItem(
  cookie: string,
  name = "notes.bin",
  type = "application/octet-stream",
  bytes: string = "hello",
) {
  const res = await postForm(
    "/api/content",
    contentForm({
      title: "Field notes",
      price: "5",
      file: new File([bytes], name, { type }),
      previewImage: new File([PNG_1X1], "p.png", { type: "image/png" }),
    }),
    cookie,
  );
  if (res.status !== 201) throw new Error(await res.text());
  return (await res.json<{ id: string }>()).id;
}

describe("item 12: no route trusts a body's shape", () => {
  it("a download request with the JSON body null is answered 400, not 500", async () => {
    const id = await fileItem(creator);
    const res = await json("POST", `/api/content/${id}/download`, "null");
    expect(res.status).toBe(400);
    expect(typeof (await messageOf(res))).toBe("string");
  });

  it("null, arrays and scalars as JSON bodies are refused with 400 and a message", async () => {
    for (const body of ["null", "[]", "[1]", "1", '"x"', "true"]) {
      for (const [path, cookie] of [
        ["/api/auth/email", undefined],
        ["/api/feedback", undefined],
        [`/api/content/abc/download`, undefined],
        ["/api/funnels", creator],
        ["/api/admin/process-payouts", admin],
      ] as const) {
        const res = await json("POST", path, body, cookie);
        expect(res.status, `${path} ${body}`).toBe(400);
        expect(typeof (await messageOf(res))).toBe("string");
      }
    }
  });

  it("a JSON body over the size limit is answered 413 with a message, on the API and the webhook", async () => {
    const huge = JSON.stringify({ type: "bug", subject: "x", message: "y".repeat(2 * 1024 * 1024) });
    const res = await json("POST", "/api/feedback", huge);
    expect(res.status).toBe(413);
    expect(await messageOf(res)).toMatch(/too large/i);
    const hook = await call("/api/stripe/webhook", {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": await signedWebhook(huge) },
      body: huge,
    });
    expect(hook.status).toBe(413);
    expect(await messageOf(hook)).toMatch(/too large/i);
    expect(await rows("select id from feedback")).toEqual([]);
  });

  it("process-payouts refuses a month of true or [3] and runs no payouts", async () => {
    for (const body of [
      '{"month":true,"year":2026}',
      '{"month":[3],"year":2026}',
      '{"month":"3","year":2026}',
      '{"month":3,"year":"2026"}',
    ]) {
      const res = await json("POST", "/api/admin/process-payouts", body, admin);
      expect(res.status, body).toBe(400);
      expect(await messageOf(res)).toMatch(/month|year/);
    }
    expect(await rows("select action from admin_audit where action like '%payout%'")).toEqual([]);
    // The query form of the same period still takes the text a URL carries.
    expect((await call("/api/admin/creator-payouts?month=3&year=2026", { cookie: admin })).status).toBe(200);
  });

  it("a correctly signed Stripe event with a broken payload is answered 400, never 500", async () => {
    for (const payload of [
      "{}",
      '{"id":"evt_x1","type":"charge.refunded"}',
      '{"id":"evt_x2","type":"charge.refunded","data":{"object":null}}',
      '{"id":"evt_x3","type":7,"data":{"object":{"id":"ch_1"}}}',
      '{"id":"evt_x4","type":"charge.refunded","data":{"object":{"id":5}}}',
      "[]",
      "null",
    ]) {
      const res = await call("/api/stripe/webhook", {
        method: "POST",
        headers: { "content-type": "application/json", "stripe-signature": await signedWebhook(payload) },
        body: payload,
      });
      expect(res.status, payload).toBe(400);
      expect(typeof (await messageOf(res))).toBe("string");
    }
    expect(await rows("select id from webhook_events where id like 'evt_x%'")).toEqual([]);
  });
});

describe("item 13: odd but possible input is a 4xx, never a 500", () => {
  it("create-upsell-product with a lone UTF-16 surrogate in the name or description is answered 400", async () => {
    for (const body of [
      '{"name":"Bonus \\ud800","price":5}',
      '{"name":"Bonus","description":"x \\udc00 y","price":5}',
    ]) {
      const res = await json("POST", "/api/stripe/create-upsell-product", body, creator);
      expect(res.status, body).toBe(400);
      expect(await messageOf(res)).toMatch(/text/i);
    }
  });

  it("the dev seed route refuses a BOM, a charset=utf-16 body and extra or unknown fields with 400", async () => {
    const user = (await row<{ id: string }>("select id from users where email = ?", "inputs-creator@example.com"))!.id;
    const body = JSON.stringify({ userId: user, sales: 1 });
    const bom = await json("POST", "/dev/seed-sales", `\ufeff${body}`);
    expect(bom.status).toBe(400);
    const utf16 = await json("POST", "/dev/seed-sales", body, undefined, "application/json; charset=utf-16");
    expect([400, 415]).toContain(utf16.status);
    expect(typeof (await messageOf(utf16))).toBe("string");
    const extra = await json("POST", "/dev/seed-sales", JSON.stringify({ userId: user, sales: 1, admin: true }));
    expect(extra.status).toBe(400);
    const unknownUser = await json("POST", "/dev/seed-sales", JSON.stringify({ userId: "nobody", sales: 1 }));
    expect(unknownUser.status).toBe(404);
    expect(await rows("select id from content where id like 'bench%'")).toEqual([]);
  });

  it("account.updated and the status call work for a connected account with no email", async () => {
    const cookie = await signIn("no-email-connect@example.com");
    const userId = (await row<{ id: string }>("select id from users where email = ?", "no-email-connect@example.com"))!
      .id;
    const { body: account } = await standin<{ id: string }>("POST", "/v1/accounts", {
      type: "express",
      "capabilities[transfers][requested]": "true",
    });
    await standin("POST", `/_standin/accounts/${account.id}/onboard`);
    await env.DB.prepare("insert into payout_settings (user_id, stripe_account_id) values (?, ?)")
      .bind(userId, account.id)
      .run();
    const status = await call("/api/connect/account-status", { cookie });
    expect(status.status).toBe(200);
    expect(await status.json()).toEqual({ connected: true, details_submitted: true, payouts_enabled: true });
    const payload = JSON.stringify({
      id: `evt_noemail_${account.id}`,
      object: "event",
      type: "account.updated",
      data: { object: { id: account.id, object: "account" } },
    });
    const hook = await call("/api/stripe/webhook", {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": await signedWebhook(payload) },
      body: payload,
    });
    expect(hook.status).toBe(200);
  });

  it("the status call after the account was deleted at Stripe says not connected", async () => {
    const cookie = await signIn("deleted-connect@example.com");
    const onboard = await call("/api/stripe/connect/onboard", { cookie });
    expect(onboard.status).toBe(303);
    const userId = (await row<{ id: string }>("select id from users where email = ?", "deleted-connect@example.com"))!
      .id;
    const accountId = (await row<{ stripe_account_id: string }>(
      "select stripe_account_id from payout_settings where user_id = ?",
      userId,
    ))!.stripe_account_id;
    expect((await standin("DELETE", `/v1/accounts/${accountId}`)).body).toMatchObject({ id: accountId, deleted: true });
    const status = await call("/api/connect/account-status", { cookie });
    expect(status.status).toBe(200);
    expect(await status.json()).toEqual({ connected: false, details_submitted: false, payouts_enabled: false });
    // Onboarding again makes a new account.
    expect((await call("/api/stripe/connect/onboard", { cookie })).status).toBe(303);
    const again = (await row<{ stripe_account_id: string }>(
      "select stripe_account_id from payout_settings where user_id = ?",
      userId,
    ))!.stripe_account_id;
    expect(again).toMatch(/^acct_/);
    expect(again).not.toBe(accountId);
  });

  it("an email zod accepts but Stripe refuses as receipt_email is answered 400 and charges nothing", async () => {
    const res = await postForm(
      "/api/content",
      contentForm({ title: "Zine", price: "5", linkUrl: "https://example.com/z", accessType: "link" }),
      creator,
    );
    const { id } = await res.json<{ id: string }>();
    const checkoutRes = await postJson("/api/create-payment-intent", {
      contentId: id,
      buyerEmail: "reader@example-.com",
    });
    expect(checkoutRes.status).toBe(400);
    expect(await messageOf(checkoutRes)).toMatch(/email/i);
    expect(await rows("select id from purchases where content_id = ?", id)).toEqual([]);
  });

  it("fix-purchase-emails pages through hundreds of rows and says how many remain", async () => {
    const res = await postForm(
      "/api/content",
      contentForm({ title: "Many", price: "5", linkUrl: "https://example.com/m", accessType: "link" }),
      creator,
    );
    const { id } = await res.json<{ id: string }>();
    const { paymentIntent } = await checkout(id, { email: "many@example.com" });
    const userId = (await row<{ id: string }>("select id from users where email = ?", "inputs-creator@example.com"))!
      .id;
    // 300 older paid purchases without an email whose PaymentIntents Stripe does not know, then the real one.
    const t = Date.now() - 86_400_000;
    await env.DB.prepare(
      `insert into purchases (id, content_id, creator_id, buyer_email, amount_cents, status, payment_intent_id, paid_at, created_at)
       with recursive n(i) as (select 1 union all select i + 1 from n where i < 300)
       select 'fix' || i, ?1, ?2, null, 500, 'paid', 'pi_unknown' || i, ?3, ?3 + i from n`,
    )
      .bind(id, userId, t)
      .run();
    await env.DB.prepare("update purchases set status = 'paid', buyer_email = null where payment_intent_id = ?")
      .bind(paymentIntent)
      .run();
    let after: string | null = null;
    let calls = 0;
    let fixed = 0;
    let looked = 0;
    let remaining = -1;
    do {
      const answer = await postJson("/api/admin/fix-purchase-emails", after ? { after } : {}, admin);
      expect(answer.status).toBe(200);
      const body = await answer.json<{ fixed: number; total: number; remaining: number; next: string | null }>();
      expect(body.total).toBeLessThanOrEqual(100);
      fixed += body.fixed;
      looked += body.total;
      remaining = body.remaining;
      after = body.next;
      calls++;
      if (calls === 1) expect(body).toMatchObject({ fixed: 0, total: 100, remaining: 201 });
    } while (after && calls < 10);
    expect({ calls, fixed, looked, remaining }).toEqual({ calls: 4, fixed: 1, looked: 301, remaining: 0 });
    expect(await row("select buyer_email from purchases where payment_intent_id = ?", paymentIntent)).toEqual({
      buyer_email: "many@example.com",
    });
    // A bare POST (the old client) still works and starts at the oldest.
    expect((await call("/api/admin/fix-purchase-emails", { method: "POST", cookie: admin })).status).toBe(200);
  }, 120_000);
});

describe("item 14: DELETE of a funnel product names what the caller owns", () => {
  it("detaching another creator's item (or one not in the funnel) is answered 404", async () => {
    const other = await signIn("funnel-other@example.com");
    const theirs = await (
      await postForm(
        "/api/content",
        contentForm({ title: "Theirs", price: "5", linkUrl: "https://example.com/t", accessType: "link" }),
        other,
      )
    ).json<{ id: string }>();
    const mine = await (
      await postForm(
        "/api/content",
        contentForm({ title: "Mine", price: "5", linkUrl: "https://example.com/m", accessType: "link" }),
        creator,
      )
    ).json<{ id: string }>();
    const funnel = await (await postJson("/api/funnels", { name: "Mine" }, creator)).json<{ id: string }>();
    expect((await postJson(`/api/funnels/${funnel.id}/products`, { contentIds: [mine.id] }, creator)).status).toBe(200);
    const res = await call(`/api/funnels/${funnel.id}/products/${theirs.id}`, { method: "DELETE", cookie: creator });
    expect(res.status).toBe(404);
    expect(typeof (await messageOf(res))).toBe("string");
    expect(
      (await call(`/api/funnels/${funnel.id}/products/${mine.id}`, { method: "DELETE", cookie: creator })).status,
    ).toBe(200);
    expect(
      (await call(`/api/funnels/${funnel.id}/products/${mine.id}`, { method: "DELETE", cookie: creator })).status,
    ).toBe(404);
  });
});

describe("item 15: smaller hardening", () => {
  it("logout is a POST: a GET (a cross-site link) signs nobody out", async () => {
    const cookie = await signIn("logout@example.com");
    const get = await call("/api/logout", { cookie });
    expect(get.status).toBe(404);
    expect((await call("/api/auth/user", { cookie })).status).toBe(200);
    const crossSite = await call("/api/logout", {
      method: "POST",
      cookie,
      headers: { origin: "https://evil.example", "content-type": "application/x-www-form-urlencoded" },
    });
    expect(crossSite.status).toBe(403);
    expect((await call("/api/auth/user", { cookie })).status).toBe(200);
    const post = await call("/api/logout", { method: "POST", cookie });
    expect(post.status).toBe(303);
    expect(post.headers.get("location")).toBe("/");
    expect((await call("/api/auth/user", { cookie })).status).toBe(401);
  });

  it("og:url and og:image come from APP_URL, never the request's host", async () => {
    const id = await fileItem(creator);
    const page = await exportsFetch(`http://evil.example/p/${id}`);
    const html = await page.text();
    expect(html).toContain(`<meta property="og:url" content="${env.APP_URL}/p/${id}" />`);
    expect(html).toContain(`<meta property="og:image" content="${env.APP_URL}/api/content/${id}/preview-image" />`);
    expect(html).toContain(`<link rel="canonical" href="${env.APP_URL}/p/${id}" />`);
    expect(html).not.toContain("evil.example");
  });

  it("a bought .js file is served as an application/octet-stream attachment with nosniff", async () => {
    const id = await fileItem(creator, "app.js", "text/javascript", "alert(1)");
    const { buyerCookie } = await checkout(id);
    const link = await call(`/api/content/${id}/download`, { method: "POST", cookie: buyerCookie });
    const { url } = await link.json<{ url: string }>();
    const file = await call(url);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("application/octet-stream");
    expect(file.headers.get("content-disposition")).toMatch(/^attachment;/);
    expect(file.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("the SPA's HTML carries a Content-Security-Policy that allows only this origin and Stripe.js's", async () => {
    // "/" signed out is the landing the Worker renders (docs/pages.md), no longer the SPA.
    for (const path of ["/upload", "/settings", "/checkout/someItem123"]) {
      const res = await call(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/text\/html/);
      const csp = res.headers.get("content-security-policy") ?? "";
      const stripeOrigin = new URL((env as unknown as { STRIPE_JS_URL: string }).STRIPE_JS_URL).origin;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain(`script-src 'self' ${stripeOrigin}`);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain("unsafe-eval");
      expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    }
  });

  it("a deleted item's preview image answers 404", async () => {
    const id = await fileItem(creator);
    expect((await call(`/api/content/${id}/preview-image`)).status).toBe(200);
    expect((await call(`/api/content/${id}`, { method: "DELETE", cookie: creator })).status).toBe(204);
    const res = await call(`/api/content/${id}/preview-image`);
    expect(res.status).toBe(404);
  });

  it("a /p/{id} for an id that never existed is remembered briefly, without reading the database again", async () => {
    const id = "neverexisted123";
    expect((await call(`/p/${id}`)).status).toBe(404);
    // Were it read again, this row (written behind the app's back) would be found.
    const userId = (await row<{ id: string }>("select id from users where email = ?", "inputs-creator@example.com"))!
      .id;
    await env.DB.prepare(
      "insert into content (id, user_id, title, price_cents, access_type, link_url) values (?, ?, 'Late', 500, 'link', 'https://example.com')",
    )
      .bind(id, userId)
      .run();
    const again = await call(`/p/${id}`);
    expect(again.status).toBe(404);
    expect(again.headers.get("x-paywall-cache")).toBe("HIT");
  });
});
