// Review of tax at checkout (docs/tax.md, "What the creator sees"): a creator's change of "Prices
// include tax" applies to checkouts started after it; a checkout already open keeps its price.
import { describe, expect, it } from "vitest";
import { creatorWithItem } from "../payments/payment-fixtures";
import { call, postJson } from "../support/helpers";
import { intentOf, openAt } from "./tax-support";

const putJson = (path: string, body: unknown, cookie?: string) =>
  call(path, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(body), cookie });

describe("a creator changes tax-inclusive prices while a checkout is open", () => {
  it("the open checkout's change of terms keeps its inclusive price; a new checkout adds the tax on top", async () => {
    const { item, cookie } = await creatorWithItem("review-behavior@example.com");
    const c = await openAt("FR", { contentId: item.id });
    expect(c).toMatchObject({ amount: 10, tax: { amount: 1.67, inclusive: true } });
    expect((await putJson("/api/settings/tax", { behavior: "exclusive" }, cookie)).status).toBe(200);

    // The buyer ticks nothing new, only sends the terms again (as the page does on a VAT number cleared).
    const res = await postJson(
      "/api/checkout/terms",
      { paymentIntent: c.paymentIntent, bump: false, vatId: "" },
      c.cookie,
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ amount: 10, tax: { amount: 1.67, inclusive: true } });
    expect((await intentOf(c.paymentIntent)).amount).toBe(1000);

    const later = await openAt("FR", { contentId: item.id });
    expect(later).toMatchObject({ amount: 12, tax: { amount: 2, inclusive: false } });
  });
});
