// License keys: issued once per purchase in fulfil's batch, their status derived from the purchase's
// state (refunds, chargebacks) and the creator's switch, verified and activated by apps.
import { describe, expect, it } from "vitest";
import {
  call,
  checkout,
  contentForm,
  deliver,
  eventFor,
  postForm,
  postJson,
  row,
  rows,
  signIn,
  standin,
  waitForMail,
} from "../support/helpers";

type Verify = {
  status: string;
  item: { id: string; title: string } | null;
  activations: number;
  limit: number | null;
  message?: string;
};

async function licensedItem(email: string, fields: Record<string, string> = { issueLicenseKeys: "true" }) {
  const cookie = await signIn(email);
  const res = await postForm(
    "/api/content",
    contentForm({
      title: "Pixel Tool",
      price: "10",
      accessType: "link",
      linkUrl: "https://example.com/tool",
      ...fields,
    }),
    cookie,
  );
  if (res.status !== 201) throw new Error(await res.text());
  return { cookie, item: await res.json<{ id: string; issueLicenseKeys: boolean; activationLimit: number | null }>() };
}

async function paid(itemId: string, email = "buyer@example.com") {
  const { paymentIntent, buyerCookie } = await checkout(itemId, { email });
  const succeeded = await eventFor("payment_intent.succeeded", paymentIntent);
  expect((await deliver(succeeded)).status).toBe(200);
  const charge = (await standin<{ latest_charge: string }>("GET", `/v1/payment_intents/${paymentIntent}`)).body
    .latest_charge;
  const purchaseId = (await row<{ id: string }>("select id from purchases where payment_intent_id = ?", paymentIntent))!
    .id;
  const license = await row<{ id: string; key: string }>(
    "select id, key from license_keys where purchase_id = ?",
    purchaseId,
  );
  return { paymentIntent, buyerCookie, charge, purchaseId, succeeded, license };
}

const verify = async (body: Record<string, unknown>, headers: Record<string, string> = {}) => {
  const res = await call("/api/licenses/verify", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { http: res.status, body: await res.json<Verify>() };
};

async function deliverAllAbout(charge: string, paymentIntent: string) {
  const { body } = await standin<{
    data: { id: string; type: string; data: { object: { id: string; payment_intent?: string; charge?: string } } }[];
  }>("GET", "/v1/events", { limit: "100" });
  const mine = body.data
    .filter((e) =>
      [e.data.object.charge, e.data.object.payment_intent, e.data.object.id].some(
        (v) => v === charge || v === paymentIntent,
      ),
    )
    .reverse();
  for (const e of mine) expect((await deliver(e as never)).status).toBe(200);
}

describe("issuing", () => {
  it("a licensed item's purchase gets one key, even when the webhook comes twice", async () => {
    const { item } = await licensedItem("lic-issue@example.com", { issueLicenseKeys: "true", activationLimit: "3" });
    expect(item).toMatchObject({ issueLicenseKeys: true, activationLimit: 3 });
    const { purchaseId, succeeded, license } = await paid(item.id);
    expect(license?.key).toMatch(/^AW(-[0-9A-HJKMNP-TV-Z]{5}){4}$/);
    expect((await deliver(succeeded)).status).toBe(200);
    expect(await rows("select id from license_keys where purchase_id = ?", purchaseId)).toHaveLength(1);
    expect(await verify({ key: license!.key })).toEqual({
      http: 200,
      body: { status: "valid", item: { id: item.id, title: "Pixel Tool" }, activations: 0, limit: 3 },
    });
  });

  it("the buyer's receipt names the key", async () => {
    const { item } = await licensedItem("lic-mail@example.com");
    const { license } = await paid(item.id, "lic-mail-buyer@example.com");
    const mail = await waitForMail("lic-mail-buyer@example.com");
    expect(mail.text).toContain(`Your license key: ${license!.key}`);
    expect(mail.html).toContain(license!.key);
  });

  it("the owner's unlocked view and success page carry the key; the public paywall page never does", async () => {
    const { item } = await licensedItem("lic-owner@example.com");
    const { license, buyerCookie, paymentIntent } = await paid(item.id);
    const access = await (await call(`/api/content/${item.id}/access`, { cookie: buyerCookie })).json<{
      owned: boolean;
      verification: { purchase: { licenseKey: string } };
    }>();
    expect(access.verification.purchase.licenseKey).toBe(license!.key);
    const success = await (
      await call(`/api/purchase/verify?payment_intent=${paymentIntent}&content_id=${item.id}`, { cookie: buyerCookie })
    ).json<{ purchase: { licenseKey: string } }>();
    expect(success.purchase.licenseKey).toBe(license!.key);
    // Someone else's browser: not the owner, no key.
    expect(await (await call(`/api/content/${item.id}/access`)).json()).toMatchObject({ owned: false });
    for (const cookie of [undefined, buyerCookie]) {
      const page = await call(`/p/${item.id}`, { cookie });
      expect(page.status).toBe(200);
      expect(await page.text()).not.toContain(license!.key);
    }
  });

  it("an item without the setting issues no key", async () => {
    const { item } = await licensedItem("lic-none@example.com", {});
    expect(item.issueLicenseKeys).toBe(false);
    const { license } = await paid(item.id);
    expect(license).toBeNull();
  });

  it("the activation limit must be 1 to 1000: anything else is a 400 naming the field", async () => {
    const cookie = await signIn("lic-limit-form@example.com");
    for (const activationLimit of ["0", "1001", "2.5", "many"]) {
      const res = await postForm(
        "/api/content",
        contentForm({
          title: "T",
          price: "10",
          accessType: "link",
          linkUrl: "https://example.com/x",
          issueLicenseKeys: "true",
          activationLimit,
        }),
        cookie,
      );
      expect(res.status, activationLimit).toBe(400);
      expect((await res.json<{ message: string }>()).message).toMatch(/Activation limit/);
    }
  });

  it("an edit turns license keys on for later purchases", async () => {
    const { cookie, item } = await licensedItem("lic-edit@example.com", {});
    const res = await call(`/api/content/${item.id}`, {
      method: "PATCH",
      cookie,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ issueLicenseKeys: true, activationLimit: "2" }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ issueLicenseKeys: true, activationLimit: 2 });
    expect((await paid(item.id)).license).not.toBeNull();
  });
});

