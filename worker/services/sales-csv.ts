// The creator's sales as CSV (the sales table's "Download CSV"): each sale with its gross, tax and
// net apart, ApeWall's fee on the net and the creator's share, as the ledger booked them.
// docs/tax.md ("What the creator sees"), docs/money.md.
import { and, desc, eq, sql } from "drizzle-orm";
import { dollarsField } from "../../shared/money";
import type { Db } from "../db/client";
import { content, purchases } from "../db/schema";
import { csvCell } from "./payouts-csv";
import { saleTaxCents, taxDetailsColumn } from "./tax/sale-tax-view";

const SALES_CSV_COLUMNS = [
  "sale_id",
  "date",
  "product",
  "buyer_email",
  "status",
  "gross",
  "tax",
  "net",
  "tax_type",
  "tax_rate",
  "tax_country",
  "tax_region",
  "reverse_charge",
  "fee",
  "your_share",
  "refunded",
  "discount_code",
  "currency",
] as const;

/** Enough for years of sales of one creator; a CSV larger than this would not open in a spreadsheet anyway. */
const MAX_ROWS = 100_000;
const PAGE = 1000;

const money = (cents: unknown) => dollarsField(Number(cents ?? 0) / 100);

/** Every sale (paid, refunded or disputed), newest first, one line each. */
export async function salesCsv(db: Db, userId: string): Promise<string> {
  const lines = [SALES_CSV_COLUMNS.join(",")];
  for (let offset = 0; offset < MAX_ROWS; offset += PAGE) {
    const rows = await db
      .select({
        id: purchases.id,
        paidAt: purchases.paidAt,
        product: content.title,
        buyerEmail: purchases.buyerEmail,
        status: purchases.status,
        amountCents: purchases.amountCents,
        taxCents: purchases.taxCents,
        currency: purchases.currency,
        taxDetails: taxDetailsColumn,
        feeCents: sql<number>`(select coalesce(sum(amount_cents), 0) from ledger_entries where purchase_id = ${purchases.id} and account = 'platform' and kind = 'platform_fee')`,
        shareCents: sql<number>`(select coalesce(sum(amount_cents), 0) from ledger_entries where purchase_id = ${purchases.id} and account = 'creator' and kind = 'sale')`,
        refundedCents: sql<number>`(select -coalesce(sum(amount_cents), 0) from ledger_entries where purchase_id = ${purchases.id} and kind = 'refund')`,
        discountCode: sql<string | null>`(select code from discount_codes where id = ${purchases.discountCodeId})`,
      })
      .from(purchases)
      .innerJoin(content, eq(content.id, purchases.contentId))
      .where(
        and(
          eq(purchases.creatorId, userId),
          sql`${purchases.status} in ('paid', 'refunded', 'disputed')`,
          sql`${purchases.paidAt} is not null`,
        ),
      )
      .orderBy(desc(purchases.paidAt), desc(purchases.id))
      .limit(PAGE)
      .offset(offset);
    for (const r of rows) {
      const tax = saleTaxCents(r.amountCents, r.taxCents, r.taxDetails);
      lines.push(
        [
          r.id,
          r.paidAt?.toISOString() ?? "",
          r.product,
          r.buyerEmail ?? "",
          r.status === "paid" ? "completed" : r.status,
          money(r.amountCents),
          money(tax?.amountCents ?? 0),
          money(r.amountCents - (tax?.amountCents ?? 0)),
          tax?.type ?? "",
          tax?.rate ?? "",
          tax?.country ?? "",
          tax?.region ?? "",
          tax?.reverseCharge ? "yes" : "",
          money(r.feeCents),
          money(r.shareCents),
          money(r.refundedCents),
          r.discountCode ?? "",
          r.currency.toUpperCase(),
        ]
          .map(csvCell)
          .join(","),
      );
    }
    if (rows.length < PAGE) break;
  }
  return `${lines.join("\r\n")}\r\n`;
}
