// The success page (docs/pages.md) held by someone who is not the buyer's browser: a leaked access
// link reads the order and nothing more (no change of address, the address masked, no offer, never
// cached); a payment_intent with the caller's own buyer cookie finds nothing.
import { expect, it } from "vitest";
import { SUCCESS_DATA_ID, type SuccessData } from "../../../shared/success";
import { call, checkout } from "../support/helpers";
import { creatorWithItem, purchaseOf } from "../payments/payment-fixtures";

const dataOf = (page: string) =>
  JSON.parse(new RegExp(`id="${SUCCESS_DATA_ID}">([^<]*)</script>`).exec(page)![1]) as Extract<
    SuccessData,
    { state: "paid" }
  >;

it("a leaked access link reads the order only: no change of address, the address masked, no offer, no-store", async () => {
  const { item } = await creatorWithItem("success-hostile-seller@example.com");
  const { paymentIntent, buyerCookie } = await checkout(item.id, { email: "victim-buyer@example.com" });
  const purchase = (await purchaseOf(paymentIntent))!;
  const own = await call(`/success?payment_intent=${paymentIntent}&content_id=${item.id}`, { cookie: buyerCookie });
  const ownPage = await own.text();
  // The paying browser may change the address (so the check below means something).
  expect(ownPage).toContain('data-testid="change-email-open"');
  const { accessUrl } = dataOf(ownPage);
  const access = new URL(accessUrl, "http://x").searchParams.get("access")!;

  const { buyerCookie: stranger } = await checkout(item.id, { card: "none" });
  for (const cookie of [undefined, stranger]) {
    const res = await call(`/success?access=${encodeURIComponent(access)}&redirect_status=succeeded`, { cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    const page = await res.text();
    expect(page).toContain(purchase.id);
    expect(page).not.toContain("victim-buyer@example.com");
    expect(page).not.toContain('data-testid="change-email-open"');
    expect(dataOf(page).hadAddress).toBe(true);
    // The stranger's own cookie with the victim's payment: nothing.
    const guessed = await call(`/success?payment_intent=${paymentIntent}&redirect_status=succeeded`, { cookie });
    expect(guessed.status).toBe(404);
    expect(await guessed.text()).not.toContain(purchase.id);
  }
});
