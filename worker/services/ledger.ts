// Money movements of a purchase, as append-only ledger rows. Every row has an idempotency key, so
// writing the same movement twice (a redelivered webhook) adds nothing. A sale's tax goes to account
// 'tax', never to the creator or the platform (docs/tax.md "Ledger and reversals").
import { PLATFORM_FEE_PERCENT } from "../../shared/pricing";

export type LedgerRow = {
  idempotencyKey: string;
  account: "creator" | "platform" | "tax";
  userId: string | null;
  kind: "sale" | "platform_fee" | "refund" | "dispute" | "fee_adjustment" | "stripe_fee" | "dispute_fee" | "tax";
  amountCents: number;
  currency: string;
  purchaseId: string;
  /** The item sold: lets the content list sum an item's earnings from the creator's own index range. */
  contentId: string;
};

/** The split of a sale's net (what the buyer paid less its tax): the platform keeps 20% on the free plan, nothing on Pro. */
function splitSale(netCents: number, plan: "free" | "pro"): { creatorCents: number; platformCents: number } {
  const platformCents = plan === "pro" ? 0 : Math.round((netCents * PLATFORM_FEE_PERCENT) / 100);
  return { creatorCents: netCents - platformCents, platformCents };
}

type Purchase = { id: string; creatorId: string; contentId: string; amountCents: number; currency: string };

/**
 * A sale's rows: the creator's and the platform's split of the net, and (when the sale was taxed)
 * its tax on account 'tax', keyed `sale:{id}:tax`. `amountCents` is gross (tax included).
 */
export function saleRows(p: Purchase & { taxCents?: number }, plan: "free" | "pro"): LedgerRow[] {
  const taxCents = Math.max(0, Math.min(p.amountCents, p.taxCents ?? 0));
  const { creatorCents, platformCents } = splitSale(p.amountCents - taxCents, plan);
  const tax: LedgerRow[] = taxCents
    ? [
        {
          idempotencyKey: `sale:${p.id}:tax`,
          account: "tax",
          userId: null,
          kind: "tax",
          amountCents: taxCents,
          currency: p.currency,
          purchaseId: p.id,
          contentId: p.contentId,
        },
      ]
    : [];
  return [
    {
      idempotencyKey: `sale:${p.id}:creator`,
      account: "creator",
      userId: p.creatorId,
      kind: "sale",
      amountCents: creatorCents,
      currency: p.currency,
      purchaseId: p.id,
      contentId: p.contentId,
    },
    {
      idempotencyKey: `sale:${p.id}:platform`,
      account: "platform",
      userId: null,
      kind: "platform_fee",
      amountCents: platformCents,
      currency: p.currency,
      purchaseId: p.id,
      contentId: p.contentId,
    },
    ...tax,
  ];
}

/**
 * A D1 statement that reverses `cents` more (gross) of a purchase's sale (a refund or a lost dispute)
 * as ledger rows keyed `${key}:creator` / `${key}:platform`, and `${key}:tax` when the sale was taxed.
 * It is computed inside SQLite from the ledger as it stands when the statement runs, so concurrent
 * reversals of one purchase cannot both read a stale total: never more than the sale is reversed in
 * total. The creator's and the tax side are each their share of what is left of them (after earlier
 * reversals and any Pro fee re-booked since, which `rebookProFees` books on the unreversed net), in
 * proportion of what is left of the sale, between 0 and the amount reversed; the platform takes the
 * rest. The last reversal takes exactly what is left on each account, so a full reversal always nets
 * the purchase to zero on all three.
 */
