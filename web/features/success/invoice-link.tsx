// "Download invoice (PDF)" on a library card, from the list's invoice number (a refunded purchase's
// invoice too); the success page draws its own (worker/pages/success.tsx). Behaviour: docs/tax.md ("Invoices").
import { FileText } from "lucide-react";
import { INVOICE_LINK_TEXT, type InvoiceLink as Link } from "@shared/invoices";
import { Button } from "@/components/ui/button";

/** The link, with the invoice's number beside it (`compact`: in its title only); `download` saves the file. */
function InvoiceLink({
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

/** A library card's link: the library session reads the PDF itself, so the link needs no token. */
export function PurchaseInvoiceLink({ purchaseId, number }: { purchaseId: string; number: string | null }) {
  if (!number) return null;
  return <InvoiceLink invoice={{ number, url: `/api/purchases/${purchaseId}/invoice.pdf` }} compact />;
}
