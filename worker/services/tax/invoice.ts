// A paid order's invoice: who may read it, what it says (number, seller and its registration for the
// buyer's place, the creator it was sold for, the lines, the tax, refunds), and the figures a receipt
// email adds. Rendered as a PDF by ./pdf.ts. Behaviour: docs/tax.md ("Invoices").
import { type Invoice, type InvoiceLink, invoiceNumber } from "../../../shared/invoices";
import { maskEmail } from "../../../shared/payout-destination";
import { PRODUCT_NAME } from "../../../shared/site";
import { EU_COUNTRIES, formatRate, placeName, REVERSE_CHARGE_TEXT, taxLineText, taxName } from "../../../shared/tax";
import { sha256Hex } from "../../lib/ids";
import { sign, verify } from "../../lib/signing";
import { publicCreator } from "../profile";
import { purchaseIdFromToken } from "../purchases/access-tokens";
import type { PurchaseDeps } from "../purchases/deps";
import type { EmailJob, MailTax } from "../mail/templates";

type Deps = Pick<PurchaseDeps, "db" | "d1" | "appUrl" | "accessSecret">;

/** ApeWall's registrations (wrangler.toml TAX_REGISTRATION_NUMBERS) and address, as the invoice names them. */
export type SellerConfig = { registrations: Record<string, string>; address: string | null };

export function sellerConfig(env: { TAX_REGISTRATION_NUMBERS?: string; TAX_SELLER_ADDRESS?: string }): SellerConfig {
  let registrations: Record<string, string> = {};
  try {
    const parsed: unknown = JSON.parse(env.TAX_REGISTRATION_NUMBERS || "{}");
    if (parsed && typeof parsed === "object") registrations = parsed as Record<string, string>;
  } catch {
    console.error("TAX_REGISTRATION_NUMBERS is not JSON; invoices name no registration");
  }
  return { registrations, address: env.TAX_SELLER_ADDRESS || null };
}

/** The registration for a place: its state or province ("US-WA"), its country ("GB"), else the EU's one-stop shop ("EU"). */
function registrationFor(config: SellerConfig, country: string | null, region: string | null): string | null {
  if (!country) return null;
  const r = config.registrations;
  return (
    (region ? r[`${country}-${region}`] : undefined) ??
    r[country] ??
    ((EU_COUNTRIES as readonly string[]).includes(country) ? r.EU : undefined) ??
    null
  );
}

type OrderRow = {
  id: string;
  bump_of: string | null;
  status: string;
  buyer_key_hash: string | null;
  buyer_email: string | null;
};

const PAID_LIKE = "('paid', 'refunded', 'disputed')";

/** The purchase and the one whose invoice covers it (an order bump is a line of its main purchase's). */
async function orderOf(d1: D1Database, id: string): Promise<{ own: OrderRow; root: OrderRow } | null> {
  const own = await d1
    .prepare(
      `select id, bump_of, status, buyer_key_hash, buyer_email from purchases where id = ? and status in ${PAID_LIKE}`,
    )
    .bind(id)
    .first<OrderRow>();
  if (!own) return null;
  if (!own.bump_of) return { own, root: own };
  const root = await d1
    .prepare(
      `select id, bump_of, status, buyer_key_hash, buyer_email from purchases where id = ? and status in ${PAID_LIKE}`,
    )
    .bind(own.bump_of)
    .first<OrderRow>();
  return root ? { own, root } : null;
}

/** Who asks: the access link's token, the paying browser's key, the library's signed-in email (read only if needed). */
export type InvoiceReader = {
  access?: string | null;
  buyerKey?: string | null;
  libraryEmail?: () => Promise<string | null>;
};

/**
 * The order (its main purchase's id) whose invoice `purchaseId` belongs to, when `reader` may read
 * it, and whether the reader proved to be the buyer (the browser that paid, or their library) rather
 * than holding a link that may have been forwarded; null otherwise (another buyer's purchase is as
 * unknown as one that does not exist).
 */
