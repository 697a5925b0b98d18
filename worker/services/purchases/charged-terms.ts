// The statements that write an open checkout's rows (its main row's terms, its one add-on, its one
// hold on a code), and fulfilment's repair that writes back the exact cents of each part a change of
// terms recorded in the PaymentIntent's metadata. Behaviour: docs/checkout-and-codes.md.
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

/** The main row of an open checkout priced at `amountCents` with its code, only while it is pending. */
export const setMainTerms = (
  d1: D1Database,
  id: string,
  t: { amountCents: number; discountCodeId: string | null; discountCents: number },
) =>
  d1
    .prepare(
      "update purchases set amount_cents = ?, discount_code_id = ?, discount_cents = ? where id = ? and status = 'pending'",
    )
    .bind(t.amountCents, t.discountCodeId, t.discountCents, id);

type AddOnRow = Pick<
  PurchaseRow,
  "id" | "contentId" | "creatorId" | "buyerEmail" | "amountCents" | "currency" | "stripeCustomerId" | "buyerKeyHash"
> & { bumpOf: string; createdAt: number };

/**
 * `row` inserted as its checkout's add-on (pending): one add-on per checkout, whichever of two
 * concurrent writers comes first, and only while the checkout itself is pending.
 */
export const insertAddOn = (d1: D1Database, row: AddOnRow) =>
  d1
    .prepare(
      `insert into purchases (id, content_id, creator_id, buyer_email, amount_cents, currency, status, stripe_customer_id, buyer_key_hash, bump_of, created_at)
       select ?1, ?2, ?3, ?4, ?5, ?6, 'pending', ?7, ?8, ?9, ?10 where not exists (select 1 from purchases where bump_of = ?9)
       and exists (select 1 from purchases where id = ?9 and status = 'pending')`,
    )
    .bind(
      row.id,
      row.contentId,
      row.creatorId,
      row.buyerEmail,
      row.amountCents,
      row.currency,
      row.stripeCustomerId,
      row.buyerKeyHash,
      row.bumpOf,
      row.createdAt,
    );

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
    setMainTerms(d1, main.id, {
      amountCents: mainCents,
      discountCodeId: codeId,
      discountCents: cents(m.discountCents) ?? 0,
    }),
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
          insertAddOn(d1, {
            ...main,
            id: m.bumpPurchaseId,
            contentId: m.bumpContentId,
            amountCents: bumpCents!,
            bumpOf: main.id,
            createdAt: Date.now(),
          }),
        ]
      : []),
    // Of which tax (docs/tax.md): each part's tax as charged, on its row and its purchase_taxes row.
    ...[[main.id, cents(m.mainTaxCents)] as const, [m.bumpPurchaseId || "", cents(m.bumpTaxCents)] as const].flatMap(
      ([id, tax]) =>
        id && tax !== null
          ? [
              d1.prepare("update purchases set tax_cents = ?2 where id = ?1 and status = 'pending'").bind(id, tax),
              d1
                .prepare(
                  `update purchase_taxes set tax_cents = ?2, net_cents = (select amount_cents from purchases where id = ?1) - ?2,
                 calculation_id = coalesce(?3, calculation_id) where purchase_id = ?1 and ${pending}`,
                )
                .bind(id, tax, m.taxCalculation || null),
            ]
          : [],
    ),
  ]);
  return true;
}
