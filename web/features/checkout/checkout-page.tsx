// /checkout/{id}?payment_intent={client secret}&amount=…: order summary, email and the card form.
import type { Stripe, StripeElements } from "@stripe/stripe-js";
import { Lock, ShieldCheck } from "lucide-react";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { createPaymentIntentSchema } from "@shared/payments";
import { CreatorByline } from "@/components/creator-byline";
import { FieldError, useFieldErrors } from "@/components/field-error";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { ContentNotFound, PaywallShell } from "@/features/paywall/paywall-shell";
import { usePaywallContent } from "@/features/paywall/paywall-data";
import { toast } from "@/hooks/use-toast";
import { getStripe } from "@/lib/stripe";
import { formatUsd } from "@/lib/utils";
import { SaveCardNotice } from "@/features/upsell/save-card-notice";

export function CheckoutPage({ id, clientSecret, amount }: { id: string; clientSecret?: string; amount?: number }) {
  const item = usePaywallContent(id);
  const cardRef = useRef<HTMLDivElement>(null);
  const [stripe, setStripe] = useState<Stripe | null>(null);
  const [elements, setElements] = useState<StripeElements | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [email, setEmail] = useState("");
  const fe = useFieldErrors("checkout");
  const [paying, setPaying] = useState(false);
  // The amount Stripe will charge, read back from the PaymentIntent: the URL's amount is only a hint.
  const [chargedAmount, setChargedAmount] = useState<number | null>(null);

  useEffect(() => {
    if (!clientSecret || !cardRef.current) return;
    let cancelled = false;
    getStripe()
      .then((s) => {
        if (cancelled || !s || !cardRef.current) return;
        const els = s.elements({ clientSecret, appearance: { theme: "stripe", variables: { colorPrimary: "#7c3aed", borderRadius: "8px" } } });
        els.create("payment").mount(cardRef.current);
        setStripe(s);
        setElements(els);
        s.retrievePaymentIntent(clientSecret).then(({ paymentIntent }) => {
          if (!cancelled && paymentIntent) setChargedAmount(paymentIntent.amount / 100);
        });
      })
      .catch((err: Error) => setLoadError(err.message));
    return () => {
      cancelled = true;
    };
  }, [clientSecret, item.data?.id]);

  if (item.isLoading) {
    return (
      <div className="flex min-h-screen items-center justify-center">
        <Spinner />
      </div>
    );
  }
  if (item.error || !item.data) return <ContentNotFound />;
  const total = chargedAmount ?? (amount && Number.isFinite(amount) ? amount : item.data.price);

  const pay = async (e: FormEvent) => {
    e.preventDefault();
    // The receipt address, by the rule the payment route keeps a buyer's email with.
    if (!email.trim()) fe.set("email", "Please enter your email address to receive access links.");
    else if (!fe.check(createPaymentIntentSchema.pick({ buyerEmail: true }), { buyerEmail: email }, { alias: { buyerEmail: "email" } })) return;
    if (!email.trim() || !stripe || !elements) {
      toast({ title: "Email Required", description: "Please enter your email address to receive access links.", variant: "destructive" });
      return;
    }
    setPaying(true);
    const { error } = await stripe.confirmPayment({
      elements,
      confirmParams: { return_url: `${window.location.origin}/success?content_id=${encodeURIComponent(id)}`, receipt_email: email.trim() },
    });
    // confirmPayment only returns on failure: success leaves for the return URL.
    setPaying(false);
    if (error) toast({ title: "Payment Failed", description: error.message ?? "Your payment could not be completed.", variant: "destructive" });
  };

  return (
    <PaywallShell>
      <div className="mx-auto grid max-w-4xl grid-cols-1 gap-6 px-4 py-8 md:grid-cols-[minmax(0,1fr)_minmax(0,1.2fr)] sm:py-12">
        <section className="h-fit space-y-4 rounded-2xl border bg-card p-6 shadow-sm" aria-label="Order summary">
          <h2 className="font-semibold">Order summary</h2>
          <div className="flex items-center gap-3">
            {item.data.previewImage ? (
              <img src={item.data.previewImage} alt="" className="size-14 rounded-lg object-cover" />
            ) : (
              <div className="size-14 rounded-lg bg-brand-gradient" />
            )}
            <div className="min-w-0">
              <p className="truncate font-medium">{item.data.title}</p>
              <CreatorByline creator={item.data.creator} className="mt-1" />
            </div>
          </div>
          <dl className="space-y-2 border-t pt-4 text-sm">
            <div className="flex justify-between gap-4">
              <dt className="text-muted-foreground">Price</dt>
              <dd>{formatUsd(total)}</dd>
            </div>
            <div className="flex justify-between">
              <dt className="text-muted-foreground">Processing fee</dt>
              <dd>{formatUsd(0)}</dd>
            </div>
            <div className="flex justify-between border-t pt-2 text-base font-semibold">
              <dt>Total</dt>
              <dd data-testid="checkout-total">{formatUsd(total)}</dd>
            </div>
          </dl>
        </section>
        <form onSubmit={pay} className="space-y-5 rounded-2xl border bg-card p-6 shadow-sm" noValidate>
          <h1 className="text-xl font-bold">Pay by card</h1>
          {!clientSecret ? (
            <p className="text-destructive">This checkout link is incomplete. Go back to the item and press Unlock again.</p>
          ) : (
            <>
              <div className="space-y-2">
                <label htmlFor="checkout-email" className="text-sm font-medium">
                  Email
                </label>
                <Input id="checkout-email" type="email" autoComplete="email" placeholder="you@example.com" value={email} onChange={(e) => {
                  setEmail(e.target.value);
                  fe.clear("email");
                }} {...fe.field("email", "checkout-email-hint")} />
                <FieldError of={fe} name="email" />
                <p id="checkout-email-hint" className="text-xs text-muted-foreground">Your access link and receipt are sent here.</p>
              </div>
              {!elements && !loadError && (
                <div className="flex items-center gap-2 text-sm text-muted-foreground">
                  <Spinner className="size-4" /> Loading secure card form…
                </div>
              )}
              {/* Stripe owns this node's children: React must not render into it. */}
              <div ref={cardRef} className="min-h-24" data-testid="payment-element" />
              {loadError && <p className="text-sm text-destructive">The card form could not load ({loadError}). Please refresh the page.</p>}
              <Button type="submit" variant="brand" size="lg" className="h-12 w-full text-base" disabled={paying || !elements}>
                {paying ? <Spinner className="size-5 text-white" /> : <Lock />}
                Pay {formatUsd(total)}
              </Button>
              <SaveCardNotice clientSecret={clientSecret} />
              <p className="flex items-center justify-center gap-1.5 text-xs text-muted-foreground">
                <ShieldCheck className="size-3.5" /> Card details go straight to Stripe; ApeWall never sees them.
              </p>
            </>
          )}
        </form>
      </div>
    </PaywallShell>
  );
}
