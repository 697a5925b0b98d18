// The success page the Worker renders (docs/pages.md): a paid purchase finished in the HTML with the
// spec's texts and its access as real links; a payment on its way as 'Verifying'; anyone without the
// cookie or the access link sees no purchase; bad input is a 4xx, never a 5xx.
import { describe, expect, it } from "vitest";
import { SUCCESS_DATA_ID, SUCCESS_TEXT, supportLine } from "../../../shared/success";
import { call, checkout, deliver, eventFor, standin } from "../support/helpers";
import { accept, buy, funnelSetup } from "../funnels/funnel-helpers";
import { creatorWithItem, purchaseOf } from "../payments/payment-fixtures";

const html = async (res: Response) => (await res.text()).replace(/&#39;/g, "'").replace(/&amp;/g, "&");

async function paid(email: string, fields: Record<string, string> = {}) {
  const { item } = await creatorWithItem(email, fields);
  const { paymentIntent, buyerCookie } = await checkout(item.id, { email: "reader@example.com" });
  return { item, paymentIntent, buyerCookie, purchase: (await purchaseOf(paymentIntent))! };
}

describe("the success page", () => {
  it("a paid purchase: every spec text, the download as a form, the access link, the policy, no-store", async () => {
    const { item, paymentIntent, buyerCookie, purchase } = await paid("success-page-paid@example.com");
    const res = await call(`/success?payment_intent=${paymentIntent}&content_id=${item.id}`, { cookie: buyerCookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    const policy = res.headers.get("content-security-policy")!;
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("style-src 'self' 'sha256-");
    const page = await html(res);
    for (const text of [
      SUCCESS_TEXT.paid,
      `Order #${purchase.id} • $10.00`,
      "Beats",
      SUCCESS_TEXT.copyLink,
      SUCCESS_TEXT.emailTitle,
      SUCCESS_TEXT.sendAgain,
      "We emailed your receipt and access link to r…@example.com.",
      ...SUCCESS_TEXT.info,
      supportLine(purchase.id),
      "← Return to Beats",
    ])
      expect(page).toContain(text);
    // The download works without JavaScript: a GET form to the file with the access link, as an attachment.
    expect(page).toMatch(new RegExp(`<form method="get" action="/api/purchases/${purchase.id}/file"`));
    expect(page).toContain('name="download" value="1"');
    expect(page).toContain('aria-label="Download beats.zip"');
    // The permanent link is a real link ('Copy Access Link'), and the island gets it too.
    expect(page).toMatch(/href="[^"]*\/success\?payment_intent=pi_\w+&content_id=\w+&access=[^"]+"/);
    expect(page).toContain(`id="${SUCCESS_DATA_ID}"`);
    expect(page).toContain("/assets/shell-success-");
    expect(page).not.toContain("reader@example.com");
  });

  it("the emailed access link opens it in another browser; the file form then downloads the file", async () => {
    const { paymentIntent, buyerCookie } = await paid("success-page-link@example.com");
    const verified = await call(`/api/purchase/verify?payment_intent=${paymentIntent}`, { cookie: buyerCookie });
    const { accessUrl } = await verified.json<{ accessUrl: string }>();
    const link = new URL(accessUrl);
    const res = await call(`${link.pathname}${link.search}`);
    expect(res.status).toBe(200);
    const page = await html(res);
    expect(page).toContain(SUCCESS_TEXT.paid);
    // Only the browser that paid may change the email: not this one.
    expect(page).not.toContain("Wrong email? Change it");
    const action = /<form method="get" action="([^"]+)"/.exec(page)![1];
    const file = await call(`${action}?access=${encodeURIComponent(link.searchParams.get("access")!)}&download=1`);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-disposition")).toContain("attachment");
    expect((await file.arrayBuffer()).byteLength).toBe(1000);
  });

  it("a payment still on its way is 'Verifying' (the island asks again), not found without the redirect's word", async () => {
    const { item } = await creatorWithItem("success-page-pending@example.com");
    const { paymentIntent, buyerCookie } = await checkout(item.id, { card: "none" });
    const verifying = await call(`/success?payment_intent=${paymentIntent}&redirect_status=processing`, {
      cookie: buyerCookie,
    });
    expect(verifying.status).toBe(200);
    const page = await html(verifying);
    expect(page).toContain(SUCCESS_TEXT.verifying.title);
    expect(page).toContain(SUCCESS_TEXT.verifying.description);
    expect(page).toContain(`"query":"payment_intent=${paymentIntent}"`);
    expect(page).not.toContain(SUCCESS_TEXT.paid);
    const abandoned = await call(`/success?payment_intent=${paymentIntent}`, { cookie: buyerCookie });
    expect(abandoned.status).toBe(404);
    expect(await abandoned.text()).toContain(SUCCESS_TEXT.notFound.title);
  });

  it("not found: the causes, the way home and 'Lost your access?'", async () => {
    const res = await call("/success?payment_intent=pi_doesnotexist");
    expect(res.status).toBe(404);
    const page = await html(res);
    for (const text of [SUCCESS_TEXT.notFound.title, SUCCESS_TEXT.notFound.intro, ...SUCCESS_TEXT.notFound.causes])
      expect(page).toContain(text);
    expect(page).toMatch(new RegExp(`<a href="/"[^>]*>${SUCCESS_TEXT.notFound.home}</a>`));
    expect(page).toContain("Lost your access? Enter the email you paid with");
    expect((await call("/success")).status).toBe(404);
  });

  it("a hostile caller with someone else's payment_intent, and no cookie or link, sees no purchase", async () => {
    const { item, paymentIntent, purchase } = await paid("success-page-hostile@example.com");
    const { buyerCookie: otherBrowser } = await checkout(item.id, { card: "none" });
    for (const cookie of [undefined, otherBrowser]) {
      const res = await call(`/success?payment_intent=${paymentIntent}&content_id=${item.id}`, { cookie });
      expect(res.status).toBe(404);
      const page = await res.text();
      expect(page).toContain(SUCCESS_TEXT.notFound.title);
      expect(page).not.toContain(purchase.id);
      expect(page).not.toContain("Beats");
    }
    // A forged access link is no better.
    const forged = await call(`/success?access=${encodeURIComponent(`${purchase.id}.AAAA`)}`);
    expect(forged.status).toBe(404);
    expect(await forged.text()).not.toContain(purchase.id);
  });

  it("a refunded purchase's link says so and since when", async () => {
    const { paymentIntent, buyerCookie } = await paid("success-page-refunded@example.com");
    await standin("POST", "/v1/refunds", { payment_intent: paymentIntent });
    expect((await deliver(await eventFor("charge.refunded", paymentIntent))).status).toBe(200);
    const res = await call(`/success?payment_intent=${paymentIntent}`, { cookie: buyerCookie });
    expect(res.status).toBe(200);
    const page = await html(res);
    expect(page).toMatch(/This order was refunded on \w{3} \d{1,2}, \d{4}/);
    expect(page).toContain("<title>This order was refunded · ApeWall</title>");
    expect(page).toContain("Go to the item");
    expect(page).not.toContain(SUCCESS_TEXT.paid);
  });

  it("back from paying with an offer waiting, this browser goes on to it (303); the access link alone, and later, the order", async () => {
    const { mainId, upsell } = await funnelSetup("success-page-funnel@example.com");
    const { paymentIntent, buyerCookie, purchaseId } = await buy(mainId);
    const back = `/success?payment_intent=${paymentIntent}&content_id=${mainId}&redirect_status=succeeded`;
    const res = await call(back, { cookie: buyerCookie });
    expect(res.status).toBe(303);
    const to = new URL(res.headers.get("location")!, "http://x");
    expect(to.pathname).toBe("/checkout/upsell");
    expect(to.searchParams.get("purchase")).toBe(purchaseId);
    expect(to.searchParams.get("access")).toMatch(new RegExp(`^${purchaseId}\\.`));
    // No offer for a browser that did not pay: the page itself (not found without the cookie).
    expect((await call(back)).status).toBe(404);

    // After an accept, the order's page lists what was added and the total charged, by the access link alone.
    expect((await accept(purchaseId, upsell.id, buyerCookie)).status).toBe(200);
    const order = await call(`/success?${new URLSearchParams({ access: to.searchParams.get("access")! })}`);
    expect(order.status).toBe(200);
    const page = await html(order);
    expect(page).toContain('data-testid="order-extras"');
    expect(page).toContain("Workbook");
    expect(page).toContain("Total charged");
  });

  it("bad query input is a 400 page, never a 5xx", async () => {
    for (const query of [
      "payment_intent=not-a-pi",
      "content_id=../../etc",
      `access=${"x".repeat(300)}`,
      "payment_intent=pi_%00",
      "payment_intent=pi_1&content_id=%3Cscript%3E",
    ]) {
      const res = await call(`/success?${query}`);
      expect(res.status, query).toBe(400);
      const page = await res.text();
      expect(page).toContain(SUCCESS_TEXT.notFound.title);
      expect(page).not.toContain("<script>");
    }
  });
});