export async function readableOrder(
  deps: Deps,
  purchaseId: string,
  reader: InvoiceReader,
): Promise<{ rootId: string; buyer: boolean } | null> {
  const order = await orderOf(deps.d1, purchaseId);
  if (!order) return null;
  const rows = [order.own, order.root];
  const rootId = order.root.id;
  if (reader.buyerKey) {
    const hash = await sha256Hex(reader.buyerKey);
    if (rows.some((r) => r.buyer_key_hash === hash)) return { rootId, buyer: true };
  }
  const tokenId = await purchaseIdFromToken(deps.accessSecret, reader.access);
  // Any access link of the order (its main purchase's or the bump's) reads the order's invoice, and so
  // does the invoice's own link (which opens nothing else).
  const byToken =
    (!!tokenId && (rows.some((r) => r.id === tokenId) || (await orderOf(deps.d1, tokenId))?.root.id === rootId)) ||
    (await isInvoiceToken(deps.accessSecret, reader.access, rootId));
  const email = await reader.libraryEmail?.();
  if (email && rows.some((r) => r.buyer_email?.toLowerCase() === email.toLowerCase())) return { rootId, buyer: true };
  return byToken ? { rootId, buyer: false } : null;
}

type LineRow = {
  id: string;
  title: string;
  amount_cents: number;
  tax_cents: number;
  status: string;
  buyer_email: string | null;
  currency: string;
  creator_id: string;
  taxed: number | null;
  country: string | null;
  region: string | null;
  tax_type: string | null;
  rate_percent: string | null;
  taxability_reason: string | null;
  inclusive: number | null;
  net_cents: number | null;
  row_tax_cents: number | null;
  vat_id: string | null;
};

type Loaded = {
  number: number;
  issuedAt: number;
  lines: LineRow[];
  refundedCents: number;
  snapshot: string | null;
};

/** What an invoice said when first read, kept so an issued invoice never changes (docs/tax.md, Invoices). */
type Snapshot = {
  titles: Record<string, string>;
  onBehalfOf: string | null;
  buyerEmail: string | null;
  registration: string | null;
  sellerAddress: string | null;
};

/** The invoice row and the lines of order `rootId` (the main purchase, then its bump); null when none was issued. */
async function load(d1: D1Database, rootId: string): Promise<Loaded | null> {
  const invoice = await d1
    .prepare("select number, issued_at, snapshot from tax_invoices where purchase_id = ?")
    .bind(rootId)
    .first<{ number: number; issued_at: number; snapshot: string | null }>();
  if (!invoice) return null;
  const { results: lines } = await d1
    .prepare(
      `select p.id, c.title, p.amount_cents, p.tax_cents, p.status, p.buyer_email, p.currency, p.creator_id,
         t.purchase_id is not null as taxed, t.country, t.region, t.tax_type, t.rate_percent, t.taxability_reason,
         t.inclusive, t.net_cents, t.tax_cents as row_tax_cents, t.vat_id
       from purchases p join content c on c.id = p.content_id left join purchase_taxes t on t.purchase_id = p.id
       where (p.id = ?1 or p.bump_of = ?1) and p.status in ${PAID_LIKE}
       order by p.id <> ?1, p.created_at, p.id`,
    )
    .bind(rootId)
    .all<LineRow>();
  if (!lines.length) return null;
  const placeholders = lines.map(() => "?").join(", ");
  const refunded = await d1
    .prepare(
      `select -coalesce(sum(amount_cents), 0) as cents from ledger_entries where kind = 'refund' and purchase_id in (${placeholders})`,
    )
    .bind(...lines.map((l) => l.id))
    .first<{ cents: number }>();
  return {
    number: invoice.number,
    issuedAt: invoice.issued_at,
    lines,
    refundedCents: refunded?.cents ?? 0,
    snapshot: invoice.snapshot,
  };
}

/**
 * The invoice's words as first read: written once (`snapshot is null`), so two first readers at once
 * agree on the stored one, and a later rename, email change or configuration change leaves it alone.
 */
