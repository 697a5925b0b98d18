// Where ApeWall must register for tax, in one table (with its sources in docs/tax.md, "The admin's
// tax report"), ApeWall's registrations as Stripe holds them, and each place's sales against its
// threshold: "approaching" from 80 %, "over" from 100 %.
import { sql } from "drizzle-orm";
import type Stripe from "stripe";
import type {
  TaxRegistrationView,
  TaxRegistrationsView,
  TaxThresholdRow,
  ThresholdStatus,
} from "../../../shared/admin-tax";
import { EU_COUNTRIES, placeName } from "../../../shared/tax";
import type { Db } from "../../db/client";

type Threshold = {
  /** "EU", "GB", "US-WA": a country, a US state, or the EU as one (its One-Stop Shop). */
  key: string;
  /** In the place's currency, whole units; 0: registration is due from the first sale. */
  amount: number;
  currency: "USD" | "EUR" | "GBP" | "CHF" | "NOK" | "AUD" | "CAD";
  /** And/or a number of transactions (US states that count them). */
  transactions?: { count: number; rule: "or" | "and" };
  /** Sales to the place, or (Switzerland) the seller's sales worldwide. */
  worldwide?: boolean;
  period: string;
  note?: string;
};

/**
 * Approximate US dollars per unit, to compare our USD sales with a threshold in another currency.
 * Set 2026-11; reviewed with the table once a year (a 5 % move changes a status near 80 % only).
 */
const USD_PER: Record<Threshold["currency"], number> = {
  USD: 1,
  EUR: 1.08,
  GBP: 1.27,
  CHF: 1.13,
  NOK: 0.092,
  AUD: 0.65,
  CAD: 0.72,
};

/** The thresholds for selling digital goods to consumers there, for a seller established outside (docs/tax.md). */
const THRESHOLDS: readonly Threshold[] = [
  {
    key: "EU",
    amount: 0,
    currency: "EUR",
    period: "from the first sale",
    note: "The €10,000 EU-wide threshold applies to sellers established in the EU only; ApeWall is not, so registration (the non-Union OSS) is required from the first sale.",
  },
  {
    key: "GB",
    amount: 0,
    currency: "GBP",
    period: "from the first sale",
    note: "No threshold for sellers established outside the UK: registration is required from the first sale.",
  },
  {
    key: "CH",
    amount: 100_000,
    currency: "CHF",
    worldwide: true,
    period: "worldwide sales, 12 months",
    note: "Counted on ApeWall's sales worldwide, once it sells to Swiss buyers.",
  },
  { key: "NO", amount: 50_000, currency: "NOK", period: "12 months" },
  { key: "AU", amount: 75_000, currency: "AUD", period: "12 months" },
  { key: "CA", amount: 30_000, currency: "CAD", period: "12 months" },
  { key: "US-WA", amount: 100_000, currency: "USD", period: "current or previous calendar year" },
  { key: "US-TX", amount: 500_000, currency: "USD", period: "previous 12 months" },
  {
    key: "US-NY",
    amount: 500_000,
    currency: "USD",
    transactions: { count: 100, rule: "and" },
    period: "preceding four sales tax quarters",
  },
  { key: "US-PA", amount: 100_000, currency: "USD", period: "previous 12 months" },
  {
    key: "US-OH",
    amount: 100_000,
    currency: "USD",
    transactions: { count: 200, rule: "or" },
    period: "current or previous calendar year",
  },
  { key: "US-UT", amount: 100_000, currency: "USD", period: "current or previous calendar year" },
  { key: "US-TN", amount: 100_000, currency: "USD", period: "previous 12 months" },
  {
    key: "US-CT",
    amount: 100_000,
    currency: "USD",
    transactions: { count: 200, rule: "and" },
    period: "12 months ending September 30",
  },
  { key: "US-SD", amount: 100_000, currency: "USD", period: "current or previous calendar year" },
];

const APPROACHING_AT = 0.8;

