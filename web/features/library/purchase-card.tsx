// One purchase in the library: what, from whom, when and for how much; opened as its access link
// opens it (the success page's own controls), or why it no longer opens; its receipt; its email.
import { Undo2 } from "lucide-react";
import type { LibraryPurchase } from "@shared/library";
import { formatDollars } from "@shared/money";
import { CreatorByline } from "@/components/creator-byline";
import { LoadFailed } from "@/components/load-failed";
import { SectionSpinner } from "@/components/spinner";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent } from "@/components/ui/card";
import { PurchaseAccess } from "@/features/access/purchase-access";
import { withoutStatus } from "@/lib/api";
import { ChangeEmail } from "./change-email";
import { dateInWords } from "./format";
import { useSeen } from "./in-view";
import { useLibraryAccess } from "./queries";
import { ReceiptButton } from "./receipt";
import { PurchaseInvoiceLink } from "@/features/success/invoice-link";

/** Opened once the card comes near the viewport: a long library does not open every purchase at once. */
function Access({ id }: { id: string }) {
  const [seen, ref] = useSeen<HTMLDivElement>();
  const access = useLibraryAccess(id, seen);
  if (!seen || access.isLoading)
    return (
      <div ref={ref}>
        <SectionSpinner className="py-6" />
      </div>
    );
  if (access.error || !access.data)
    return (
      <LoadFailed
        what="this purchase"
        detail={access.error ? withoutStatus(access.error.message) : undefined}
        onRetry={() => access.refetch()}
        className="py-2"
      />
    );
  return <PurchaseAccess v={access.data.verification} access={access.data.access} place="success" />;
}

function Revoked({ p }: { p: LibraryPurchase }) {
  const what = p.state === "refunded" ? "refund" : "dispute";
  return (
    <p
      className="flex items-start gap-2 rounded-lg bg-muted px-3 py-2 text-sm text-muted-foreground"
      data-testid="library-revoked"
    >
      <Undo2 className="mt-0.5 size-4 shrink-0" />
      <span>
        {p.state === "refunded" ? "Refunded" : "Disputed"}
        {p.revokedAt ? ` on ${dateInWords(p.revokedAt)}` : ""}: the {what} ended access to this item.
      </span>
    </p>
  );
}

export function PurchaseCard({ p }: { p: LibraryPurchase }) {
  return (
    <Card data-testid="library-purchase" data-purchase-id={p.id} data-state={p.state}>
      <CardContent className="space-y-4">
        <div className="flex items-start justify-between gap-3">
          <div className="min-w-0 space-y-1">
            <h2 className="break-words text-lg font-semibold">{p.title}</h2>
            <CreatorByline creator={p.creator} />
            <p className="text-sm text-muted-foreground">
              {dateInWords(p.purchasedAt)} · {formatDollars(p.amount)} · Order #{p.id}
            </p>
          </div>
          {p.state !== "paid" && (
            <Badge variant="warning" className="shrink-0">
              {p.state === "refunded" ? "Refunded" : "Disputed"}
            </Badge>
          )}
        </div>
        {p.state === "paid" ? <Access id={p.id} /> : <Revoked p={p} />}
        <div className="flex flex-wrap gap-2 border-t pt-3">
          <ReceiptButton id={p.id} title={p.title} />
          <PurchaseInvoiceLink purchaseId={p.id} number={p.invoice} />
          {p.state === "paid" && <ChangeEmail id={p.id} title={p.title} />}
        </div>
      </CardContent>
    </Card>
  );
}
