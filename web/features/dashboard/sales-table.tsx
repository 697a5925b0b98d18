import { Receipt } from "lucide-react";
import { useState } from "react";
import type { Sale } from "@shared/earnings";
import { EmptyState } from "@/components/empty-state";
import { SectionSpinner } from "@/components/spinner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { LicenseCell } from "@/features/licenses/license-cell";
import { useSalesPages } from "@/features/payouts/pages";
import { formatDollars } from "@shared/money";
import { RefundDialog, refundLabel } from "./refund-dialog";
import { useUnauthorizedRedirect } from "./use-unauthorized-redirect";
import { LoadFailed } from "@/components/load-failed";

const statusVariant = (status: string) =>
  status === "completed" ? "success" : status === "pending" ? "warning" : "destructive";

/** Spec §6: the sales call is made only while the sales tab is shown (this component mounts then). */
export function SalesTable() {
  const { data, isLoading, error, hasNextPage, fetchNextPage, isFetchingNextPage } = useSalesPages();
  const [refunding, setRefunding] = useState<Sale | null>(null);
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
      {/* relative: the header's sr-only label is positioned; it must scroll inside this box, not widen the page. */}
      <div className="relative overflow-x-auto">
        <table className="w-full text-sm">
          <thead className="bg-muted/60 text-left text-muted-foreground">
            <tr>
              <th className="px-4 py-3 font-medium">Buyer</th>
              <th className="px-4 py-3 font-medium">Product</th>
              <th className="px-4 py-3 font-medium">Amount</th>
              <th className="px-4 py-3 font-medium">Date</th>
              <th className="px-4 py-3 font-medium">Status</th>
              {withKeys && <th className="px-4 py-3 font-medium">License key</th>}
              <th className="px-4 py-3 font-medium">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {sales.map((sale) => (
              <tr key={sale.id} className="border-t">
                <td className="px-4 py-3">
                  {sale.buyerEmail || <span className="text-muted-foreground">(no email captured)</span>}
                </td>
                <td className="px-4 py-3">
                  {sale.productName}
                  {sale.orderBump && (
                    <span
                      className="ml-1.5 whitespace-nowrap rounded bg-violet-50 px-1.5 py-0.5 text-xs text-violet-800"
                      data-testid="sale-bump"
                      title="Bought as an order bump, in the same payment as the item it was offered with"
                    >
                      Order bump
                    </span>
                  )}
                </td>
                <td className="px-4 py-3 font-medium">
                  {formatDollars(sale.amount)}
                  {sale.discountCode && (
                    <span
                      className="ml-1.5 whitespace-nowrap rounded bg-emerald-50 px-1.5 py-0.5 font-mono text-xs text-emerald-800"
                      data-testid="sale-code"
                      title="Discount code"
                    >
                      {sale.discountCode}
                    </span>
                  )}
                </td>
                <td className="px-4 py-3 text-muted-foreground">
                  {sale.createdAt ? new Date(sale.createdAt).toLocaleDateString() : "—"}
                </td>
                <td className="px-4 py-3">
                  <div className="flex flex-wrap items-center gap-1.5">
                    <Badge variant={statusVariant(sale.status)}>
                      {sale.status === "refunded" ? "Refunded" : sale.status}
                    </Badge>
                    {refundLabel(sale) && sale.status !== "refunded" && (
                      <Badge
                        variant={
                          sale.refundFailed && !sale.refundPending && sale.refundedAmount === 0
                            ? "destructive"
                            : "warning"
                        }
                        data-testid="refund-state"
                      >
                        {refundLabel(sale)}
                      </Badge>
                    )}
                  </div>
                </td>
                {withKeys && (
                  <td className="px-4 py-3">
                    <LicenseCell license={sale.license} />
                  </td>
                )}
                <td className="px-4 py-3 text-right">
                  {sale.refundable > 0 && (
                    <Button
                      size="sm"
                      variant="outline"
                      onClick={() => setRefunding(sale)}
                      aria-label={`Refund ${sale.productName} sale to ${sale.buyerEmail ?? "buyer"}`}
                    >
                      Refund
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="flex items-center justify-between border-t px-4 py-3 text-sm text-muted-foreground">
        <span>
          Showing {sales.length.toLocaleString()} {sales.length === 1 ? "sale" : "sales"}
        </span>
        {hasNextPage && (
          <Button size="sm" variant="outline" onClick={() => fetchNextPage()} disabled={isFetchingNextPage}>
            {isFetchingNextPage ? "Loading..." : "Load more"}
          </Button>
        )}
      </div>
      {refunding && <RefundDialog sale={refunding} onClose={() => setRefunding(null)} />}
    </Card>
  );
}