async function frozen(deps: Deps, config: SellerConfig, rootId: string, loaded: Loaded): Promise<Snapshot> {
  if (loaded.snapshot) return JSON.parse(loaded.snapshot) as Snapshot;
  const [main] = loaded.lines;
  const snapshot: Snapshot = {
    titles: Object.fromEntries(loaded.lines.map((l) => [l.id, l.title])),
    onBehalfOf: (await publicCreator(deps.db, main.creator_id)).name,
    buyerEmail: main.buyer_email,
    // Stripe said ApeWall is not registered there: no number is claimed, whatever the configuration lists.
    registration:
      main.taxability_reason === "not_collecting" ? null : registrationFor(config, main.country, main.region),
    sellerAddress: config.address,
  };
  await deps.d1
    .prepare("update tax_invoices set snapshot = ?2 where purchase_id = ?1 and snapshot is null")
    .bind(rootId, JSON.stringify(snapshot))
    .run();
  const stored = await deps.d1
    .prepare("select snapshot from tax_invoices where purchase_id = ?")
    .bind(rootId)
    .first<{ snapshot: string | null }>();
  return stored?.snapshot ? (JSON.parse(stored.snapshot) as Snapshot) : snapshot;
}

const taxOf = (l: LineRow) => l.row_tax_cents ?? l.tax_cents;
const netOf = (l: LineRow) => l.net_cents ?? l.amount_cents - l.tax_cents;
/** An order's gross and tax over its lines, and whether any line was reverse charged. */
const totalsOf = (lines: LineRow[]) => ({
  gross: lines.reduce((a, l) => a + l.amount_cents, 0),
  tax: lines.reduce((a, l) => a + taxOf(l), 0),
  reverseCharge: lines.some((l) => l.taxability_reason === "reverse_charge"),
});
const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** "VAT (20%, France)", "Sales tax (Washington)": the tax as the invoice's totals name it. */
function taxLabel(main: LineRow): string | null {
  if (!main.taxed || (!main.tax_type && main.taxability_reason !== "reverse_charge")) return null;
  const place = placeName(main.country, main.region);
  const rate = formatRate(main.rate_percent);
  const name = main.tax_type ? taxName(main.tax_type) : "VAT";
  const where = main.tax_type === "sales_tax" || !rate ? place : `${rate}%, ${place}`;
  return `${capitalise(name)} (${where})`;
}

/**
 * What the invoice says; `pdfUrl`: the PDF's address for this caller. `maskEmail`: the reader holds
 * only a link (which may have been forwarded), so the buyer's email reads "b…@example.com", as the
 * success page shows it.
 */
export async function invoiceOf(
  deps: Deps,
  config: SellerConfig,
  rootId: string,
  pdfUrl: string,
  { maskEmail: mask = false } = {},
): Promise<Invoice | null> {
  const loaded = await load(deps.d1, rootId);
  if (!loaded) return null;
  const [main] = loaded.lines;
  const words = await frozen(deps, config, rootId, loaded);
  const { gross, tax, reverseCharge } = totalsOf(loaded.lines);
  const state = loaded.lines.some((l) => l.status === "disputed")
    ? "disputed"
    : loaded.refundedCents >= gross && gross > 0
      ? "refunded"
      : loaded.refundedCents > 0
        ? "partly_refunded"
        : "paid";
  return {
    number: invoiceNumber(loaded.number),
    title: tax > 0 || reverseCharge ? "Tax invoice" : "Invoice",
    issuedAt: new Date(loaded.issuedAt).toISOString(),
    currency: main.currency,
    seller: { name: PRODUCT_NAME, address: words.sellerAddress, registration: words.registration },
    onBehalfOf: words.onBehalfOf,
    buyer: {
      email: words.buyerEmail && mask ? maskEmail(words.buyerEmail, "…") : words.buyerEmail,
      vatId: main.vat_id,
      country: main.country,
      place: main.country ? placeName(main.country, main.region) : null,
    },
    lines: loaded.lines.map((l) => ({
      purchaseId: l.id,
      title: words.titles[l.id] ?? l.title,
      net: netOf(l) / 100,
      rate:
        l.taxed && (taxOf(l) > 0 || l.taxability_reason === "reverse_charge")
          ? (formatRate(l.rate_percent) ?? "0")
          : null,
      tax: taxOf(l) / 100,
      total: l.amount_cents / 100,
    })),
    net: (gross - tax) / 100,
    tax: tax / 100,
    total: gross / 100,
    taxLabel: taxLabel(main),
    reverseCharge: reverseCharge ? REVERSE_CHARGE_TEXT : null,
    state,
    refunded: Math.min(loaded.refundedCents, gross) / 100,
    pdfUrl,
  };
}

