// The rows of an open checkout as a PaymentIntent charged them: its one hold on a code, and fulfilment's
// repair that writes back the exact cents of each part a change of terms recorded in the PaymentIntent's
// metadata. Behaviour: docs/checkout-and-codes.md ("A mismatch on a succeeded payment is retried").
import type Stripe from "stripe";
import { newId } from "../../lib/ids";
import type { PurchaseDeps, PurchaseRow } from "./deps";

export type HoldRow = { id: string; code_id: string; buyer: string; browser: string | null; created_at: number };

/** Sets the pending checkout's one hold to `hold` (its code, buyer and time). */
export const holdStatement = (d1: D1Database, purchaseId: string, hold: HoldRow) =>
  d1
    .prepare(
      `insert into discount_redemptions (id, code_id, purchase_id, buyer, browser, created_at)
       select ?, ?, ?, ?, ?, ? where exists (select 1 from purchases where id = ?3 and status = 'pending')
       on conflict (purchase_id) do update set code_id = excluded.code_id, buyer = excluded.buyer,
         browser = excluded.browser, created_at = excluded.created_at`,
    )
    .bind(hold.id, hold.code_id, purchaseId, hold.buyer, hold.browser, hold.created_at);

/** The rows of pending checkout `main` set to the parts a PaymentIntent's metadata says it charged. */
export async function writeChargedTerms(deps: PurchaseDeps, main: PurchaseRow, m: Stripe.Metadata): Promise<boolean> {
  const cents = (v: string | undefined) => (v && /^\d{1,9}$/.test(v) ? Number(v) : null);
  const mainCents = cents(m.mainCents);
  const bumpCents = cents(m.bumpCents);
  if (mainCents === null || (m.bumpPurchaseId && (bumpCents === null || !m.bumpContentId))) return false;
  console.error("checkout rows differ from the parts the PaymentIntent charged; writing them back", main.id);
  const d1 = deps.d1;
  const pending = "exists (select 1 from purchases where id = ?1 and status = 'pending')";
  const codeId = m.discountCodeId || null;
  await d1.batch([
    d1
      .prepare(
        "update purchases set amount_cents = ?2, discount_code_id = ?3, discount_cents = ?4 where id = ?1 and status = 'pending'",
      )
      .bind(main.id, mainCents, codeId, cents(m.discountCents) ?? 0),
    codeId
      ? holdStatement(d1, main.id, {
          id: newId(),
          code_id: codeId,
          buyer: main.buyerEmail?.toLowerCase() ?? `browser:${main.buyerKeyHash ?? ""}`,
          browser: main.buyerKeyHash,
          created_at: Date.now(),
        })
      : d1.prepare(`delete from discount_redemptions where purchase_id = ?1 and ${pending}`).bind(main.id),
    // The add-on it charged for, at the cents charged; any other pending add-on of the checkout goes.
    d1
      .prepare(`delete from purchases where bump_of = ?1 and status = 'pending' and id != ?2 and ${pending}`)
      .bind(main.id, m.bumpPurchaseId || ""),
    ...(m.bumpPurchaseId
      ? [
          d1
            .prepare(`update purchases set amount_cents = ?3 where id = ?2 and bump_of = ?1 and status = 'pending'`)
            .bind(main.id, m.bumpPurchaseId, bumpCents),
          d1
            .prepare(
              `insert into purchases (id, content_id, creator_id, buyer_email, amount_cents, currency, status, stripe_customer_id, buyer_key_hash, bump_of, created_at)
               select ?2, ?3, ?4, ?5, ?6, ?7, 'pending', ?8, ?9, ?1, ?10
               where not exists (select 1 from purchases where id = ?2) and ${pending}`,
            )
            .bind(
              main.id,
              m.bumpPurchaseId,
              m.bumpContentId,
              main.creatorId,
              main.buyerEmail,
              bumpCents,
              main.currency,
              main.stripeCustomerId,
              main.buyerKeyHash,
              Date.now(),
            ),
        ]
      : []),
  ]);
  return true;
}
