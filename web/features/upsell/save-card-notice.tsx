// Next to the pay button: when this checkout keeps the card for one-click offers (the item is in a
// live funnel), say so plainly. Read from Stripe's own PaymentIntent, not from a guess.
import { CreditCard } from "lucide-react";
import { useEffect, useState } from "react";
import { getStripe } from "@/lib/stripe";

export function SaveCardNotice({ clientSecret }: { clientSecret?: string }) {
  const [saves, setSaves] = useState(false);
  useEffect(() => {
    if (!clientSecret) return;
    let cancelled = false;
    getStripe()
      .then((s) => s?.retrievePaymentIntent(clientSecret))
      .then((r) => {
        if (!cancelled && r?.paymentIntent?.setup_future_usage === "off_session") setSaves(true);
      })
      .catch(() => {});
    return () => {
      cancelled = true;
    };
  }, [clientSecret]);
  if (!saves) return null;
  return (
    <p className="flex items-start gap-1.5 text-xs text-muted-foreground" data-testid="save-card-notice">
      <CreditCard className="mt-0.5 size-3.5 shrink-0" />
      Stripe will keep this card so that, right after paying, you can add an extra offer with one click. Nothing more is
      charged unless you click to add it.
    </p>
  );
}
