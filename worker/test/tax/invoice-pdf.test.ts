// The invoice PDF with hostile and long text (docs/tax.md, "Invoices"): an item title of the full
// 200 characters and a long email print whole (wrapped, never cut off), inside the page; ( ) and \
// stay escaped; characters outside WinAnsi print as "?"; the xref table is exact.
import { describe, expect, it } from "vitest";
import type { Invoice } from "../../../shared/invoices";
import { invoicePdf } from "../../services/tax/pdf";

const base: Invoice = {
  number: "AW-000123",
  title: "Tax invoice",
  issuedAt: "2026-11-27T12:00:00.000Z",
  currency: "usd",
  seller: { name: "ApeWall", address: "1 Example Street, Dublin D02 X000, Ireland", registration: "EU372000041" },
  onBehalfOf: "Maya Lens",
  buyer: { email: "buyer@example.com", vatId: null, country: "FR", place: "France" },
  lines: [{ purchaseId: "p1", title: "Guide", net: 8.33, rate: "20", tax: 1.67, total: 10 }],
  net: 8.33,
  tax: 1.67,
  total: 10,
  taxLabel: "VAT (20%, France)",
  reverseCharge: null,
  state: "paid",
  refunded: 0,
  pdfUrl: "/x",
};

/** Each text the page shows, unescaped, with its position. */
function textsOf(pdf: Uint8Array): { x: number; y: number; s: string }[] {
  const body = Array.from(pdf, (b) => String.fromCharCode(b)).join("");
  return [...body.matchAll(/1 0 0 1 ([\d.]+) ([\d.]+) Tm \(((?:\\.|[^\\)])*)\) Tj/g)].map((m) => ({
    x: Number(m[1]),
    y: Number(m[2]),
    s: m[3].replace(/\\([0-7]{3}|.)/g, (_, e: string) =>
      e.length === 3 ? String.fromCharCode(Number.parseInt(e, 8)) : e,
    ),
  }));
}

const squash = (s: string) => s.replace(/\s+/g, "");

describe("the invoice PDF with long and hostile text", () => {
  it("prints a 200-character title whole, wrapped within its column and above the footer", async () => {
    const title = `${"THE COMPLETE MASTERCLASS WORKBOOK ".repeat(6)}`.slice(0, 196).concat(" END");
    expect(title).toHaveLength(200);
    const pdf = invoicePdf({
      ...base,
      lines: [
        { ...base.lines[0], title },
        { purchaseId: "p2", title: "W".repeat(200), net: 3.33, rate: "20", tax: 0.67, total: 4 },
      ],
    });
    const texts = textsOf(pdf);
    const item = texts.filter((t) => t.x === 56 && t.y < 600 && t.y > 80 && t.s !== "Item");
    expect(squash(item.map((t) => t.s).join(""))).toContain(squash(title));
    expect(item.map((t) => t.s).join("")).toContain("W".repeat(200));
    // Everything stays above the footer's rule.
    expect(Math.min(...texts.filter((t) => !t.s.startsWith("ApeWall sells")).map((t) => t.y))).toBeGreaterThan(72);
  });

  it("prints a long buyer email and VAT number whole", async () => {
    const email = "accounts.payable.department.emea@subsidiary-company-name.example.com";
    const pdf = invoicePdf({ ...base, buyer: { ...base.buyer, email, vatId: "DE123456789" } });
    const billTo = textsOf(pdf).filter((t) => t.x === 320);
    expect(squash(billTo.map((t) => t.s).join(""))).toContain(email);
    expect(billTo.map((t) => t.s)).toContain("VAT number: DE123456789");
    expect(billTo.map((t) => t.s)).toContain("France");
  });

  it("escapes ( ) and \\, prints non-Latin letters as ?, and keeps an exact xref", async () => {
    const pdf = invoicePdf({
      ...base,
      onBehalfOf: "Maya ) ( \\ Lens",
      lines: [{ ...base.lines[0], title: "Привет 日本 (draft) \\ end" }],
    });
    const body = Array.from(pdf, (b) => String.fromCharCode(b)).join("");
    expect(body).toContain("(?????? ?? \\(draft\\) \\\\ end) Tj");
    expect(body).toContain("(Sold on behalf of Maya \\) \\( \\\\ Lens, who made this item.) Tj");
    expect(pdf.every((b) => b < 0x80 || body.indexOf(String.fromCharCode(b)) < 20)).toBe(true);
    const xref = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(body)![1]);
    const entries = body.slice(xref).split("\n").slice(3, 8);
    for (const [i, e] of entries.entries())
      expect(body.slice(Number(e.slice(0, 10)))).toMatch(new RegExp(`^${i + 1} 0 obj`));
  });

  it("a partly refunded order later disputed says Disputed, not the refunded sum as if disputed", async () => {
    const texts = textsOf(invoicePdf({ ...base, state: "disputed", refunded: 3 })).map((t) => t.s);
    expect(texts).toContain("Disputed");
    expect(texts.some((s) => s.startsWith("Disputed:"))).toBe(false);
    expect(texts).toContain("Amount refunded");
    expect(texts).toContain("-$3.00");
    expect(textsOf(invoicePdf({ ...base, state: "partly_refunded", refunded: 3 })).map((t) => t.s)).toContain(
      "Partly refunded: $3.00",
    );
  });

  it("a Latin letter outside WinAnsi prints as its base letter (Dvořák as Dvorák), not as ?", async () => {
    const pdf = invoicePdf({
      ...base,
      onBehalfOf: "Anna Dvořáková",
      lines: [{ ...base.lines[0], title: "Kraków, Łódź, Bucureşti, Şanlıurfa, Đakovo, Tōkyō" }],
    });
    const texts = textsOf(pdf).map((t) => t.s);
    // ó and á are WinAnsi's own; ł, ź, ş, ı, Đ, ō, ř are not, and print as l, z, s, i, D, o, r.
    expect(texts).toContain("Kraków, Lódz, Bucuresti, Sanliurfa, Dakovo, Tokyo");
    expect(texts).toContain(`Sold on behalf of Anna ${"Dvořáková".replace("ř", "r")}, who made this item.`);
  });
});