describe("status follows the purchase", () => {
  it("valid, stays valid after a partial refund, refunded after the rest is refunded", async () => {
    const { item } = await licensedItem("lic-refund@example.com");
    const { paymentIntent, charge, license } = await paid(item.id);
    await standin("POST", "/v1/refunds", { payment_intent: paymentIntent, amount: "300" });
    await deliverAllAbout(charge, paymentIntent);
    expect((await verify({ key: license!.key })).body.status).toBe("valid");
    await standin("POST", "/v1/refunds", { payment_intent: paymentIntent });
    await deliverAllAbout(charge, paymentIntent);
    expect((await verify({ key: license!.key })).body.status).toBe("refunded");
    // A refunded key takes no seat.
    expect(await verify({ key: license!.key, instance: "laptop" })).toMatchObject({
      http: 200,
      body: { status: "refunded", activations: 0 },
    });
  });

  it("a lost chargeback disables the key", async () => {
    const { item } = await licensedItem("lic-lost@example.com");
    const { paymentIntent, charge, license } = await paid(item.id);
    const dispute = await standin<{ id: string }>("POST", `/_standin/charges/${charge}/dispute`);
    await standin("POST", `/_standin/disputes/${dispute.body.id}/close`, { outcome: "lost" });
    await deliverAllAbout(charge, paymentIntent);
    expect((await verify({ key: license!.key })).body.status).toBe("disabled");
  });

  it("the creator disables and re-enables a key; someone else's key id is 404", async () => {
    const { cookie, item } = await licensedItem("lic-creator@example.com");
    const { license } = await paid(item.id);
    const other = await signIn("lic-stranger@example.com");
    expect((await postJson(`/api/licenses/${license!.id}/disable`, { reason: "x" }, other)).status).toBe(404);
    expect((await postJson(`/api/licenses/nope/disable`, {}, cookie)).status).toBe(404);
    const off = await postJson(`/api/licenses/${license!.id}/disable`, { reason: "shared on a forum" }, cookie);
    expect(off.status).toBe(200);
    expect(await off.json()).toMatchObject({ status: "disabled", disabledReason: "shared on a forum" });
    expect((await verify({ key: license!.key })).body.status).toBe("disabled");
    const sales = await (await call("/api/creator/sales", { cookie })).json<{ id: string; license: unknown }[]>();
    expect(sales[0].license).toMatchObject({
      id: license!.id,
      key: license!.key,
      status: "disabled",
      disabledByCreator: true,
      activations: 0,
      limit: null,
    });
    expect(await (await call("/api/creator/sales", { cookie: other })).json()).toEqual([]);
    expect((await postJson(`/api/licenses/${license!.id}/enable`, {}, other)).status).toBe(404);
    expect((await postJson(`/api/licenses/${license!.id}/enable`, {}, cookie)).status).toBe(200);
    expect((await verify({ key: license!.key })).body.status).toBe("valid");
  });
});