export function reverseSale(
  d1: D1Database,
  purchaseId: string,
  key: string,
  kind: "refund" | "dispute",
  cents: number,
): D1PreparedStatement {
  return d1
    .prepare(
      `insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, currency, purchase_id, content_id)
       with p as (select id, creator_id, content_id, amount_cents, currency from purchases where id = ?1 and status in ('paid', 'refunded', 'disputed')),
       b as (
         -- The creator's side of the sale as it stands (its sale row and any fee re-booked since),
         -- its tax, and what reversals took of the whole (gross), of the creator and of the tax.
         select coalesce(sum(case when account = 'creator' and kind in ('sale', 'fee_adjustment') then amount_cents end), 0) as creator_sale,
                coalesce(sum(case when account = 'tax' and kind = 'tax' then amount_cents end), 0) as tax_sale,
                -coalesce(sum(case when kind in ('refund', 'dispute') then amount_cents end), 0) as reversed,
                -coalesce(sum(case when kind in ('refund', 'dispute') and account = 'creator' then amount_cents end), 0) as creator_reversed,
                -coalesce(sum(case when kind in ('refund', 'dispute') and account = 'tax' then amount_cents end), 0) as tax_reversed
         from ledger_entries where purchase_id = ?1
       ),
       t as (select p.*, b.*, min(p.amount_cents, b.reversed + max(0, ?2)) as total from p, b),
       c as (
         select t.*, total - reversed as delta,
                (case when total = amount_cents then creator_sale - creator_reversed
                      else max(0, min(total - reversed, cast(round((creator_sale - creator_reversed) * 1.0
                        * (total - reversed) / (amount_cents - reversed)) as integer))) end) as creator_part
         from t
       ),
       x as (
         select c.*,
                (case when total = amount_cents then tax_sale - tax_reversed
                      else max(0, min(delta - creator_part, cast(round((tax_sale - tax_reversed) * 1.0
                        * delta / (amount_cents - reversed)) as integer))) end) as tax_part
         from c
       )
       select ?3 || ':creator', 'creator', creator_id, ?4, -creator_part, currency, id, content_id from x where delta > 0
       union all
       select ?3 || ':platform', 'platform', null, ?4, -(delta - creator_part - tax_part), currency, id, content_id from x where delta > 0
       union all
       select ?3 || ':tax', 'tax', null, ?4, -tax_part, currency, id, content_id from x where delta > 0 and tax_sale <> 0
       on conflict (idempotency_key) do nothing`,
    )
    .bind(purchaseId, cents, key, kind);
}

/** A D1 statement that inserts `row` once (by its idempotency key), only while the purchase has one of the statuses. */
export function insertLedgerRow(d1: D1Database, row: LedgerRow, onlyIfPurchaseStatusIn: string[]): D1PreparedStatement {
  const placeholders = onlyIfPurchaseStatusIn.map(() => "?").join(", ");
  return d1
    .prepare(
      `insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, currency, purchase_id, content_id)
       select ?, ?, ?, ?, ?, ?, ?, ? where exists (select 1 from purchases where id = ? and status in (${placeholders}))
       on conflict (idempotency_key) do nothing`,
    )
    .bind(
      row.idempotencyKey,
      row.account,
      row.userId,
      row.kind,
      row.amountCents,
      row.currency,
      row.purchaseId,
      row.contentId,
      row.purchaseId,
      ...onlyIfPurchaseStatusIn,
    );
}

/**
 * A D1 statement that gives back exactly what the rows keyed `${fromKey}:creator|platform|tax` took, as
 * rows keyed `${toKey}:…` of the same kind (a won dispute, a refund that failed). Nothing when
 * nothing was taken; once per key.
 */
export function restoreRows(d1: D1Database, purchaseId: string, fromKey: string, toKey: string): D1PreparedStatement {
  return d1
    .prepare(
      `insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, currency, purchase_id, content_id)
       select ?3 || substr(idempotency_key, length(?2) + 1), account, user_id, kind, -amount_cents, currency, purchase_id, content_id
       from ledger_entries where purchase_id = ?1 and idempotency_key in (?2 || ':creator', ?2 || ':platform', ?2 || ':tax') and amount_cents <> 0
       on conflict (idempotency_key) do nothing`,
    )
    .bind(purchaseId, fromKey, toKey);
}

/**
 * D1 statements that re-book the platform fee (PLATFORM_FEE_PERCENT) on every sale a creator made
 * at 0% inside a Pro period that Stripe took back (its invoice refunded or charged back), as
 * `fee_adjustment` rows keyed `${keyPrefix}:${purchase}:creator|platform`: the creator gives the fee
 * on what the buyer kept (net of tax, refunds and disputes), the platform gets it. A sale also covered
 * by another Pro period that stands is left alone. `reason` decides the key prefix, and so the
 * text the money timeline shows; the rows are written only while the period is voided for that
 * reason, so a refund and a chargeback of one invoice re-book the fee once.
 */