/**
 * The invoice link's own token, `{order}.{HMAC}`: it reads order `rootId`'s invoice and opens nothing
 * else (not the item: an invoice link is often forwarded to an accountant).
 */
const invoiceTokenFor = async (secret: string, rootId: string) => `${rootId}.${await sign(secret, "invoice", rootId)}`;

async function isInvoiceToken(secret: string, token: string | null | undefined, rootId: string): Promise<boolean> {
  const [id, sig, extra] = (token ?? "").split(".");
  return id === rootId && !!sig && extra === undefined && (await verify(secret, "invoice", sig, rootId));
}

/** `/api/purchases/{id}/invoice.pdf?access=…`: the PDF of purchase `id`'s order `rootId`, for whoever holds the link. */
export async function invoicePdfPath(
  deps: Pick<Deps, "accessSecret">,
  purchaseId: string,
  rootId: string,
): Promise<string> {
  return `/api/purchases/${purchaseId}/invoice.pdf?access=${encodeURIComponent(await invoiceTokenFor(deps.accessSecret, rootId))}`;
}

/** The verify answer's link to the order's invoice (the caller already holds the purchase); null while none. */
export async function invoiceLinkFor(
  deps: Deps,
  purchase: { id: string; bumpOf: string | null },
): Promise<InvoiceLink> {
  const row = await deps.d1
    .prepare("select number from tax_invoices where purchase_id = ?")
    .bind(purchase.bumpOf ?? purchase.id)
    .first<{ number: number }>();
  return row
    ? {
        number: invoiceNumber(row.number),
        url: await invoicePdfPath(deps, purchase.id, purchase.bumpOf ?? purchase.id),
      }
    : null;
}

/** The receipt's figures for the order of `purchaseId`: net, the tax line, total, invoice number and PDF link. */
async function mailTaxOf(deps: Deps, config: SellerConfig, purchaseId: string): Promise<MailTax | null> {
  const order = await orderOf(deps.d1, purchaseId);
  const loaded = order && (await load(deps.d1, order.root.id));
  if (!loaded) return null;
  // The receipt goes seconds after payment: the invoice's words are kept from here on.
  await frozen(deps, config, order.root.id, loaded);
  const [main] = loaded.lines;
  const { gross, tax, reverseCharge } = totalsOf(loaded.lines);
  const text = main.taxed
    ? taxLineText(
        {
          inclusive: !!main.inclusive,
          type: main.tax_type,
          rate: main.rate_percent,
          country: main.country,
          region: main.region,
          reverseCharge,
        },
        tax,
      )
    : null;
  return {
    netCents: gross - tax,
    taxCents: tax,
    totalCents: gross,
    taxText: text,
    invoiceNumber: invoiceNumber(loaded.number),
    invoiceUrl: new URL(await invoicePdfPath(deps, order.root.id, order.root.id), deps.appUrl).toString(),
  };
}

/**
 * A receipt as it is sent: the invoice's figures added to the buyer's receipt, order email and
 * "Added to your order" email (read when sent: the invoice is issued in the payment's batch).
 */
export async function withTaxInvoice(deps: Deps, config: SellerConfig, job: EmailJob | null): Promise<EmailJob | null> {
  if (!job) return job;
  try {
    if (job.template === "purchase-access" || job.template === "order-added") {
      const tax = await mailTaxOf(deps, config, job.data.orderId);
      return tax ? ({ ...job, data: { ...job.data, tax } } as EmailJob) : job;
    }
    if (job.template === "order" && job.data.items) {
      const taxes: MailTax[] = [];
      for (const item of job.data.items) {
        const tax = await mailTaxOf(deps, config, item.orderId);
        if (tax && !taxes.some((t) => t.invoiceNumber === tax.invoiceNumber)) taxes.push(tax);
      }
      return taxes.length ? { ...job, data: { ...job.data, taxes } } : job;
    }
  } catch (err) {
    // The receipt still goes (its access link matters most); the invoice stays on the success page.
    console.error("receipt: the invoice could not be read", job.dedupeKey, err);
  }
  return job;
}
