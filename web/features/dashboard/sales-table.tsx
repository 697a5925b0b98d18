// The creator's sales, newest first: a table on a wide screen; on a phone a stacked row per sale
// (product, buyer, amount, status and Refund in view, nothing to scroll sideways). Status words as
// other screens write them ("Completed", "Refunded", "Disputed"). Refunds: ./refund-dialog.tsx and
// docs/refunds-and-disputes.md; the receipt's delivery and "Resend receipt": ./receipt-cell.tsx.
import { Download, Receipt } from "lucide-react";
import { useState, useSyncExternalStore } from "react";
import type { Sale } from "@shared/earnings";
import { EmptyState } from "@/components/empty-state";
import { SectionSpinner } from "@/components/spinner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { LicenseCell } from "@/features/licenses/license-cell";
import { SaleTaxLine } from "@/features/settings-tax/sale-tax-line";
import { useSalesPages } from "@/features/payouts/pages";
import { formatDollars } from "@shared/money";
import { ReceiptBadge, ResendReceiptButton } from "./receipt-cell";
import { RefundDialog, refundLabel } from "./refund-dialog";
import { useUnauthorizedRedirect } from "./use-unauthorized-redirect";
import { LoadFailed } from "@/components/load-failed";

const statusVariant = (status: string) =>
  status === "completed" ? "success" : status === "pending" ? "warning" : "destructive";
/** The API's status ("completed", "disputed"…) as a word on the screen. */
const statusWord = (status: string) => status.charAt(0).toUpperCase() + status.slice(1).replace(/_/g, " ");

const WIDE = "(min-width: 768px)";
/** One layout in the page at a time (tests and screen readers meet each sale once). */
function useWide(): boolean {
  return useSyncExternalStore(
    (changed) => {
      const m = matchMedia(WIDE);
      m.addEventListener("change", changed);
      return () => m.removeEventListener("change", changed);
    },
    () => matchMedia(WIDE).matches,
  );
}

function Product({ sale }: { sale: Sale }) {
  return (
    <>
      {sale.productName}
      {sale.orderBump && (
        <span
          className="ml-1.5 whitespace-nowrap rounded bg-violet-50 px-1.5 py-0.5 text-xs font-normal text-violet-800"
          data-testid="sale-bump"
          title="Bought as an order bump, in the same payment as the item it was offered with"
        >
          Order bump
        </span>
      )}
    </>
  );
}

function Amount({ sale }: { sale: Sale }) {
  return (
    <>
      {formatDollars(sale.amount)}
      {sale.discountCode && (
        <span
          className="ml-1.5 rounded bg-emerald-50 px-1.5 py-0.5 font-mono text-xs break-all text-emerald-800"
          data-testid="sale-code"
          title="Discount code"
        >
          {sale.discountCode}
        </span>
      )}
      <SaleTaxLine tax={sale.tax} />
    </>
  );
}

function Status({ sale }: { sale: Sale }) {
  const refund = refundLabel(sale);
  return (
    <div className="flex flex-wrap items-center gap-1.5">
      <Badge variant={statusVariant(sale.status)}>{statusWord(sale.status)}</Badge>
      {refund && sale.status !== "refunded" && (
        <Badge
          variant={sale.refundFailed && !sale.refundPending && sale.refundedAmount === 0 ? "destructive" : "warning"}
          data-testid="refund-state"
        >
          {refund}
        </Badge>
      )}
    </div>
  );
}

function RefundButton({ sale, onRefund }: { sale: Sale; onRefund: (s: Sale) => void }) {
  if (sale.refundable <= 0) return null;
  return (
    <Button
      size="sm"
      variant="outline"
      onClick={() => onRefund(sale)}
      aria-label={`Refund ${sale.productName} sale to ${sale.buyerEmail ?? "buyer"}`}
    >
      Refund
    </Button>
  );
}

/** The receipt's delivery and "Resend receipt" (nothing for a sale without either). */
function SaleReceipt({ sale }: { sale: Sale }) {
  return (
    <div className="flex flex-wrap items-center gap-1.5 empty:hidden" data-testid="sale-receipt">
      <ReceiptBadge sale={sale} />
      <ResendReceiptButton sale={sale} />
    </div>
  );
}

const buyerOf = (sale: Sale) => sale.buyerEmail || <span className="text-muted-foreground">(no email captured)</span>;
const dateOf = (sale: Sale) => (sale.createdAt ? new Date(sale.createdAt).toLocaleDateString() : "—");

