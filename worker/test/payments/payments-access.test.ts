import { describe, expect, it } from "vitest";
import { call, checkout, deliver, env, eventFor, outbox, postJson, standin, waitForMail } from "../support/helpers";
import { bytes, creatorWithItem, purchaseOf, ledgerOf } from "./payment-fixtures";

describe("access", () => {
  it("the paying browser verifies without waiting for the webhook; another browser gets nothing", async () => {
    const { item } = await creatorWithItem("verify@example.com");
    const { paymentIntent, buyerCookie } = await checkout(item.id, { email: "verify-buyer@example.com" });
    const stranger = await call(`/api/purchase/verify?payment_intent=${paymentIntent}&content_id=${item.id}`);
    expect(stranger.status).toBe(404);
    const otherBrowser = await call(`/api/purchase/verify?payment_intent=${paymentIntent}&content_id=${item.id}`, {
      cookie: "aw_buyer=someone-elses-browser-key-000000",
    });
    expect(otherBrowser.status).toBe(404);

    const res = await call(`/api/purchase/verify?payment_intent=${paymentIntent}&content_id=${item.id}`, {
      cookie: buyerCookie,
    });
    expect(res.status).toBe(200);
    const body = await res.json<{
      content: { fileUrl: string; fileName: string; title: string };
      purchase: { id: string };
      accessUrl: string;
    }>();
    expect(body.content).toMatchObject({ title: "Beats", fileName: "beats.zip" });
    expect((await purchaseOf(paymentIntent))?.status).toBe("paid");

    // The access link works in a fresh browser, without the buyer cookie.
    const access = new URL(body.accessUrl);
    expect(access.pathname).toBe("/success");
    const fresh = await call(`/api/purchase/verify?${access.searchParams}`);
    expect(fresh.status).toBe(200);
    expect((await fresh.json<{ purchase: { id: string } }>()).purchase.id).toBe(body.purchase.id);

    const file = await call(body.content.fileUrl);
    expect(file.status).toBe(200);
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(bytes(1000));
    expect(file.headers.get("x-content-type-options")).toBe("nosniff");
    expect(file.headers.get("cache-control")).toContain("private");
    expect(file.headers.get("content-disposition")).toContain("attachment");

    // The emailed receipt carries the same permanent link.
    const mail = await waitForMail("verify-buyer@example.com");
    expect(mail.subject).toBe("Your access to Beats");
    expect(mail.links).toContain(body.accessUrl);
  });

  it("another purchase's token gets nothing", async () => {
    const { item: a } = await creatorWithItem("tok-a@example.com");
    const { item: b } = await creatorWithItem("tok-b@example.com");
    const buyA = await checkout(a.id);
    const buyB = await checkout(b.id);
    const va = await (
      await call(`/api/purchase/verify?payment_intent=${buyA.paymentIntent}`, { cookie: buyA.buyerCookie })
    ).json<{ accessUrl: string; purchase: { id: string } }>();
    const vb = await (
      await call(`/api/purchase/verify?payment_intent=${buyB.paymentIntent}`, { cookie: buyB.buyerCookie })
    ).json<{ purchase: { id: string } }>();
    const tokenA = new URL(va.accessUrl).searchParams.get("access")!;
    expect((await call(`/api/purchases/${vb.purchase.id}/file?access=${encodeURIComponent(tokenA)}`)).status).toBe(403);
    expect(
      (await call(`/api/purchase/verify?payment_intent=${buyB.paymentIntent}&access=${encodeURIComponent(tokenA)}`))
        .status,
    ).toBe(404);
    const forged = `${vb.purchase.id}.${tokenA.split(".")[1]}`;
    expect((await call(`/api/purchases/${vb.purchase.id}/file?access=${encodeURIComponent(forged)}`)).status).toBe(403);
    expect((await call(`/api/content/${b.id}/download`, { method: "POST", cookie: buyA.buyerCookie })).status).toBe(
      404,
    );
  });

  it("a refund revokes access: the file then answers 403", async () => {
    const { item } = await creatorWithItem("refund@example.com");
    const { paymentIntent, buyerCookie } = await checkout(item.id);
    const v = await (await call(`/api/purchase/verify?payment_intent=${paymentIntent}`, { cookie: buyerCookie })).json<{
      content: { fileUrl: string };
    }>();
    const served = await call(v.content.fileUrl);
    expect(served.status).toBe(200);
    await served.arrayBuffer();
    await standin("POST", "/v1/refunds", { payment_intent: paymentIntent });
    expect((await deliver(await eventFor("charge.refunded", paymentIntent))).status).toBe(200);
    expect((await call(v.content.fileUrl)).status).toBe(403);
    expect((await call(`/api/purchase/verify?payment_intent=${paymentIntent}`, { cookie: buyerCookie })).status).toBe(
      403,
    );
    expect((await call(`/api/content/${item.id}/download`, { method: "POST", cookie: buyerCookie })).status).toBe(403);
  });

  it("a dispute revokes access and reverses the sale", async () => {
    const { item } = await creatorWithItem("dispute@example.com");
    const { paymentIntent, buyerCookie } = await checkout(item.id);
    await deliver(await eventFor("payment_intent.succeeded", paymentIntent));
    const pi = await standin<{ latest_charge: string }>("GET", `/v1/payment_intents/${paymentIntent}`);
    await standin("POST", `/_standin/charges/${pi.body.latest_charge}/dispute`);
    expect((await deliver(await eventFor("charge.dispute.created", pi.body.latest_charge))).status).toBe(200);
    const purchase = await purchaseOf(paymentIntent);
    expect(purchase?.status).toBe("disputed");
    const ledger = await ledgerOf(purchase!.id);
    expect(ledger.reduce((a, l) => a + l.amount_cents, 0)).toBe(0);
    expect((await call(`/api/purchase/verify?payment_intent=${paymentIntent}`, { cookie: buyerCookie })).status).toBe(
      403,
    );
  });

  it("an inquiry moves no money; a won dispute gives the money and the access back", async () => {
    const { item } = await creatorWithItem("won@example.com");
    const { paymentIntent, buyerCookie } = await checkout(item.id);
    await deliver(await eventFor("payment_intent.succeeded", paymentIntent));
    const charge = (await standin<{ latest_charge: string }>("GET", `/v1/payment_intents/${paymentIntent}`)).body
      .latest_charge;
    const purchaseId = (await purchaseOf(paymentIntent))!.id;

    const inquiry = await standin<{ id: string }>("POST", `/_standin/charges/${charge}/dispute`, { inquiry: "true" });
    await deliver(await eventFor("charge.dispute.created", inquiry.body.id));
    expect((await purchaseOf(paymentIntent))?.status).toBe("paid");
    expect(await ledgerOf(purchaseId)).toHaveLength(2);

    const chargeback = await standin<{ id: string }>("POST", `/_standin/charges/${charge}/dispute`);
    await deliver(await eventFor("charge.dispute.created", chargeback.body.id));
    expect((await purchaseOf(paymentIntent))?.status).toBe("disputed");
    expect((await call(`/api/content/${item.id}/download`, { method: "POST", cookie: buyerCookie })).status).toBe(403);

    await standin("POST", `/_standin/disputes/${chargeback.body.id}/close`, { outcome: "won" });
    const closed = await eventFor("charge.dispute.closed", chargeback.body.id);
    expect((await deliver(closed)).status).toBe(200);
    expect((await deliver(closed)).status).toBe(200);
    expect((await purchaseOf(paymentIntent))?.status).toBe("paid");
    const ledger = await ledgerOf(purchaseId);
    expect(ledger.filter((l) => l.account === "creator").reduce((a, l) => a + l.amount_cents, 0)).toBe(800);
    expect(ledger.filter((l) => l.account === "platform").reduce((a, l) => a + l.amount_cents, 0)).toBe(200);
    expect((await call(`/api/content/${item.id}/download`, { method: "POST", cookie: buyerCookie })).status).toBe(200);
  });

  it("a refund after a chargeback is refused by Stripe and reverses nothing more than the sale", async () => {
    const { item } = await creatorWithItem("both@example.com");
    const { paymentIntent } = await checkout(item.id);
    await deliver(await eventFor("payment_intent.succeeded", paymentIntent));
    const charge = (await standin<{ latest_charge: string }>("GET", `/v1/payment_intents/${paymentIntent}`)).body
      .latest_charge;
    const dispute = await standin<{ id: string }>("POST", `/_standin/charges/${charge}/dispute`);
    await deliver(await eventFor("charge.dispute.created", dispute.body.id));
    // Stripe refuses to refund a charge whose chargeback took its funds (error code charge_disputed).
    const refused = await standin<{ error: { code: string } }>("POST", "/v1/refunds", {
      payment_intent: paymentIntent,
    });
    expect([refused.status, refused.body.error.code]).toEqual([400, "charge_disputed"]);
    await deliver({ ...(await eventFor("charge.dispute.created", dispute.body.id)), id: "evt_redelivered_both" });
    const ledger = await ledgerOf((await purchaseOf(paymentIntent))!.id);
    expect(ledger.reduce((a, l) => a + l.amount_cents, 0)).toBe(0);
    expect(ledger.filter((l) => l.account === "creator").reduce((a, l) => a + l.amount_cents, 0)).toBe(0);
  });

  it("a chargeback and a refund handled at the same moment still reverse only the sale", async () => {
    const { item } = await creatorWithItem("same-moment@example.com");
    const { paymentIntent } = await checkout(item.id);
    await deliver(await eventFor("payment_intent.succeeded", paymentIntent));
    const charge = (await standin<{ latest_charge: string }>("GET", `/v1/payment_intents/${paymentIntent}`)).body
      .latest_charge;
    // A partial refund, then a chargeback of the whole amount (Stripe withdraws the disputed amount).
    expect((await standin("POST", "/v1/refunds", { payment_intent: paymentIntent, amount: "500" })).status).toBe(200);
    const dispute = await standin<{ id: string }>("POST", `/_standin/charges/${charge}/dispute`);
    const events = [
      await eventFor("charge.dispute.created", dispute.body.id),
      await eventFor("charge.refunded", paymentIntent),
    ];
    const answers = await Promise.all([...events, ...events].map((e) => deliver(e)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    const ledger = await ledgerOf((await purchaseOf(paymentIntent))!.id);
    expect(ledger.filter((l) => l.account === "creator").reduce((a, l) => a + l.amount_cents, 0)).toBe(0);
    expect(ledger.filter((l) => l.account === "platform").reduce((a, l) => a + l.amount_cents, 0)).toBe(0);
  });

  it("partial refunds add up to the creator's cut exactly", async () => {
    const { item } = await creatorWithItem("partial@example.com", { price: "9.99" });
    const { paymentIntent } = await checkout(item.id);
    await deliver(await eventFor("payment_intent.succeeded", paymentIntent));
    for (const amount of ["333", "333", "333"]) {
      await standin("POST", "/v1/refunds", { payment_intent: paymentIntent, amount });
      await deliver(await eventFor("charge.refunded", paymentIntent));
    }
    const ledger = await ledgerOf((await purchaseOf(paymentIntent))!.id);
    expect(ledger.filter((l) => l.kind === "refund")).toHaveLength(6);
    expect(ledger.filter((l) => l.account === "creator").reduce((a, l) => a + l.amount_cents, 0)).toBe(0);
    expect(ledger.filter((l) => l.account === "platform").reduce((a, l) => a + l.amount_cents, 0)).toBe(0);
  });

  it("an unfinished later checkout does not hide a paid purchase from its browser", async () => {
    const { item } = await creatorWithItem("again@example.com");
    // Two tabs: both checkouts start before the first is paid.
    const { buyerCookie, paymentIntent, clientSecret } = await checkout(item.id, { card: "none" });
    await checkout(item.id, { buyerCookie, card: "none" });
    await standin(
      "POST",
      `/v1/payment_intents/${paymentIntent}/confirm`,
      { client_secret: clientSecret, payment_method: "pm_card_visa" },
      "pk_test_worker",
    );
    expect((await call(`/api/content/${item.id}/download`, { method: "POST", cookie: buyerCookie })).status).toBe(200);
    expect(
      await (
        await call(`/api/content/${item.id}/process-recent-purchase`, { method: "POST", cookie: buyerCookie })
      ).json(),
    ).toEqual({ status: "paid", unlocked: true });
  });

  it("buyers keep access to an item its creator deleted", async () => {
    const { item, cookie } = await creatorWithItem("keep@example.com");
    const { paymentIntent, buyerCookie } = await checkout(item.id);
    await call(`/api/content/${item.id}`, { method: "DELETE", cookie });
    const link = await call(`/api/content/${item.id}/download`, { method: "POST", cookie: buyerCookie });
    expect(link.status).toBe(200);
    const res = await call((await link.json<{ url: string }>()).url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toContain('filename="beats.zip"');
    expect((await res.arrayBuffer()).byteLength).toBe(1000);
    expect((await call(`/api/purchase/verify?payment_intent=${paymentIntent}`, { cookie: buyerCookie })).status).toBe(
      200,
    );
  });

  it("when Stripe cannot be asked, the browser hears 'still processing', not a server error", async () => {
    const { item } = await creatorWithItem("unknown-pi@example.com");
    const { paymentIntent, buyerCookie } = await checkout(item.id, { card: "none" });
    await env.DB.prepare("update purchases set payment_intent_id = 'pi_forgottenbystripe' where payment_intent_id = ?")
      .bind(paymentIntent)
      .run();
    const res = await call(`/api/purchase/verify?payment_intent=pi_forgottenbystripe&content_id=${item.id}`, {
      cookie: buyerCookie,
    });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ message: "Payment is still processing" });
  });

  it("process-recent-purchase and complete unlock only the paying browser", async () => {
    const { item } = await creatorWithItem("recent@example.com");
    const { paymentIntent, buyerCookie } = await checkout(item.id);
    expect(await (await call(`/api/content/${item.id}/process-recent-purchase`, { method: "POST" })).json()).toEqual({
      status: "none",
      unlocked: false,
    });
    expect(
      await (
        await call(`/api/content/${item.id}/process-recent-purchase`, { method: "POST", cookie: buyerCookie })
      ).json(),
    ).toEqual({ status: "paid", unlocked: true });
    expect((await call(`/api/payments/${paymentIntent}/complete`, { method: "POST" })).status).toBe(404);
    expect(
      await (await call(`/api/payments/${paymentIntent}/complete`, { method: "POST", cookie: buyerCookie })).json(),
    ).toEqual({ status: "paid", unlocked: true });
  });

  it("sends an access reminder by email once per ten minutes", async () => {
    const { item } = await creatorWithItem("remind@example.com");
    const { paymentIntent, buyerCookie } = await checkout(item.id, { email: "remind-buyer@example.com" });
    await call(`/api/purchase/verify?payment_intent=${paymentIntent}`, { cookie: buyerCookie });
    await waitForMail("remind-buyer@example.com");
    const send = () =>
      postJson("/api/purchase/send-access-email", { paymentIntentId: paymentIntent, contentId: item.id }, buyerCookie);
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(200);
    await waitForMail("remind-buyer@example.com", 1);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await outbox()).filter((m) => m.to === "remind-buyer@example.com")).toHaveLength(2);
    expect(
      (await postJson("/api/purchase/send-access-email", { paymentIntentId: paymentIntent, contentId: item.id }))
        .status,
    ).toBe(404);
  });
});