describe("verify and activations", () => {
  it("an unknown key is 404 not_found; a malformed body is 400", async () => {
    expect(await verify({ key: "AW-00000-00000-00000-00000" })).toMatchObject({
      http: 404,
      body: { status: "not_found", item: null, message: "License key not found" },
    });
    expect((await verify({ nokey: 1 })).http).toBe(400);
    expect((await verify({ key: "AW-1", instance: "x".repeat(201) })).http).toBe(400);
  });

  it("each instance takes one seat, again is a no-op, a new one past the limit is 409 limit_reached, deactivating frees it", async () => {
    const { item } = await licensedItem("lic-seats@example.com", { issueLicenseKeys: "true", activationLimit: "2" });
    const { license } = await paid(item.id);
    const key = license!.key.toLowerCase(); // keys are matched whatever their case
    expect(await verify({ key, instance: "laptop" })).toMatchObject({
      http: 200,
      body: { status: "valid", activations: 1, limit: 2 },
    });
    expect(await verify({ key, instance: "laptop" })).toMatchObject({
      http: 200,
      body: { status: "valid", activations: 1 },
    });
    expect(await verify({ key, instance: "desktop" })).toMatchObject({
      http: 200,
      body: { status: "valid", activations: 2 },
    });
    expect(await verify({ key, instance: "server" })).toMatchObject({
      http: 409,
      body: { status: "limit_reached", activations: 2, limit: 2 },
    });
    expect(await verify({ key, instance: "laptop" })).toMatchObject({
      http: 200,
      body: { status: "valid", activations: 2 },
    });
    const freed = await call("/api/licenses/deactivate", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ key, instance: "laptop" }),
    });
    expect(await freed.json()).toMatchObject({ status: "valid", activations: 1 });
    expect(await verify({ key, instance: "server" })).toMatchObject({
      http: 200,
      body: { status: "valid", activations: 2 },
    });
  });

  it("one key gets 20 checks a minute, then 429 with Retry-After; an address gets 60", async () => {
    const { item } = await licensedItem("lic-rate@example.com");
    const { license } = await paid(item.id);
    const statuses: number[] = [];
    for (let i = 0; i < 22; i++) statuses.push((await verify({ key: license!.key })).http);
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    const ip = { "cf-connecting-ip": "203.0.113.77" };
    const byIp: number[] = [];
    for (let i = 0; i < 61; i++)
      byIp.push((await verify({ key: `AW-IPTST-${String(i).padStart(5, "0")}-00000-00000` }, ip)).http);
    expect(byIp.slice(0, 60).every((s) => s === 404)).toBe(true);
    expect(byIp.at(-1)).toBe(429);
  });
});

describe("license.activated webhook", () => {
  it("a new seat writes one license.activated delivery in the seat's batch; the same instance again writes none", async () => {
    const { cookie, item } = await licensedItem("lic-hook@example.com");
    const endpoint = await postJson(
      "/api/developer/webhooks",
      { url: "http://127.0.0.1:9/hook", events: ["license.activated"] },
      cookie,
    );
    expect(endpoint.status).toBe(201);
    const { license, purchaseId } = await paid(item.id);
    expect((await verify({ key: license!.key, instance: "laptop" })).http).toBe(200);
    expect((await verify({ key: license!.key, instance: "laptop" })).http).toBe(200);
    const deliveries = await rows<{ type: string; payload: string }>(
      "select type, payload from webhook_deliveries where endpoint_id = ?",
      (await endpoint.json<{ id: string }>()).id,
    );
    expect(deliveries.map((d) => d.type)).toEqual(["license.activated"]);
    expect(JSON.parse(deliveries[0].payload)).toMatchObject({
      type: "license.activated",
      data: { licenseId: license!.id, purchaseId, itemId: item.id, instance: "laptop", activations: 1 },
    });
  });
});
