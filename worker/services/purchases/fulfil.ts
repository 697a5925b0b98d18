// Fulfilment: a succeeded PaymentIntent marks its purchase (and its order bump) paid and writes the
// ledger rows, license keys, emails and webhooks in one D1 batch, once, whichever of the webhook, the
// success page or the paywall gets there first. Behaviour: docs/payments.md ("A purchase").
import { eq } from "drizzle-orm";
import type Stripe from "stripe";
import { purchases } from "../../db/schema";
import { insertLedgerRow, saleRows, stripeFeeRow } from "../ledger";
import { issueLicenseStatement, newLicenseKey } from "../licenses";
import { dispatch } from "../mail/email-outbox";
import { planAt } from "../subscriptions";
import { chargedTax } from "../tax/charged-tax";
import { taxInvoiceStatement } from "../tax/transactions";
import { dispatchWebhooks } from "../webhooks/delivery";
import { idOf, PAID_LIKE, type PurchaseDeps, type PurchaseRow } from "./deps";
import { noteIntentState } from "./processing";
import { fulfilmentEmails, saleWebhooks } from "./sale-notices";

type FulfilOutcome = "fulfilled" | "already" | "not-succeeded" | "mismatch" | "unknown";

/**
 * The address the buyer gave for this payment (receipt_email), never the Customer's: a browser's
 * Customer is shared by everyone who buys on that computer (older ones carry the first buyer's
 * email), and the receipt holds a permanent access link.
 */
const emailOf = (intent: Stripe.PaymentIntent): string | null => intent.receipt_email?.toLowerCase() ?? null;

/** The order bump's purchases paid (or to be paid) by a main purchase's PaymentIntent, in a stable order. */
export const bumpsOf = (deps: Pick<PurchaseDeps, "db">, mainId: string) =>
  deps.db.select().from(purchases).where(eq(purchases.bumpOf, mainId)).orderBy(purchases.id);

/**
 * Marks the purchase of a succeeded PaymentIntent paid and writes its ledger rows, in one D1 batch.
 * Safe to call any number of times, concurrently, in any order with refunds.
 */
export async function fulfil(
  deps: PurchaseDeps,
  intent: Stripe.PaymentIntent,
  { notify = true } = {},
): Promise<FulfilOutcome> {
  const purchase = await deps.db.select().from(purchases).where(eq(purchases.paymentIntentId, intent.id)).get();
  if (!purchase) return "unknown";
  if (intent.status !== "succeeded") return "not-succeeded";
  // An order bump ticked at checkout is its own purchase, paid by this PaymentIntent too.
  const bumps = await bumpsOf(deps, purchase.id);
  const totalCents = purchase.amountCents + bumps.reduce((a, b) => a + b.amountCents, 0);
  if (
    intent.amount_received !== totalCents ||
    intent.amount !== totalCents ||
    intent.currency !== purchase.currency ||
    intent.metadata?.purchaseId !== purchase.id
  ) {
    console.error("payment intent does not match its purchase", intent.id, purchase.id);
    return "mismatch";
  }
  if (PAID_LIKE.includes(purchase.status)) return "already";
  // The tax Stripe charged, where the rows name another calculation than the payment carried (docs/tax.md).
  const charged = await chargedTax(deps, intent, [purchase, ...bumps]);
  const taxed = (p: PurchaseRow): PurchaseRow => {
    const line = charged?.tax.lines.find((l) => l.purchaseId === p.id);
    return line ? { ...p, taxCents: line.taxCents } : p;
  };
  const sold = taxed(purchase);

  // The fee follows the creator's plan when the buyer paid (a paid Pro period covering the
  // payment), not when the event happens to be handled.
  const plan = await planAt(deps.db, purchase.creatorId, new Date(intent.created * 1000));
  const email = purchase.buyerEmail ?? emailOf(intent);
  const now = Date.now();
  const ledger = saleRows(sold, plan);
  const licenseKey = newLicenseKey();
  // Each add-on: paid in this batch only if the main purchase was (its paid_at is ours), with its
  // own ledger rows, license key and webhook; the emails are the order's (below).
  const added = await Promise.all(
    bumps.map(async (bump) => {
      const rows = saleRows(taxed(bump), plan);
      return { bump, rows, key: newLicenseKey(), hooks: await saleWebhooks(deps, taxed(bump), rows, email, now) };
    }),
  );
  const mails = notify
    ? await fulfilmentEmails(
        deps,
        sold,
        ledger,
        email,
        now,
        licenseKey,
        added.map((a) => ({ purchase: taxed(a.bump), ledger: a.rows })),
      )
    : { statements: [], keys: [] };
  const hooks = await saleWebhooks(deps, sold, ledger, email, now);
  // Stripe's fee on the charge, booked with the sale; if Stripe cannot say now, the charge's next settle books it.
  const fee = await processingFeeOf(deps.stripe, intent).catch(() => null);
  // Compare-and-set: the purchase is marked paid only if its rows are still exactly what was checked
  // against the PaymentIntent above (amount, code, the same add-ons at the same amounts, no other).
  // A change of terms landing meanwhile makes this update apply nothing, and every other row of the
  // batch is conditional on it (each add-on's update on the main's paid_at being ours, the ledger rows
  // on their purchase being paid, the rest on paid_at), so nothing is written: a mismatch, retried.
  const checked = [
    "amount_cents = ?",
    "discount_code_id is ?",
    "(select count(*) from purchases where bump_of = ?) = ?",
    ...bumps.map(
      () => "exists (select 1 from purchases where id = ? and bump_of = ? and status = 'pending' and amount_cents = ?)",
    ),
  ].join(" and ");
  // Stripe's tax written to the rows first (only while pending), then the paid update checks them.
  const fixes = charged?.statements ?? [];
  const results = await deps.d1.batch([
    ...fixes,
    deps.d1
      .prepare(
        `update purchases set status = 'paid', paid_at = ?, buyer_email = coalesce(buyer_email, ?) where id = ? and status = 'pending' and ${checked} returning id`,
      )
      .bind(
        now,
        email,
        purchase.id,
        purchase.amountCents,
        purchase.discountCodeId,
        purchase.id,
        bumps.length,
        ...bumps.flatMap((b) => [b.id, purchase.id, b.amountCents]),
      ),
    ...bumps.map((bump) =>
      deps.d1
        .prepare(
          `update purchases set status = 'paid', paid_at = ?1, buyer_email = coalesce(buyer_email, ?2)
           where id = ?3 and bump_of = ?4 and status = 'pending' and amount_cents = ?5
           and exists (select 1 from purchases m where m.id = ?4 and m.status = 'paid' and m.paid_at = ?1)`,
        )
        .bind(now, email, bump.id, purchase.id, bump.amountCents),
    ),
    ...ledger.map((row) => insertLedgerRow(deps.d1, row, PAID_LIKE)),
    ...added.flatMap((a) => a.rows.map((row) => insertLedgerRow(deps.d1, row, PAID_LIKE))),
    // The order's tax invoice number, when it was taxed (docs/tax.md).
    taxInvoiceStatement(deps.d1, purchase.id, now),
    ...(fee
      ? [insertLedgerRow(deps.d1, stripeFeeRow(purchase, "stripe_fee", fee.chargeId, fee.feeCents), PAID_LIKE)]
      : []),
    issueLicenseStatement(deps.d1, purchase.id, now, licenseKey),
    ...added.map((a) => issueLicenseStatement(deps.d1, a.bump.id, now, a.key)),
    ...mails.statements,
    ...hooks.statements,
    ...added.flatMap((a) => a.hooks.statements),
  ]);
  if ((results[fixes.length].results?.length ?? 0) === 0) {
    const status = (
      await deps.db.select({ status: purchases.status }).from(purchases).where(eq(purchases.id, purchase.id)).get()
    )?.status;
    if (status !== "pending") return "already";
    console.error("purchase changed while it was being fulfilled; nothing written", intent.id, purchase.id);
    return "mismatch";
  }
  if (mails.keys.length) await dispatch(deps.d1, deps.emails, mails.keys, now);
  await dispatchWebhooks(
    deps.d1,
    deps.webhooks,
    purchase.creatorId,
    [...hooks.keys, ...added.flatMap((a) => a.hooks.keys)],
    now,
  );
  return "fulfilled";
}

