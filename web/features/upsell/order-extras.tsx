import { useNavigate } from "@tanstack/react-router";
import { PlusCircle } from "lucide-react";
import { useEffect, useState } from "react";
import { Card, CardContent } from "@/components/ui/card";
import { Button } from "@/components/ui/button";
import { PurchaseAccess } from "@/features/access/purchase-access";
import { formatDollars } from "@shared/money";
import { useOrderExtras, useWaitingOffer } from "./queries";

/**
 * Goes on to the funnel's next offer, if the purchase has one waiting — only on the way back from
 * paying (Stripe adds redirect_status to the return URL). A buyer opening their access link later
 * came for what they bought, not for an offer.
 */
export function FunnelContinue({ purchaseId, access }: { purchaseId: string; access?: string }) {
  const navigate = useNavigate();
  // Read once, before the success page puts the permanent link in the address bar.
  const [fromPayment] = useState(
    () => new URLSearchParams(window.location.search).get("redirect_status") === "succeeded",
  );
  // Only this browser (the one that paid) gets an answer, within 30 minutes; anything else is "no offer".
  const offer = useWaitingOffer(purchaseId, fromPayment);
  useEffect(() => {
    if (offer.data?.offer)
      void navigate({ to: "/checkout/upsell", search: { purchase: purchaseId, access }, replace: true });
  }, [offer.data, purchaseId, access, navigate]);
  return null;
}

/** The items added after the first, through the funnel, and the order's total as charged (the server's figure). */
export function OrderExtras({ access }: { access?: string }) {
  const extras = useOrderExtras(access);
  if (!extras.data?.items.length) return null;
  return (
    <Card data-testid="order-extras">
      <CardContent className="space-y-4">
        <h2 className="flex items-center gap-2 font-semibold">
          <PlusCircle className="size-5 text-primary" /> Also in your order
        </h2>
        {extras.data.items.map((v) => (
          <div key={v.purchase.id} className="space-y-2 border-t pt-4" data-testid="order-extra">
            <div className="flex items-baseline justify-between gap-3">
              <p className="font-medium">{v.content.title}</p>
              <p className="text-sm text-muted-foreground">
                Order #{v.purchase.id} • {formatDollars(v.purchase.amount)}
              </p>
            </div>
            <PurchaseAccess
              v={v}
              access={new URL(v.accessUrl).searchParams.get("access") ?? undefined}
              place="success"
            />
            <div className="flex flex-wrap gap-2">
              <Button size="sm" variant="outline" asChild>
                <a href={v.accessUrl}>Permanent access link</a>
              </Button>
            </div>
          </div>
        ))}
        <p className="flex items-baseline justify-between border-t pt-4 font-semibold" data-testid="order-total">
          <span>Total charged</span>
          <span>{formatDollars(extras.data.order.total)}</span>
        </p>
      </CardContent>
    </Card>
  );
}