/** A phone's stacked row: what was sold and for how much, who bought it and when, its status and Refund. */
function SaleItem({ sale, withKeys, onRefund }: { sale: Sale; withKeys: boolean; onRefund: (s: Sale) => void }) {
  return (
    <li className="space-y-2 px-4 py-3" data-testid="sale-item">
      <div className="flex items-start justify-between gap-3">
        <p className="min-w-0 font-medium break-words">
          <Product sale={sale} />
        </p>
        <p className="shrink-0 text-right font-semibold">
          {formatDollars(sale.amount)}
          <SaleTaxLine tax={sale.tax} />
        </p>
      </div>
      <p className="text-sm break-all text-muted-foreground">
        {buyerOf(sale)} · {dateOf(sale)}
      </p>
      {sale.discountCode && (
        <p className="text-sm text-muted-foreground">
          Code{" "}
          <span className="font-mono break-all text-emerald-800" data-testid="sale-code">
            {sale.discountCode}
          </span>
        </p>
      )}
      {withKeys && sale.license && (
        <div className="min-w-0 break-all">
          <LicenseCell license={sale.license} />
        </div>
      )}
      <div className="flex flex-wrap items-center justify-between gap-2">
        <Status sale={sale} />
        <RefundButton sale={sale} onRefund={onRefund} />
      </div>
      <SaleReceipt sale={sale} />
    </li>
  );
}

/** Spec §6: the sales call is made only while the sales tab is shown (this component mounts then). */
export function SalesTable() {
  const { data, isLoading, error, hasNextPage, fetchNextPage, isFetchingNextPage } = useSalesPages();
  const [refunding, setRefunding] = useState<Sale | null>(null);
  const wide = useWide();
  useUnauthorizedRedirect(error);

  if (isLoading) return <SectionSpinner />;
  if (error) {
    return <LoadFailed what="your sales" detail={error.message} className="py-16 text-center" />;
  }
  // The server pages newest first; pages are only appended.
  const sales = data?.pages.flat() ?? [];
  if (sales.length === 0) {
    return (
      <EmptyState
        icon={Receipt}
        title="No sales yet"
        text="Share your paywall links: every purchase shows up here with the buyer's email."
      />
    );
  }
  // The column shows only once some sale has a key.
  const withKeys = sales.some((s) => s.license);
  return (
    <Card className="overflow-hidden py-0">
      {!wide ? (
        <ul className="divide-y">
          {sales.map((sale) => (
            <SaleItem key={sale.id} sale={sale} withKeys={withKeys} onRefund={setRefunding} />
          ))}
        </ul>
      ) : (
        // relative: the header's sr-only label is positioned; it must scroll inside this box, not widen the page.
        <div className="relative overflow-x-auto">
          <table className="w-full text-sm">
            <thead className="bg-muted/60 text-left text-muted-foreground">
              <tr>
                <th className="px-4 py-3 font-medium">Buyer</th>
                <th className="px-4 py-3 font-medium">Product</th>
                <th className="px-4 py-3 font-medium">Amount</th>
                <th className="px-4 py-3 font-medium">Date</th>
                <th className="px-4 py-3 font-medium">Status</th>
                <th className="px-4 py-3 font-medium">Receipt</th>
                {withKeys && <th className="px-4 py-3 font-medium">License key</th>}
                <th className="px-4 py-3 font-medium">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {sales.map((sale) => (
                <tr key={sale.id} className="border-t">
                  <td className="px-4 py-3">{buyerOf(sale)}</td>
                  <td className="px-4 py-3">
                    <Product sale={sale} />
                  </td>
                  <td className="px-4 py-3 font-medium">
                    <Amount sale={sale} />
                  </td>
                  <td className="px-4 py-3 text-muted-foreground">{dateOf(sale)}</td>
                  <td className="px-4 py-3">
                    <Status sale={sale} />
                  </td>
                  <td className="px-4 py-3">
                    <SaleReceipt sale={sale} />
                  </td>
                  {withKeys && (
                    <td className="px-4 py-3">
                      <LicenseCell license={sale.license} />
                    </td>
                  )}
                  <td className="px-4 py-3 text-right">
                    <RefundButton sale={sale} onRefund={setRefunding} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div className="flex items-center justify-between border-t px-4 py-3 text-sm text-muted-foreground">
        <span>
          Showing {sales.length.toLocaleString()} {sales.length === 1 ? "sale" : "sales"}
        </span>
        <div className="flex flex-wrap items-center gap-2">
          {hasNextPage && (
            <Button size="sm" variant="outline" onClick={() => fetchNextPage()} disabled={isFetchingNextPage}>
              {isFetchingNextPage ? "Loading..." : "Load more"}
            </Button>
          )}
          <Button size="sm" variant="outline" asChild>
            <a href="/api/creator/sales/export" download data-testid="sales-csv">
              <Download className="size-4" /> Download CSV
            </a>
          </Button>
        </div>
      </div>
      {refunding && <RefundDialog sale={refunding} onClose={() => setRefunding(null)} />}
    </Card>
  );
}
