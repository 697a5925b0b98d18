// Sales tax and VAT (docs/tax.md): what each purchase was taxed and on what evidence, the tax
// invoices (numbered in sequence, one per order), the tax transactions Stripe recorded for our
// payments, and the reversals we ask Stripe for (a lost dispute, which Stripe does not reverse itself).
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";
import { purchases } from "./purchases";

/**
 * One row per purchase (main item, order bump, upsell) charged with a Stripe Tax calculation, even
 * where no tax was due (`tax_cents` 0 and `taxability_reason` says why: `not_collecting`,
 * `reverse_charge`, …). `purchases.amount_cents` stays what the buyer paid (gross);
 * `purchases.tax_cents` is its tax, so net = amount - tax.
 */
export const purchaseTaxes = sqliteTable(
  "purchase_taxes",
  {
    purchaseId: text("purchase_id")
      .primaryKey()
      .references(() => purchases.id),
    /** Stripe's Tax Calculation (taxcalc_…) the PaymentIntent carried; the order's main purchase and its bump share one. */
    calculationId: text("calculation_id"),
    /** The place of supply: ISO country, and the US state / Canadian province where it matters. */
    country: text("country"),
    region: text("region"),
    postalCode: text("postal_code"),
    /** Stripe's tax_rate_details.tax_type: vat, gst, hst, sales_tax, … (null when none applied). */
    taxType: text("tax_type"),
    /** Stripe's percentage_decimal, as text ("20.0", "10.25"). */
    ratePercent: text("rate_percent"),
    /** Stripe's taxability_reason for the line: standard_rated, reverse_charge, not_collecting, … */
    taxabilityReason: text("taxability_reason"),
    /** Whether the creator's price included the tax (the buyer paid the price) or tax was added on top. */
    inclusive: integer("inclusive", { mode: "boolean" }).notNull(),
    netCents: integer("net_cents").notNull(),
    taxCents: integer("tax_cents").notNull(),
    /** A business buyer's VAT number, normalised ("DE123456789"), and its Stripe tax id type (eu_vat, gb_vat). */
    vatId: text("vat_id"),
    vatIdType: text("vat_id_type"),
    /** JSON (shared/tax.ts TaxEvidence): the edge's guess, the card's billing address and country, and which decided. */
    evidence: text("evidence").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("purchase_taxes_place").on(t.country, t.region)],
);

/** A tax invoice per paid order (its main purchase, or an upsell's own purchase): numbered 1, 2, 3… with no gaps. */
export const taxInvoices = sqliteTable("tax_invoices", {
  number: integer("number").primaryKey({ autoIncrement: true }),
  purchaseId: text("purchase_id")
    .notNull()
    .unique()
    .references(() => purchases.id),
  issuedAt: integer("issued_at", { mode: "timestamp_ms" }).notNull(),
  /**
   * What the invoice said when first read (the receipt is sent seconds after payment): its titles,
   * the creator's name, the buyer's email, ApeWall's registration and address, as JSON. An issued
   * invoice does not change when an item is renamed or an order's email is changed later.
   */
  snapshot: text("snapshot"),
});

/** The tax transactions Stripe holds for our payments (read from its Tax Association, or made by our reversal). */
export const taxTransactions = sqliteTable(
  "tax_transactions",
  {
    /** Stripe's id (tax_…). */
    id: text("id").primaryKey(),
    /** The order's main purchase (the PaymentIntent's). */
    purchaseId: text("purchase_id").notNull(),
    paymentIntentId: text("payment_intent_id"),
    type: text("type", { enum: ["transaction", "reversal"] }).notNull(),
    /** Stripe's reference (unique at Stripe too): the PaymentIntent id, a refund id, or our reversal key. */
    reference: text("reference").notNull().unique(),
    /** Signed, as Stripe's line items sum them: a reversal is negative. */
    amountCents: integer("amount_cents").notNull(),
    taxCents: integer("tax_cents").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("tax_transactions_purchase").on(t.purchaseId), index("tax_transactions_created").on(t.createdAt)],
);

/**
 * A reversal we must ask Stripe for (Stripe reverses refunds itself, not lost disputes): written in
 * the same batch as the ledger rows it mirrors, sent from here with its key as the Idempotency-Key.
 */
export const taxReversalRequests = sqliteTable(
  "tax_reversal_requests",
  {
    idempotencyKey: text("idempotency_key").primaryKey(),
    purchaseId: text("purchase_id").notNull(),
    paymentIntentId: text("payment_intent_id").notNull(),
    /** Gross cents to reverse (positive), tax included. */
    amountCents: integer("amount_cents").notNull(),
    status: text("status", { enum: ["pending", "sent", "failed"] })
      .notNull()
      .default("pending"),
    taxTransactionId: text("tax_transaction_id"),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    createdAt: createdAt(),
    sentAt: integer("sent_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("tax_reversal_requests_status").on(t.status, t.createdAt)],
);
