// The invoice as a PDF, written here with no library: a minimal PDF 1.4 writer (the standard
// Helvetica fonts in WinAnsi encoding, text, lines and filled boxes, an exact xref table) and the
// invoice's one-page layout. Behaviour: docs/tax.md ("Invoices").
import type { Invoice } from "../../../shared/invoices";
import { formatDollars } from "../../../shared/money";

// Helvetica and Helvetica-Bold advance widths (1/1000 em) for ASCII 32..126, from Adobe's AFM files.
const HELVETICA = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556, 556, 556,
  556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833,
  722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556,
  556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334,
  260, 334, 584,
];
const HELVETICA_BOLD = [
  278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556, 556, 556,
  556, 556, 556, 333, 333, 584, 584, 584, 611, 975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833,
  722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556, 333, 556, 611, 556, 611,
  556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611, 611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389,
  280, 389, 584,
];

// WinAnsiEncoding's bytes 0x80..0x9F (cp1252); 0xA0..0xFF are Latin-1's own code points.
const CP1252: Record<string, number> = {
  "€": 0x80,
  "‚": 0x82,
  ƒ: 0x83,
  "„": 0x84,
  "…": 0x85,
  "†": 0x86,
  "‡": 0x87,
  ˆ: 0x88,
  "‰": 0x89,
  Š: 0x8a,
  "‹": 0x8b,
  Œ: 0x8c,
  Ž: 0x8e,
  "‘": 0x91,
  "’": 0x92,
  "“": 0x93,
  "”": 0x94,
  "•": 0x95,
  "–": 0x96,
  "—": 0x97,
  "˜": 0x98,
  "™": 0x99,
  š: 0x9a,
  "›": 0x9b,
  œ: 0x9c,
  ž: 0x9e,
  Ÿ: 0x9f,
};

// Latin letters with no decomposition to a WinAnsi base letter.
const BASE_LETTER: Record<string, string> = { ł: "l", Ł: "L", đ: "d", Đ: "D", ı: "i", ħ: "h", Ħ: "H", ŧ: "t", Ŧ: "T" };

/**
 * A character's WinAnsi byte; a Latin letter the encoding lacks as its base letter (ř as r, ł as l),
 * so a name stays readable; else "?"'s (emoji, CJK, Cyrillic).
 */
function winAnsiByte(ch: string): number {
  const code = ch.codePointAt(0) ?? 63;
  if (code >= 32 && code <= 126) return code;
  if (CP1252[ch] !== undefined) return CP1252[ch];
  if (code >= 0xa0 && code <= 0xff) return code;
  const base = BASE_LETTER[ch] ?? ch.normalize("NFD").charAt(0);
  if (base !== ch && /^[A-Za-z]$/.test(base)) return base.charCodeAt(0);
  return 63;
}

/** A PDF literal string's body: WinAnsi bytes, `\ ( )` escaped, bytes past ASCII as octal, so the file stays 7-bit. */
function pdfText(s: string): string {
  let out = "";
  for (const ch of s.normalize("NFC")) {
    const b = winAnsiByte(ch);
    if (b === 0x5c || b === 0x28 || b === 0x29) out += `\\${String.fromCharCode(b)}`;
    else if (b < 32 || b > 126) out += `\\${b.toString(8).padStart(3, "0")}`;
    else out += String.fromCharCode(b);
  }
  return out;
}

/** The width in points of `s` set in the font at `size` (an accented letter as wide as its base letter). */
function textWidth(s: string, size: number, bold = false): number {
  const widths = bold ? HELVETICA_BOLD : HELVETICA;
  let w = 0;
  for (const ch of s.normalize("NFC")) {
    const base = ch.normalize("NFD").charCodeAt(0);
    w += base >= 32 && base <= 126 ? widths[base - 32] : 556;
  }
  return (w * size) / 1000;
}

type TextStyle = { size?: number; bold?: boolean; gray?: number; align?: "left" | "right" };