describe("HTTP Range on purchased files", () => {
  it("answers 206, 416 and 304 as players expect", async () => {
    const { item } = await creatorWithItem("range@example.com", {
      accessType: "stream",
      file: new File([bytes(1000)], "clip.mp4", { type: "video/mp4" }),
    });
    const { paymentIntent, buyerCookie } = await checkout(item.id);
    const v = await (await call(`/api/purchase/verify?payment_intent=${paymentIntent}`, { cookie: buyerCookie })).json<{
      content: { fileUrl: string };
    }>();
    const url = v.content.fileUrl;
    const all = bytes(1000);

    const full = await call(url);
    expect(full.status).toBe(200);
    expect(full.headers.get("accept-ranges")).toBe("bytes");
    expect(full.headers.get("content-type")).toBe("video/mp4");
    expect(full.headers.get("content-disposition")).toContain("inline");
    expect(full.headers.get("content-length")).toBe("1000");
    const etag = full.headers.get("etag")!;
    await full.arrayBuffer();

    const cases: [string, number, string, Uint8Array][] = [
      ["bytes=0-9", 206, "bytes 0-9/1000", all.slice(0, 10)],
      ["bytes=990-", 206, "bytes 990-999/1000", all.slice(990)],
      ["bytes=-5", 206, "bytes 995-999/1000", all.slice(995)],
      ["bytes=500-5000", 206, "bytes 500-999/1000", all.slice(500)],
    ];
    for (const [range, status, contentRange, expected] of cases) {
      const res = await call(url, { headers: { range } });
      expect(res.status, range).toBe(status);
      expect(res.headers.get("content-range")).toBe(contentRange);
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(expected);
    }
    for (const range of ["bytes=1000-", "bytes=5-2", "bytes=-0"]) {
      const res = await call(url, { headers: { range } });
      expect(res.status, range).toBe(416);
      expect(res.headers.get("content-range")).toBe("bytes */1000");
    }
    expect((await call(url, { headers: { "if-none-match": etag } })).status).toBe(304);
    const stale = await call(url, { headers: { range: "bytes=0-9", "if-range": '"old"' } });
    expect(stale.status).toBe(200);
    await stale.arrayBuffer();
    const head = await call(url, { method: "HEAD", headers: { range: "bytes=0-99" } });
    expect(head.status).toBe(206);
    expect(head.headers.get("content-length")).toBe("100");
    expect(head.headers.get("content-range")).toBe("bytes 0-99/1000");
  });

  it("never serves a user's HTML as a page", async () => {
    const { item } = await creatorWithItem("html@example.com", {
      accessType: "view",
      file: new File(["<script>alert(document.cookie)</script>"], "evil.html", { type: "text/html" }),
    });
    const { paymentIntent, buyerCookie } = await checkout(item.id);
    const v = await (await call(`/api/purchase/verify?payment_intent=${paymentIntent}`, { cookie: buyerCookie })).json<{
      content: { fileUrl: string };
    }>();
    const res = await call(v.content.fileUrl);
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    expect(res.headers.get("content-disposition")).toContain("attachment");
    expect(res.headers.get("content-security-policy")).toContain("sandbox");
    expect(await res.text()).toContain("<script>");
  });
});
