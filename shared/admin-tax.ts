// The admin's tax page (docs/tax.md, "The admin's tax report"): the monthly report by jurisdiction,
// the reconciliation with Stripe's tax transactions, and registrations against thresholds. Amounts
// are integer cents (fields end in Cents): the page compares figures to the cent.
import { z } from "zod";
import { adminPeriodSchema } from "./admin";

/** One place and tax type: a country, or a US state / Canadian province, and the tax charged there. */
export type TaxReportRow = {
  country: string | null;
  region: string | null;
  /** "France", "Washington", or "Unknown" for a ledger row without a purchase_taxes row. */
  place: string;
  taxType: string | null;
  /** Sales whose tax the ledger booked this month. */
  sales: number;
  /** Those sales without their tax. */
  netCents: number;
  taxCollectedCents: number;
  /** Tax given back this month by refunds and lost disputes (positive). */
  taxReversedCents: number;
  /** Collected minus reversed: what is owed for the month. */
  taxOwedCents: number;
};

export type TaxReport = {
  year: number;
  month: number;
  currency: "usd";
  rows: TaxReportRow[];
  total: Omit<TaxReportRow, "country" | "region" | "place" | "taxType">;
};

/** The column names of the tax CSV, in order (worker/services/tax/report.ts writes them). */
export const TAX_CSV_COLUMNS = [
  "jurisdiction",
  "country",
  "region",
  "tax_type",
  "sales",
  "net",
  "tax_collected",
  "tax_reversed",
  "tax_owed",
  "currency",
] as const;

const TAX_DIFFERENCE_KINDS = ["missing_at_stripe", "missing_here", "amounts_differ"] as const;
export type TaxDifferenceKind = (typeof TAX_DIFFERENCE_KINDS)[number];

/** How the page words each kind of difference. */
export const TAX_DIFFERENCE_TEXT: Record<TaxDifferenceKind, string> = {
  missing_at_stripe: "Missing at Stripe",
  missing_here: "Missing here",
  amounts_differ: "Amounts differ",
};

/** The reconciliation's empty state, word for word. */
export const EVERYTHING_MATCHES = "Everything matches Stripe.";

/** One order whose tax in our ledger and Stripe's tax transactions disagree. */
export type TaxDifference = {
  /** The order's main purchase (an upsell is an order of its own). */
  orderId: string;
  paymentIntentId: string | null;
  /** The sale's transaction, or the reversals of its refunds and disputes (summed). */
  what: "transaction" | "reversal";
  kind: TaxDifferenceKind;
  place: string;
  /** Tax in our ledger (reversals negative); null where we have none. */
  oursCents: number | null;
  /** Tax in Stripe's tax transactions as recorded here; null where there are none. */
  stripeCents: number | null;
};

export type TaxReconciliation = {
  year: number;
  month: number;
  /** Orders with tax in the ledger or at Stripe this month. */
  ordersChecked: number;
  differences: TaxDifference[];
  /** More differences exist than the list holds (TAX_DIFFERENCES_SHOWN). */
  truncated: boolean;
  /** Orders whose Stripe record is missing here and that "Re-read from Stripe" would look up. */
  rereadable: number;
  /**
   * Orders with a dispute still open: the ledger took the tax back (funds withdrawn), Stripe is asked
   * only once the dispute is lost, so they are counted apart, never as a difference.
   */
  openDisputes: { orders: number; taxCents: number };
};

/** At most this many differences are listed at once (the rest are counted, not shown). */
export const TAX_DIFFERENCES_SHOWN = 500;

export type TaxRereadResult = {
  /** Orders looked up at Stripe in this call. */
  checked: number;
  /** Tax transactions newly recorded (a repeat records none). */
  recorded: number;
  /** Orders for which Stripe holds no committed tax transaction. */
  notAtStripe: string[];
  /** Orders still to look up after this call: the page calls again, `after` this one, while above zero. */
  remaining: number;
  /** The last order looked up (the next call's `after`); null when none was. */
  lastOrderId: string | null;
};

/** `after`: the last order id a previous call looked up (the page continues from there). */
export const taxRereadSchema = adminPeriodSchema.extend({
  after: z.string({ error: "after must be an order id" }).max(64, "after must be an order id").optional(),
});

const THRESHOLD_STATUSES = ["registered", "below", "approaching", "over", "first_sale"] as const;
export type ThresholdStatus = (typeof THRESHOLD_STATUSES)[number];

export const THRESHOLD_STATUS_TEXT: Record<ThresholdStatus, string> = {
  registered: "Registered",
  below: "Below",
  approaching: "Approaching",
  over: "Over",
  first_sale: "Required from the first sale",
};

export type TaxRegistrationView = {
  id: string;
  country: string;
  region: string | null;
  place: string;
  /** Stripe's registration type: oss_union, oss_non_union, standard, simplified, state_sales_tax, … */
  type: string | null;
  status: string;
  activeFrom: string;
  expiresAt: string | null;
};

export type TaxThresholdRow = {
  /** "EU", "GB", "US-WA", … (worker/services/tax/thresholds.ts) */
  key: string;
  place: string;
  registered: boolean;
  /** "$100,000 or 200 transactions", "CHF 100,000 (worldwide sales)", "None for sellers outside the EU". */
  thresholdText: string;
  /** Over which period the place measures it, in words. */
  period: string;
  salesLast12MonthsCents: number;
  salesThisYearCents: number;
  transactionsLast12Months: number;
  transactionsThisYear: number;
  /** The larger of the two periods' share of the threshold, in percent (null where the threshold is zero). */
  percent: number | null;
  status: ThresholdStatus;
  note: string | null;
};

export type TaxRegistrationsView = {
  registrations: TaxRegistrationView[];
  thresholds: TaxThresholdRow[];
};