/** Stripe's processing fee on the PaymentIntent's charge, from its balance transaction (null when it has none yet). */
async function processingFeeOf(
  stripe: Stripe,
  intent: Stripe.PaymentIntent,
): Promise<{ chargeId: string; feeCents: number } | null> {
  const chargeId = idOf(intent.latest_charge);
  if (!chargeId) return null;
  const charge = await stripe.charges.retrieve(chargeId, { expand: ["balance_transaction"] });
  return feeOfCharge(charge);
}

export function feeOfCharge(charge: Stripe.Charge): { chargeId: string; feeCents: number } | null {
  const bt = charge.balance_transaction;
  return bt && typeof bt === "object" && Number.isInteger(bt.fee) ? { chargeId: charge.id, feeCents: bt.fee } : null;
}

/**
 * Asks Stripe about a purchase's PaymentIntent and fulfils it if it succeeded. With `bestEffort`
 * (the speed-up calls of the browser), a Stripe error leaves the purchase as it is: the webhook
 * fulfils it later. Webhook handling lets errors through, so Stripe redelivers.
 */
export async function syncWithStripe(
  deps: PurchaseDeps,
  purchase: PurchaseRow,
  { notify = true, bestEffort = false } = {},
): Promise<PurchaseRow> {
  if (purchase.status === "pending" && purchase.bumpOf) {
    // An order bump is paid with its main purchase's PaymentIntent: fulfilling that one pays both.
    const main = await deps.db.select().from(purchases).where(eq(purchases.id, purchase.bumpOf)).get();
    if (main) await syncWithStripe(deps, main, { notify, bestEffort });
    return (await deps.db.select().from(purchases).where(eq(purchases.id, purchase.id)).get()) ?? purchase;
  }
  if (purchase.status !== "pending" || !purchase.paymentIntentId) return purchase;
  let intent: Stripe.PaymentIntent;
  try {
    intent = await deps.stripe.paymentIntents.retrieve(purchase.paymentIntentId);
  } catch (err) {
    if (!bestEffort) throw err;
    console.warn("could not ask Stripe about", purchase.paymentIntentId, (err as Error).message);
    return purchase;
  }
  await noteIntentState(deps.d1, intent, purchase);
  await fulfil(deps, intent, { notify });
  return (await deps.db.select().from(purchases).where(eq(purchases.id, purchase.id)).get()) ?? purchase;
}
