// Setup shared by the library's tests: a paid purchase made with an email, and signing in to the
// library through the real emailed link.
import { vi } from "vitest";
import { call, checkout, cookieValue, outbox, postJson, row } from "../support/helpers";
import { creatorWithItem } from "../payments/payment-fixtures";

export const LINK_SUBJECT = "Your ApeWall library link";

const libraryMails = async (email: string) =>
  (await outbox()).filter((m) => m.to === email && m.subject === LINK_SUBJECT);

/**
 * Asks for a library link for `email` and waits for it; the mailed link's token and the answer. The link
 * goes only to an address with a purchase, so one is made first when the address has none.
 */
export async function requestLibraryLink(email: string): Promise<{ token: string; res: Response; link: URL }> {
  const address = email.trim().toLowerCase();
  const bought = await row(
    "select 1 from purchases where lower(buyer_email) = ? and status in ('paid', 'refunded', 'disputed')",
    address,
  );
  if (!bought) await paidWith(`seller-of-${address}`, address);
  const before = (await libraryMails(address)).length;
  const res = await postJson("/api/library/link", { email });
  const mail = await vi.waitUntil(
    async () => {
      const mine = await libraryMails(email.trim().toLowerCase());
      return mine.length > before ? mine[0] : undefined;
    },
    { timeout: 10_000, interval: 100 },
  );
  const link = new URL(mail.links.find((l) => l.includes("/library#token="))!);
  return { token: new URLSearchParams(link.hash.slice(1)).get("token")!, res, link };
}

export const signInWith = (token: string) => postJson("/api/library/session", { token });

/** Signs in to the library of `email` and returns the cookie header. */
export async function libraryCookie(email: string): Promise<string> {
  const { token } = await requestLibraryLink(email);
  const res = await signInWith(token);
  if (res.status !== 200) throw new Error(`library sign-in ${res.status}: ${await res.text()}`);
  return `aw_library=${cookieValue(res, "aw_library")}`;
}

/** A purchase of a new item (creator `creatorEmail`) paid with `buyerEmail`; its row id and item. */
export async function paidWith(creatorEmail: string, buyerEmail: string, fields: Record<string, string | Blob> = {}) {
  const { item, cookie } = await creatorWithItem(creatorEmail, fields);
  const { paymentIntent, buyerCookie } = await checkout(item.id, { email: buyerEmail });
  // The success page's read settles the payment with Stripe, as a buyer's browser would.
  const verified = await call(`/api/purchase/verify?payment_intent=${paymentIntent}`, { cookie: buyerCookie });
  if (verified.status !== 200) throw new Error(`verify ${verified.status}`);
  const purchase = (await row<{ id: string }>("select id from purchases where payment_intent_id = ?", paymentIntent))!;
  return { item, creatorCookie: cookie, paymentIntent, buyerCookie, purchaseId: purchase.id };
}
