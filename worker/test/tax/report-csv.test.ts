// Review of the tax CSVs (docs/tax.md "The admin's tax report", "What the creator sees"): a month
// whose tax owed is negative (a refund of an earlier month's sale, a dispute won after the month it
// was taken) must read as a number in a spreadsheet, and a title that looks like a formula must not.
import { beforeAll, describe, expect, it } from "vitest";
import { monthRange } from "../../services/tax/report";
import { call, env, row, signIn } from "../support/helpers";

const tag = Math.random().toString(36).slice(2, 8);
let admin = "";
let creator = "";
let creatorId = "";
const itemId = `rvitem${tag}`;

const ledgerRow = (key: string, kind: string, cents: number, purchaseId: string, at: number) =>
  env.DB.prepare(
    "insert into ledger_entries (idempotency_key, account, kind, amount_cents, purchase_id, created_at) values (?, 'tax', ?, ?, ?, ?)",
  ).bind(key, kind, cents, purchaseId, at);

beforeAll(async () => {
  admin = await signIn("admin@apewall.test");
  const email = `review-csv-${tag}@example.com`;
  creator = await signIn(email);
  creatorId = (await row<{ id: string }>("select id from users where email = ?", email))!.id;
  await env.DB.prepare("insert into content (id, user_id, title, price_cents) values (?, ?, ?, 1250)")
    .bind(itemId, creatorId, '=HYPERLINK("http://evil.example","Guide")')
    .run();
});

describe("the admin's tax CSV", () => {
  it("writes a negative figure as a number, not as text behind a quote", async () => {
    const [june] = monthRange({ year: 2024, month: 6 });
    const [july] = monthRange({ year: 2024, month: 7 });
    const id = `rvsale${tag}`;
    await env.DB.batch([
      env.DB.prepare(
        "insert into purchases (id, content_id, creator_id, buyer_email, amount_cents, tax_cents, status, paid_at, created_at) values (?, ?, ?, 'no@example.com', 1250, 250, 'refunded', ?, ?)",
      ).bind(id, itemId, creatorId, june + 1000, june + 1000),
      env.DB.prepare(
        "insert into purchase_taxes (purchase_id, country, region, tax_type, rate_percent, taxability_reason, inclusive, net_cents, tax_cents, evidence) values (?, 'NO', null, 'vat', '25', 'standard_rated', 1, 1000, 250, '{}')",
      ).bind(id),
      ledgerRow(`sale:${id}:tax`, "tax", 250, id, june + 1000),
      // Refunded in July: July's return gives the tax back.
      ledgerRow(`refund:re_${tag}:tax`, "refund", -250, id, july + 5000),
    ]);
    const report = await (await call("/api/admin/tax/report?month=7&year=2024", { cookie: admin })).json<{
      total: { taxOwedCents: number };
    }>();
    expect(report.total.taxOwedCents).toBe(-250);
    const res = await call("/api/admin/tax/report.csv?month=7&year=2024", { cookie: admin });
    expect(res.status).toBe(200);
    const lines = (await res.text()).trim().split("\r\n");
    expect(lines).toContain("Norway,NO,,vat,0,0.00,0.00,2.50,-2.50,USD");
    expect(lines.at(-1)).toBe("Total,,,,0,0.00,0.00,2.50,-2.50,USD");
  });
});

describe("the creator's sales CSV", () => {
  it("neutralises a title that starts like a formula", async () => {
    const id = `rvsale2${tag}`;
    const at = Date.now() - 1000;
    await env.DB.prepare(
      "insert into purchases (id, content_id, creator_id, buyer_email, amount_cents, tax_cents, status, paid_at, created_at) values (?, ?, ?, '+1@example.com', 1250, 0, 'paid', ?, ?)",
    )
      .bind(id, itemId, creatorId, at, at)
      .run();
    const csv = await (await call("/api/creator/sales/export", { cookie: creator })).text();
    const line = csv.split("\r\n").find((l) => l.startsWith(id))!;
    expect(line).toContain(`"'=HYPERLINK(""http://evil.example"",""Guide"")"`);
    expect(line).toContain(",'+1@example.com,");
  });
});
