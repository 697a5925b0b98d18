// What a signed-in buyer reads in the library: every purchase paid with their address across
// creators, newest first, each opened as its access link would be; nobody else's; refunded and
// disputed ones said so and closed (docs/library.md).
import { describe, expect, it } from "vitest";
import type { LibraryAccess, LibraryList, LibraryReceipt } from "../../../shared/library";
import { call, checkout, deliver, eventFor, postJson, row, rows, standin } from "../support/helpers";
import { libraryCookie, paidWith } from "./library-fixtures";

const list = async (cookie: string) => (await call("/api/library/purchases", { cookie })).json<LibraryList>();

describe("the library's list", () => {
  it("lists every paid purchase made with the address, across creators, newest first; never an unpaid checkout", async () => {
    const buyer = "lib-two@example.com";
    const first = await paidWith("lib-two-a@example.com", buyer, { title: "First thing" });
    // Bought with the address in another case: the same buyer.
    const second = await paidWith("lib-two-b@example.com", "LIB-Two@example.com", { title: "Second thing" });
    await checkout(first.item.id, { email: buyer, card: "none" }); // never paid
    await paidWith("lib-two-c@example.com", "someone-else@example.com", { title: "Not theirs" });
    // An address stored as Stripe gave it (the admin's email repair copies it as is) is still theirs.
    await rows("update purchases set buyer_email = ? where id = ?", "LIB-Two@Example.COM", second.purchaseId);

    const cookie = await libraryCookie(buyer);
    const answer = await list(cookie);
    expect(answer.email).toBe(buyer);
    expect(answer.purchases.map((p) => p.title)).toEqual(["Second thing", "First thing"]);
    const [b, a] = answer.purchases;
    expect(a).toMatchObject({ id: first.purchaseId, contentId: first.item.id, amount: 10, state: "paid" });
    expect(b).toMatchObject({ id: second.purchaseId, state: "paid", revokedAt: null, accessType: "download" });
    expect(Date.parse(b.purchasedAt)).toBeGreaterThanOrEqual(Date.parse(a.purchasedAt));
    expect(b.creator).toHaveProperty("name");
  });

  it("an address with nothing left in it (its one order moved to another address) gets an empty list", async () => {
    const cookie = await libraryCookie("lib-empty@example.com");
    await rows(
      "update purchases set buyer_email = 'lib-empty-moved@example.com' where buyer_email = 'lib-empty@example.com'",
    );
    expect(await list(cookie)).toEqual({ email: "lib-empty@example.com", purchases: [], nextCursor: null });
  });
});

describe("each purchase, as its access link opens it", () => {
  it("gives what /api/purchase/verify gives, with the token that downloads the file", async () => {
    const bought = await paidWith("lib-open-creator@example.com", "lib-open@example.com", {
      issueLicenseKeys: "true",
    });
    const cookie = await libraryCookie("lib-open@example.com");
    const res = await call(`/api/library/purchases/${bought.purchaseId}`, { cookie });
    expect(res.status).toBe(200);
    const { verification, access } = await res.json<LibraryAccess>();
    const viaLink = await (await call(`/api/purchase/verify?access=${encodeURIComponent(access)}`)).json();
    expect(verification).toEqual(viaLink);
    expect(verification.purchase.licenseKey).toBeTruthy();
    // The download works with that token, as on the success page.
    const link = await postJson(`/api/content/${bought.item.id}/download`, { access });
    expect(link.status).toBe(200);
    const file = await call((await link.json<{ url: string }>()).url);
    expect(file.status).toBe(200);
    expect((await file.arrayBuffer()).byteLength).toBe(1000);

    const receipt = await (
      await call(`/api/library/purchases/${bought.purchaseId}/receipt`, { cookie })
    ).json<LibraryReceipt>();
    expect(receipt).toMatchObject({
      orderId: bought.purchaseId,
      title: "Beats",
      amount: 10,
      state: "paid",
      emailedTo: "lib-open@example.com",
      licenseKey: verification.purchase.licenseKey,
      accessUrl: verification.accessUrl,
    });
  });

  it("another buyer's purchase id is a 404, like one that does not exist; so is a malformed id", async () => {
    const mine = await paidWith("lib-own-a@example.com", "lib-own-me@example.com");
    const theirs = await paidWith("lib-own-b@example.com", "lib-own-them@example.com");
    const cookie = await libraryCookie("lib-own-me@example.com");
    expect((await call(`/api/library/purchases/${mine.purchaseId}`, { cookie })).status).toBe(200);
    for (const path of [
      `/api/library/purchases/${theirs.purchaseId}`,
      `/api/library/purchases/${theirs.purchaseId}/receipt`,
      "/api/library/purchases/NoSuchPurchase12",
    ]) {
      const res = await call(path, { cookie });
      expect(res.status, path).toBe(404);
      expect(await res.json()).toEqual({ message: "Purchase Not Found" });
    }
    expect((await call("/api/library/purchases/bad-id!", { cookie })).status).toBe(400);
    // Not signed in (or only as a creator): 401, whichever purchase.
    expect((await call(`/api/library/purchases/${mine.purchaseId}`)).status).toBe(401);
    expect((await call(`/api/library/purchases/${mine.purchaseId}`, { cookie: mine.creatorCookie })).status).toBe(401);
  });
});

describe("refunded and disputed purchases", () => {
  it("are listed as such and open nothing, exactly as the access link", async () => {
    const buyer = "lib-revoked@example.com";
    const refunded = await paidWith("lib-revoked-a@example.com", buyer, { title: "Refunded thing" });
    const disputed = await paidWith("lib-revoked-b@example.com", buyer, { title: "Disputed thing" });
    await standin("POST", "/v1/refunds", { payment_intent: refunded.paymentIntent });
    expect((await deliver(await eventFor("charge.refunded", refunded.paymentIntent))).status).toBe(200);
    const charge = (await standin<{ latest_charge: string }>("GET", `/v1/payment_intents/${disputed.paymentIntent}`))
      .body.latest_charge;
    const dispute = await standin<{ id: string }>("POST", `/_standin/charges/${charge}/dispute`);
    expect((await deliver(await eventFor("charge.dispute.created", dispute.body.id))).status).toBe(200);
    const states = async () =>
      (await row<{ s: string }>(
        "select group_concat(status) as s from purchases where id in (?, ?)",
        refunded.purchaseId,
        disputed.purchaseId,
      ))!.s;
    expect((await states()).split(",").sort()).toEqual(["disputed", "refunded"]);

    const cookie = await libraryCookie(buyer);
    const shown = (await list(cookie)).purchases;
    expect(shown.find((p) => p.id === refunded.purchaseId)).toMatchObject({
      state: "refunded",
      revokedAt: expect.any(String),
    });
    expect(shown.find((p) => p.id === disputed.purchaseId)).toMatchObject({ state: "disputed" });
    for (const p of [refunded, disputed]) {
      const open = await call(`/api/library/purchases/${p.purchaseId}`, { cookie });
      expect(open.status).toBe(403);
      expect(await open.json()).toEqual({ message: "Access to this purchase was revoked after a refund or dispute" });
      const receipt = await (
        await call(`/api/library/purchases/${p.purchaseId}/receipt`, { cookie })
      ).json<LibraryReceipt>();
      expect(receipt.accessUrl).toBeNull();
      expect(receipt.licenseKey).toBeNull();
      expect(receipt.state).not.toBe("paid");
    }
  });
});