const SYMBOL: Partial<Record<Threshold["currency"], string>> = { USD: "$", EUR: "€", GBP: "£" };
const money = (t: Threshold) =>
  `${SYMBOL[t.currency] ?? `${t.currency} `}${t.amount.toLocaleString("en-US")}${t.worldwide ? " (worldwide sales)" : ""}`;

function thresholdText(t: Threshold): string {
  if (t.amount === 0) return t.key === "EU" ? "None for sellers outside the EU" : "None for sellers outside the UK";
  const tx = t.transactions ? ` ${t.transactions.rule} ${t.transactions.count} transactions` : "";
  return `${money(t)}${tx}`;
}

const placeOf = (key: string) =>
  key === "EU" ? "European Union" : key.startsWith("US-") ? placeName("US", key.slice(3)) : placeName(key);

/** The table key a buyer's place counts under. */
const thresholdKey = (country: string | null, region: string | null): string | null =>
  !country
    ? null
    : (EU_COUNTRIES as readonly string[]).includes(country)
      ? "EU"
      : country === "US"
        ? region
          ? `US-${region}`
          : null
        : country;

type Registration = Pick<Stripe.Tax.Registration, "id" | "country" | "status" | "active_from" | "expires_at"> & {
  country_options: unknown;
};
const optionsOf = (r: Registration) =>
  ((r.country_options ?? {}) as Record<string, { type?: string; state?: string } | undefined>)[
    r.country.toLowerCase()
  ] ?? {};

/** Whether an active registration covers the key: a US state's, the EU's OSS (in any member state), a country's. */
function covers(r: Registration, key: string): boolean {
  if (r.status !== "active") return false;
  const o = optionsOf(r);
  if (key === "EU") return (EU_COUNTRIES as readonly string[]).includes(r.country) && /^oss_/.test(o.type ?? "");
  if (key.startsWith("US-")) return r.country === "US" && o.state === key.slice(3);
  return r.country === key;
}

function registrationView(r: Registration): TaxRegistrationView {
  const o = optionsOf(r);
  const region = r.country === "US" ? (o.state ?? null) : null;
  return {
    id: r.id,
    country: r.country,
    region,
    place: placeName(r.country, region),
    type: o.type ?? null,
    status: r.status,
    activeFrom: new Date(r.active_from * 1000).toISOString(),
    expiresAt: r.expires_at ? new Date(r.expires_at * 1000).toISOString() : null,
  };
}

type PlaceSales = { last12Cents: number; yearCents: number; last12Count: number; yearCount: number };
const NONE: PlaceSales = { last12Cents: 0, yearCents: 0, last12Count: 0, yearCount: 0 };

/**
 * One table row: registered, or the larger share of the two periods against the threshold. A
 * worldwide threshold (Switzerland's) binds only once ApeWall sells there (`soldThere`).
 */
function evaluate(t: Threshold, sales: PlaceSales, registered: boolean, soldThere: boolean): TaxThresholdRow {
  const usdCents = Math.round(t.amount * USD_PER[t.currency] * 100);
  const share = (cents: number, count: number) => {
    const byAmount = cents / usdCents;
    if (!t.transactions) return byAmount;
    const byCount = count / t.transactions.count;
    return t.transactions.rule === "or" ? Math.max(byAmount, byCount) : Math.min(byAmount, byCount);
  };
  const ratio =
    usdCents === 0
      ? null
      : Math.max(share(sales.last12Cents, sales.last12Count), share(sales.yearCents, sales.yearCount));
  const status: ThresholdStatus = registered
    ? "registered"
    : ratio === null
      ? sales.last12Cents > 0
        ? "over"
        : "first_sale"
      : !soldThere
        ? "below"
        : ratio >= 1
          ? "over"
          : ratio >= APPROACHING_AT
            ? "approaching"
            : "below";
  return {
    key: t.key,
    place: placeOf(t.key),
    registered,
    thresholdText: thresholdText(t),
    period: t.period,
    salesLast12MonthsCents: sales.last12Cents,
    salesThisYearCents: sales.yearCents,
    transactionsLast12Months: sales.last12Count,
    transactionsThisYear: sales.yearCount,
    percent: ratio === null ? null : Math.floor(ratio * 1000) / 10,
    status,
    note: t.note ?? null,
  };
}

