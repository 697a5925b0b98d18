// "Download invoice (PDF)" on the success page, from the verify answer's invoice (the library's cards
// draw theirs on the server, worker/pages/library-card.tsx). Behaviour: docs/tax.md ("Invoices").
import { FileText } from "lucide-react";
import { INVOICE_LINK_TEXT, type InvoiceLink as Link } from "@shared/invoices";
import { Button } from "@/components/ui/button";

/** The link, with the invoice's number beside it (`compact`: in its title only); `download` saves the file. */
export function InvoiceLink({
  invoice,
  className,
  compact = false,
}: {
  invoice: NonNullable<Link>;
  className?: string;
  compact?: boolean;
}) {
  const button = (
    <Button asChild variant="outline" size="sm" {...(compact ? { "data-testid": "invoice-link" } : {})}>
      <a href={invoice.url} download title={`Invoice ${invoice.number}`}>
        <FileText /> {INVOICE_LINK_TEXT}
      </a>
    </Button>
  );
  if (compact) return button;
  return (
    <span
      className={`inline-flex flex-wrap items-center gap-x-2 gap-y-1 ${className ?? ""}`}
      data-testid="invoice-link"
    >
      {button}
      <span className="text-xs text-muted-foreground">Invoice {invoice.number}</span>
    </span>
  );
}
