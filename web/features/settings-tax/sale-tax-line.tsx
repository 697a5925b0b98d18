// A taxed sale's tax and net under its amount (the sales table, the money timeline): "VAT $2.00 · net $10.00".
// A sale without tax shows nothing. docs/tax.md ("What the creator sees").
import { formatDollars } from "@shared/money";
import { formatRate, placeName, taxName } from "@shared/tax";
import type { SaleTax } from "@shared/tax-settings";
import { cn } from "@/lib/utils";

const upperFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** "20%, France" / "Washington": where the tax was due, and its rate (US sales tax names the state alone). */
const whereOf = (tax: SaleTax) => {
  const place = placeName(tax.country, tax.region);
  return tax.type === "sales_tax" || !tax.rate ? place : `${formatRate(tax.rate)}%, ${place}`;
};

export function SaleTaxLine({ tax, className }: { tax: SaleTax | null; className?: string }) {
  if (!tax) return null;
  const text = tax.reverseCharge
    ? `Reverse charge · net ${formatDollars(tax.net)}`
    : `${upperFirst(taxName(tax.type))} ${formatDollars(tax.amount)} · net ${formatDollars(tax.net)}`;
  return (
    <span
      className={cn("block text-xs font-normal text-muted-foreground", className)}
      data-testid="sale-tax"
      title={`${tax.reverseCharge ? "No VAT charged: the business buyer accounts for it" : "Tax collected for the tax authorities"} (${whereOf(tax)}). Net: the price without tax.`}
    >
      {text}
    </span>
  );
}