const DAY = 24 * 60 * 60 * 1000;

/**
 * Paid sales (gross, as charged; refunds not taken off) by table key over the last 12 months and the
 * calendar year so far, and worldwide. A transaction is an order: an order bump is its main purchase's.
 */
async function salesByPlace(db: Db, now: number): Promise<{ byKey: Map<string, PlaceSales>; worldwide: PlaceSales }> {
  const last12 = now - 365 * DAY;
  const yearStart = Date.UTC(new Date(now).getUTCFullYear(), 0, 1);
  const since = Math.min(last12, yearStart);
  const figures = sql`
    coalesce(sum(case when p.paid_at >= ${last12} then p.amount_cents end), 0) as s12,
    coalesce(sum(case when p.paid_at >= ${yearStart} then p.amount_cents end), 0) as sy,
    coalesce(sum(p.paid_at >= ${last12} and p.bump_of is null), 0) as n12,
    coalesce(sum(p.paid_at >= ${yearStart} and p.bump_of is null), 0) as ny`;
  const paid = sql`p.paid_at >= ${since} and p.paid_at <= ${now} and p.status in ('paid', 'refunded', 'disputed')`;
  type Row = { country: string | null; region: string | null; s12: number; sy: number; n12: number; ny: number };
  const [places, [world]] = await Promise.all([
    db.all<Row>(sql`
      select t.country, t.region, ${figures}
      from purchases p join purchase_taxes t on t.purchase_id = p.id
      where ${paid} group by t.country, t.region`),
    db.all<Row>(sql`select null as country, null as region, ${figures} from purchases p where ${paid}`),
  ]);
  const asSales = (r: Row | undefined): PlaceSales =>
    r
      ? { last12Cents: Number(r.s12), yearCents: Number(r.sy), last12Count: Number(r.n12), yearCount: Number(r.ny) }
      : NONE;
  const byKey = new Map<string, PlaceSales>();
  for (const r of places) {
    const key = thresholdKey(r.country, r.region);
    if (!key) continue;
    const was = byKey.get(key) ?? NONE;
    const add = asSales(r);
    byKey.set(key, {
      last12Cents: was.last12Cents + add.last12Cents,
      yearCents: was.yearCents + add.yearCents,
      last12Count: was.last12Count + add.last12Count,
      yearCount: was.yearCount + add.yearCount,
    });
  }
  return { byKey, worldwide: asSales(world) };
}

/** What the registrations list asks Stripe (the real client in production). */
export type RegistrationsStripe = { tax: { registrations: Pick<Stripe["tax"]["registrations"], "list"> } };

async function allRegistrations(stripe: RegistrationsStripe): Promise<Registration[]> {
  const out: Registration[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await stripe.tax.registrations.list({ limit: 100, starting_after: after });
    out.push(...page.data);
    if (!page.has_more || !page.data.length) return out;
    after = page.data[page.data.length - 1].id;
  }
}

/** ApeWall's registrations at Stripe and every place of the table against its threshold. */
export async function registrationsAndThresholds(
  deps: { db: Db; stripe: RegistrationsStripe },
  now = Date.now(),
): Promise<TaxRegistrationsView> {
  const [registrations, sales] = await Promise.all([allRegistrations(deps.stripe), salesByPlace(deps.db, now)]);
  const thresholds = THRESHOLDS.map((t) => {
    const there = sales.byKey.get(t.key) ?? NONE;
    return evaluate(
      t,
      t.worldwide ? sales.worldwide : there,
      registrations.some((r) => covers(r, t.key)),
      there.last12Count + there.yearCount > 0,
    );
  });
  const order: ThresholdStatus[] = ["over", "approaching", "first_sale", "below", "registered"];
  thresholds.sort((a, b) => order.indexOf(a.status) - order.indexOf(b.status));
  return {
    registrations: registrations.map(registrationView).sort((a, b) => a.place.localeCompare(b.place)),
    thresholds,
  };
}