export function rebookProFees(
  d1: D1Database,
  invoiceId: string,
  reason: "refund" | "dispute" | "disputed",
): D1PreparedStatement[] {
  // "disputed": the period stands but a chargeback is open, so only its sales made since it opened.
  const period =
    reason === "disputed"
      ? "select user_id, disputed_at as starts_at, ends_at from pro_periods where invoice_id = ?1 and voided_at is null and disputed_at is not null and ?2 = 'disputed'"
      : "select user_id, starts_at, ends_at from pro_periods where invoice_id = ?1 and voided_at is not null and void_reason = ?2";
  const sales = `
    with v as (${period}),
    s as (
      select p.id, p.creator_id, p.content_id, p.currency, p.amount_cents - p.tax_cents as net_cents,
             -coalesce((select sum(amount_cents) from ledger_entries where purchase_id = p.id and account <> 'tax' and kind in ('refund', 'dispute')), 0) as reversed,
             coalesce((select sum(amount_cents) from ledger_entries where purchase_id = p.id and account = 'platform' and kind in ('platform_fee', 'refund', 'dispute', 'fee_adjustment')), 0) as platform_net
      from purchases p, v
      where p.creator_id = v.user_id and p.status in ('paid', 'refunded', 'disputed')
        and p.created_at >= v.starts_at and p.created_at < v.ends_at
        and exists (select 1 from ledger_entries z where z.idempotency_key = 'sale:' || p.id || ':platform' and z.amount_cents = 0)
        and not exists (select 1 from pro_periods o where o.user_id = v.user_id and o.invoice_id <> ?1 and o.voided_at is null and o.starts_at <= p.created_at and o.ends_at > p.created_at)
    ),
    f as (select s.*, cast(round((net_cents - reversed) * ${PLATFORM_FEE_PERCENT} / 100.0) as integer) - platform_net as fee from s)`;
  const prefix = `pro-${{ refund: "refunded", dispute: "charged-back", disputed: "disputed" }[reason]}:${invoiceId}`;
  return (["creator", "platform"] as const).map((account) =>
    d1
      .prepare(
        `insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, currency, purchase_id, content_id)
         ${sales}
         select ?3 || ':' || id || ':${account}', '${account}', ${account === "creator" ? "creator_id" : "null"}, 'fee_adjustment', ${account === "creator" ? "-fee" : "fee"}, currency, id, content_id
         from f where fee > 0
         on conflict (idempotency_key) do nothing`,
      )
      .bind(invoiceId, reason, prefix),
  );
}

/** The reason the money timeline gives for a fee re-booked by `rebookProFees`, from its key. */
export function feeAdjustmentReason(idempotencyKey: string): string {
  if (idempotencyKey.startsWith("pro-disputed:")) return `Pro fee disputed: ${PLATFORM_FEE_PERCENT}% fee applied`;
  return idempotencyKey.startsWith("pro-charged-back:")
    ? `Pro fee charged back: ${PLATFORM_FEE_PERCENT}% fee applied`
    : `Pro fee refunded: ${PLATFORM_FEE_PERCENT}% fee applied`;
}

// ---- Stripe's fees: the platform bears them (docs/money: who bears fees) ----

/**
 * The platform's row for Stripe's fee on a charge (`stripe_fee`, keyed by the charge) or on a
 * dispute's balance transaction (`dispute_fee`, keyed by the transaction; a returned fee is positive).
 * Booked on the order's main purchase; written once, only while the purchase is paid-like.
 */
export function stripeFeeRow(
  p: Purchase,
  kind: "stripe_fee" | "dispute_fee",
  sourceId: string,
  feeCents: number,
): LedgerRow {
  return {
    idempotencyKey: `${kind === "stripe_fee" ? "stripe-fee" : "dispute-fee"}:${sourceId}`,
    account: "platform",
    userId: null,
    kind,
    amountCents: -feeCents,
    currency: p.currency,
    purchaseId: p.id,
    contentId: p.contentId,
  };
}