/** One page's drawing operators (origin bottom left, points). */
class PdfPage {
  readonly ops: string[] = [];
  text(x: number, y: number, s: string, { size = 10, bold = false, gray = 0, align = "left" }: TextStyle = {}) {
    const left = align === "right" ? x - textWidth(s, size, bold) : x;
    this.ops.push(
      `BT ${gray} g /${bold ? "F2" : "F1"} ${size} Tf 1 0 0 1 ${left.toFixed(2)} ${y.toFixed(2)} Tm (${pdfText(s)}) Tj ET`,
    );
  }
  line(x1: number, y1: number, x2: number, y2: number, gray = 0.8, width = 0.5) {
    this.ops.push(`${gray} G ${width} w ${x1} ${y1} m ${x2} ${y2} l S`);
  }
  box(x: number, y: number, w: number, h: number, gray = 0.95) {
    this.ops.push(`${gray} g ${x} ${y} ${w} ${h} re f`);
  }
}

/** `s` cut into lines no wider than `width` (at word breaks where it can; a long word is cut). */
function wrap(s: string, width: number, size: number, bold = false): string[] {
  const lines: string[] = [];
  let current = "";
  for (const word of s.split(/\s+/).filter(Boolean)) {
    let next = current ? `${current} ${word}` : word;
    if (textWidth(next, size, bold) <= width) {
      current = next;
      continue;
    }
    if (current) lines.push(current);
    next = word;
    while (textWidth(next, size, bold) > width) {
      let cut = next.length - 1;
      while (cut > 1 && textWidth(next.slice(0, cut), size, bold) > width) cut--;
      lines.push(next.slice(0, cut));
      next = next.slice(cut);
    }
    current = next;
  }
  if (current || !lines.length) lines.push(current);
  return lines;
}

const A4 = { w: 595.28, h: 841.89 };

