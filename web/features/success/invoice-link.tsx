// "Download invoice (PDF)": on the success page from the verify answer's invoice, and on a library
// card from the invoice route itself (a refunded purchase's invoice too). Behaviour: docs/tax.md ("Invoices").
import { useQuery } from "@tanstack/react-query";
import { FileText } from "lucide-react";
import { INVOICE_LINK_TEXT, type InvoiceLink as Link } from "@shared/invoices";
import { Button } from "@/components/ui/button";
import { api, apiKey } from "@/lib/api";

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

/** A library card's link: asks whether the order has an invoice (404: none, so nothing shows). */
export function PurchaseInvoiceLink({ purchaseId, enabled = true }: { purchaseId: string; enabled?: boolean }) {
  const invoice = useQuery({
    queryKey: apiKey("GET /api/purchases/:id/invoice", { params: { id: purchaseId } }),
    enabled,
    staleTime: 5 * 60_000,
    retry: false,
    queryFn: async ({ signal }) => {
      try {
        return await api("GET /api/purchases/:id/invoice", { params: { id: purchaseId }, signal });
      } catch (err) {
        if (err instanceof Error && err.message.startsWith("404: ")) return null;
        throw err;
      }
    },
  });
  if (!invoice.data) return null;
  return <InvoiceLink invoice={{ number: invoice.data.number, url: invoice.data.pdfUrl }} compact />;
}
