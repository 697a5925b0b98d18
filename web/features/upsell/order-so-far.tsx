// The upsell page's running order: what was paid first, what each accept added, and the total.
import { CheckCircle2 } from "lucide-react";
import type { OrderSummary } from "@shared/funnels";
import { formatDollars } from "@shared/money";
import { Card, CardContent } from "@/components/ui/card";

/**
 * The order so far, as the server says it was charged: the first item paid (with its access), then
 * after each accept what was added and the running total. Nothing here is computed from shown prices.
 */
export function OrderSoFar({ order, added }: { order: OrderSummary; added: { title: string; amount: number } | null }) {
  return (
    <Card data-testid="order-so-far">
      <CardContent className="space-y-2">
        <p className="flex items-center gap-2 font-semibold text-emerald-700" data-testid="order-paid">
          <CheckCircle2 className="size-5 shrink-0" /> ✓ Paid {formatDollars(order.paid)} —{" "}
          {order.bumps.length ? "your items are ready" : "your item is ready"}
        </p>
        <p className="text-sm text-muted-foreground">
          {order.first.title} ·{" "}
          <a
            href={order.first.accessUrl}
            className="font-medium text-primary underline-offset-2 hover:underline"
            target="_blank"
            rel="noreferrer"
            data-testid="order-access"
          >
            Open your item
          </a>
        </p>
        {order.bumps.map((b) => (
          <p key={b.purchaseId} className="text-sm text-muted-foreground" data-testid="order-bump">
            {b.title} ({formatDollars(b.amount)}) ·{" "}
            <a
              href={b.accessUrl}
              className="font-medium text-primary underline-offset-2 hover:underline"
              target="_blank"
              rel="noreferrer"
            >
              Open your item
            </a>
          </p>
        ))}
        {added && (
          <p className="font-medium" role="status" data-testid="order-added">
            Added — {formatDollars(added.amount)} charged{" "}
            <span className="font-normal text-muted-foreground">({added.title})</span>
          </p>
        )}
        {order.added.length > 0 && (
          <p className="flex justify-between border-t pt-2 text-sm font-semibold" data-testid="order-running-total">
            <span>Order total</span>
            <span>{formatDollars(order.total)}</span>
          </p>
        )}
      </CardContent>
    </Card>
  );
}