/** The document: a catalog, its pages, the two fonts and an Info dictionary, with a byte-exact xref. */
function pdfDocument(pages: PdfPage[], title: string): Uint8Array<ArrayBuffer> {
  const objects: string[] = [];
  const add = (body: string) => objects.push(body);
  const pageIds = pages.map((_, i) => 6 + i * 2);
  add("<< /Type /Catalog /Pages 2 0 R >>");
  add(`<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(" ")}] /Count ${pages.length} >>`);
  add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
  add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>");
  add(`<< /Title (${pdfText(title)}) /Producer (ApeWall) >>`);
  for (const [i, page] of pages.entries()) {
    const stream = page.ops.join("\n");
    add(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${A4.w} ${A4.h}] /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents ${pageIds[i] + 1} 0 R >>`,
    );
    add(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  }
  // One character is one byte here (the body is 7-bit, the header's comment Latin-1), so lengths are offsets.
  let out = "%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n";
  const offsets: number[] = [];
  for (const [i, body] of objects.entries()) {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  }
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 5 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  const bytes = new Uint8Array(out.length);
  for (let i = 0; i < out.length; i++) bytes[i] = out.charCodeAt(i);
  return bytes;
}

const STATE_WORDS = { paid: null, partly_refunded: "Partly refunded", refunded: "Refunded", disputed: "Disputed" };

/** The invoice on one A4 page: header, seller and buyer, the lines, the totals, the notes. */
export function invoicePdf(inv: Invoice): Uint8Array<ArrayBuffer> {
  const p = new PdfPage();
  const L = 50;
  const R = A4.w - 50;
  const issued = new Date(inv.issuedAt).toLocaleDateString("en-GB", {
    day: "numeric",
    month: "long",
    year: "numeric",
    timeZone: "UTC",
  });
  p.text(L, 780, inv.seller.name, { size: 22, bold: true });
  p.text(R, 782, inv.title, { size: 18, bold: true, align: "right" });
  p.text(R, 762, `Invoice ${inv.number}`, { size: 10, align: "right" });
  p.text(R, 748, `Issued ${issued}`, { size: 10, gray: 0.35, align: "right" });
  const state = STATE_WORDS[inv.state];
  if (state)
    // The sum beside a refund state only: a disputed order's refunds are under "Amount refunded".
    p.text(R, 734, inv.refunded > 0 && inv.state !== "disputed" ? `${state}: ${formatDollars(inv.refunded)}` : state, {
      size: 10,
      bold: true,
      align: "right",
    });

  let y = 700;
  const label = (x: number, yy: number, s: string) =>
    p.text(x, yy, s.toUpperCase(), { size: 8, bold: true, gray: 0.45 });
  label(L, y, "Seller");
  label(320, y, "Bill to");
  const seller = [inv.seller.name, ...(inv.seller.address ? wrap(inv.seller.address, 250, 10) : [])];
  if (inv.seller.registration) seller.push(`Tax registration: ${inv.seller.registration}`);
  const buyer = [inv.buyer.email ?? "No email on this order"];
  if (inv.buyer.vatId) buyer.push(`VAT number: ${inv.buyer.vatId}`);
  if (inv.buyer.place) buyer.push(inv.buyer.place);
  // Wrapped whole: an invoice never cuts off who it is billed to.
  const buyerLines = buyer.flatMap((s) => wrap(s, 225, 10));
  for (const [i, s] of seller.entries()) p.text(L, y - 15 - i * 14, s);
  for (const [i, s] of buyerLines.entries()) p.text(320, y - 15 - i * 14, s);
  y -= 15 + Math.max(seller.length, buyerLines.length) * 14 + 6;
  for (const s of wrap(`Sold on behalf of ${inv.onBehalfOf ?? "an ApeWall creator"}, who made this item.`, R - L, 10)) {
    p.text(L, y, s, { gray: 0.35 });
    y -= 14;
  }

  // The lines: Item | Net | Rate | Tax | Total.
  y -= 16;
  const cols = { net: 360, rate: 415, tax: 475, total: R - 6 };
  p.box(L, y - 6, R - L, 20);
  p.text(L + 6, y, "Item", { size: 9, bold: true });
  p.text(cols.net, y, "Net", { size: 9, bold: true, align: "right" });
  p.text(cols.rate, y, "Rate", { size: 9, bold: true, align: "right" });
  p.text(cols.tax, y, "Tax", { size: 9, bold: true, align: "right" });
  p.text(cols.total, y, "Total", { size: 9, bold: true, align: "right" });
  y -= 24;
  for (const line of inv.lines) {
    // Whole: a title has at most 200 characters, 9 lines at worst, which the page has room for.
    const title = wrap(line.title, 230, 10);
    for (const [i, s] of title.entries()) p.text(L + 6, y - i * 13, s);
    p.text(cols.net, y, formatDollars(line.net), { align: "right" });
    p.text(cols.rate, y, line.rate === null ? "-" : `${line.rate}%`, { align: "right" });
    p.text(cols.tax, y, formatDollars(line.tax), { align: "right" });
    p.text(cols.total, y, formatDollars(line.total), { align: "right" });
    y -= title.length * 13 + 8;
    p.line(L, y + 4, R, y + 4);
    y -= 10;
  }

  // The totals, right-aligned under the table.
  const totals: [string, string, boolean][] = [
    ["Net", formatDollars(inv.net), false],
    [inv.taxLabel ?? "Tax", formatDollars(inv.tax), false],
    [`Total (${inv.currency.toUpperCase()})`, formatDollars(inv.total), true],
  ];
  for (const [name, amount, bold] of totals) {
    p.text(cols.tax - 70, y, name, { bold, align: "right" });
    p.text(cols.total, y, amount, { bold, align: "right" });
    y -= 16;
  }
  if (inv.refunded > 0) {
    p.text(cols.tax - 70, y, "Amount refunded", { align: "right" });
    p.text(cols.total, y, `-${formatDollars(inv.refunded)}`, { align: "right" });
    y -= 16;
  }
  y -= 10;
  if (inv.reverseCharge) {
    p.text(L, y, inv.reverseCharge, { bold: true });
    y -= 16;
  }
  p.line(L, 70, R, 70);
  p.text(
    L,
    56,
    `${inv.seller.name} sells this digital item on behalf of its creator. Amounts in ${inv.currency.toUpperCase()}.`,
    {
      size: 8,
      gray: 0.45,
    },
  );
  return pdfDocument([p], `${inv.title} ${inv.number}`);
}
