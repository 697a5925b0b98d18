// /checkout/{id}?payment_intent={client secret}&amount=…: order summary, email and the card form.
// Tax (docs/tax.md): the checkout's terms are read once when it opens, so the summary shows the tax
// line and the total before anything is typed; a VAT number is one more term; a confirm refused
// because the billing address changed the tax (409) shows the new total, and Pay is on again.
import type { Stripe, StripeElements } from "@stripe/stripe-js";
import { Lock, ShieldCheck } from "lucide-react";
import { useNavigate } from "@tanstack/react-router";
import { BumpCheckbox, type Choice, DiscountField, type PricedTerms, useChangeTerms } from "./checkout-terms";
import { VatField } from "./vat-field";
import { OrderSummary } from "./order-summary";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { createPaymentIntentSchema } from "@shared/payments";
import { CHECKOUT_TERMS_MESSAGES } from "@shared/paywall";
import { NO_REMINDER_LABEL, REMINDER_HINT } from "@shared/paywall";
import { FieldError, useFieldErrors } from "@/components/field-error";
import { PageSpinner, Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { ContentNotFound, PaywallShell } from "@/features/paywall/paywall-shell";
import { usePaywallContent } from "@/features/paywall/paywall-data";
import { toast } from "@/hooks/use-toast";
import { api, apiRequest, withoutStatus } from "@/lib/api";
import { getStripe } from "@/lib/stripe";
import { payOnServer, TAX_UPDATED } from "@/lib/pay-on-server";
import { formatDollars } from "@shared/money";
import { SaveCardNotice } from "@/features/upsell/save-card-notice";
import { useHumanCheck } from "@/hooks/use-human-check";
import { HUMAN_CHECK_ACTIONS } from "@shared/human-check";

export function CheckoutPage({
  id,
  clientSecret,
  amount,
  code,
  recover,
  bump,
}: {
  id: string;
  clientSecret?: string;
  amount?: number;
  code?: string;
  recover?: string;
  bump?: boolean;
}) {
  const navigate = useNavigate();
  const [recoverError, setRecoverError] = useState<string | null>(null);
  // Whether that error may pass on a second try (a refused bot check, a rate limit, the network), and the tries so far.
  const [recoverRetry, setRecoverRetry] = useState(false);
  const [recoverAttempt, setRecoverAttempt] = useState(0);
  // A reminder's checkout: the address it belongs to (kept, not editable) and why its code no longer applies, if so.
  const [recovered, setRecovered] = useState<{ email: string; notice: string | null } | null>(null);
  // A reminder's link: the checkout starts again at the amount the buyer left it at (run once, by a person's browser),
  // with the bot check's token (docs/security.md).
  const check = useHumanCheck(HUMAN_CHECK_ACTIONS.checkout);
  // biome-ignore lint/correctness/useExhaustiveDependencies: recoverAttempt is the "Try again" button's trigger
  useEffect(() => {
    if (!recover || clientSecret) return;
    let cancelled = false;
    // A refused token is retried once with a fresh one (web/lib/human-check.ts); the button below tries again after that.
    check
      .send((headers) =>
        api("POST /api/create-payment-intent", { body: { contentId: id, recoverToken: recover }, headers }),
      )
      .then(async (body) => {
        if (cancelled) return;
        if ("alreadyOwned" in body) return window.location.assign(body.accessUrl);
        if (body.buyerEmail) {
          setRecovered({ email: body.buyerEmail, notice: body.notice ?? null });
          setEmail(body.buyerEmail);
        }
        await navigate({
          to: "/checkout/$id",
          params: { id },
          search: {
            payment_intent: body.clientSecret,
            amount: body.amount,
            ...(body.discount ? { code: body.discount.code } : {}),
          },
          replace: true,
        });
      })
      .catch((err: Error) => {
        if (cancelled) return;
        setRecoverRetry(!/^(400|404|409|410): /.test(err.message));
        setRecoverError(withoutStatus(err.message).replace(/^recoverToken: /, ""));
      });
    return () => {
      cancelled = true;
    };
  }, [recover, clientSecret, id, navigate, check, recoverAttempt]);
  // The address typed here is kept on this checkout (one reminder an hour later, should the buyer leave).
  const rememberedEmail = useRef("");
  const rememberEmail = (value: string) => {
    const typed = value.trim();
    if (
      !clientSecret ||
      typed === rememberedEmail.current ||
      !createPaymentIntentSchema.shape.buyerEmail.safeParse(typed).success ||
      !typed
    )
      return;
    rememberedEmail.current = typed;
    void apiRequest("POST", "/api/checkout/email", {
      paymentIntent: clientSecret.split("_secret_")[0],
      email: typed,
    }).catch(() => (rememberedEmail.current = ""));
  };
  const item = usePaywallContent(id);
  const cardRef = useRef<HTMLDivElement>(null);
  const [stripe, setStripe] = useState<Stripe | null>(null);
  const [elements, setElements] = useState<StripeElements | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [email, setEmail] = useState("");
  // "Don't send me a reminder": kept on this checkout, and carried to a checkout started again.
  const [noReminder, setNoReminder] = useState(false);
  const saveNoReminder = (value: boolean) => {
    setNoReminder(value);
    if (clientSecret)
      void apiRequest("POST", "/api/checkout/email", {
        paymentIntent: clientSecret.split("_secret_")[0],
        noReminder: value,
      }).catch(() => undefined);
  };
  const fe = useFieldErrors("checkout");
  const [paying, setPaying] = useState(false);
  // The amount Stripe will charge, read back from the PaymentIntent: the URL's amount is only a hint.
  const [chargedAmount, setChargedAmount] = useState<number | null>(null);
  // The terms as the server last priced them (a code applied or removed, the bump ticked): the same
  // PaymentIntent, so the card form is not drawn again. Paying waits for a change under way.
  const [priced, setPriced] = useState<PricedTerms | null>(null);
  // The VAT number the server accepted on this checkout, and the notice of a 409 that changed the tax.
  const [vatId, setVatId] = useState<string | null>(null);
  const [taxNotice, setTaxNotice] = useState(false);
  const bumpTakenNow = () => (priced ? !!priced.bump : !!(bump && item.data?.bump));
  const [changing, setChanging] = useState(false);
  // A failed change whose terms on screen could not be sent again: paying stays off (reload).
  const [stuck, setStuck] = useState(false);
  const changeTerms = useChangeTerms(id, clientSecret ?? "", elements, (answer, vat) => {
    setPriced(answer);
    setVatId(vat);
    setChargedAmount(answer.amount);
    setTaxNotice(false);
  });
  // One change at a time for the code and the bump together (a ref: state lags a render behind).
  const inFlight = useRef(false);
  // The first read of the checkout's terms (below): a change the buyer makes meanwhile waits for it.
  const firstRead = useRef<Promise<void> | null>(null);
  const change = async (next: Choice) => {
    await firstRead.current;
    if (inFlight.current || stuck) throw new Error("Please wait a moment and try again.");
    inFlight.current = true;
    setChanging(true);
    // The terms on screen, sent again after a failure: the rows or Stripe may have moved (a 502
    // after Stripe applied it, a 409), and paying waits until they are back.
    const shown = { code: code ?? null, bump: bumpTakenNow(), vatId };
    try {
      await changeTerms(next);
    } catch (err) {
      await changeTerms(shown).catch(() => setStuck(true));
      throw err;
    } finally {
      inFlight.current = false;
      setChanging(false);
    }
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: the card's node exists only once the item has loaded, so its arrival re-runs this
  useEffect(() => {
    if (!clientSecret || !cardRef.current) return;
    let cancelled = false;
    // A new client secret (another checkout started) replaces the card form; a change of terms keeps it.
    let mounted: { destroy: () => void } | null = null;
    getStripe()
      .then((s) => {
        if (cancelled || !s || !cardRef.current) return;
        const els = s.elements({
          clientSecret,
          appearance: { theme: "stripe", variables: { colorPrimary: "#7c3aed", borderRadius: "8px" } },
        });
        const payment = els.create("payment");
        payment.mount(cardRef.current);
        mounted = payment;
        setStripe(s);
        setElements(els);
        s.retrievePaymentIntent(clientSecret).then(({ paymentIntent }) => {
          if (!cancelled && paymentIntent) setChargedAmount(paymentIntent.amount / 100);
        });
      })
      .catch((err: Error) => setLoadError(err.message));
    return () => {
      cancelled = true;
      mounted?.destroy();
      setChargedAmount(null);
    };
  }, [clientSecret, item.data?.id]);

  // The tax line and total, priced by the server once the card form is up (the terms in the URL,
  // unchanged; Pay waits for it). A failure changes nothing: the URL's amount stays, with no tax line
  // (a checkout another browser started answers 404 here, and could not be paid from this one anyway).
  const readTerms = useRef<string | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per checkout, when its card form is ready
  useEffect(() => {
    if (!elements || !clientSecret || !item.data || readTerms.current === clientSecret || inFlight.current) return;
    readTerms.current = clientSecret;
    setChanging(true);
    firstRead.current = changeTerms({ code: code ?? null, bump: bumpTakenNow(), vatId: null })
      .catch(() => undefined)
      .finally(() => {
        firstRead.current = null;
        setChanging(false);
      });
  }, [elements, clientSecret, item.data]);

  if (item.isLoading) {
    return <PageSpinner />;
  }
  if (item.error || !item.data) return <ContentNotFound />;
  const total = chargedAmount ?? (amount && Number.isFinite(amount) ? amount : item.data.price);
  const listPrice = item.data.pricingModel === "pay_what_you_want" ? null : item.data.price;
  // The order bump, when the item has one: ticked (bump=1), it is in the total; the item's own part is the rest.
  const offer = item.data.bump;
  const bumpTaken = bumpTakenNow();
  // Tax on top of the price (US sales tax) is its own line; tax a price includes is part of it.
  const taxOnTop = priced?.tax && !priced.tax.inclusive ? priced.tax.amount : 0;
  const itemTotal = Math.round((total - taxOnTop - (bumpTaken ? offer!.price : 0)) * 100) / 100;

  const pay = async (e: FormEvent) => {
    e.preventDefault();
    // The receipt address, by the rule the payment route keeps a buyer's email with.
    if (!email.trim()) fe.set("email", "Please enter your email address to receive access links.");
    else if (
      !fe.check(
        createPaymentIntentSchema.pick({ buyerEmail: true }),
        { buyerEmail: email },
        { alias: { buyerEmail: "email" } },
      )
    )
      return;
    if (changing || stuck) return;
    if (!email.trim() || !stripe || !elements) {
      toast({
        title: "Email Required",
        description: "Please enter your email address to receive access links.",
        variant: "destructive",
      });
      return;
    }
    setPaying(true);
    // Confirmed by our server (web/lib/pay-on-server.ts); success goes where Stripe's redirect would.
    const result = await payOnServer(stripe, elements, clientSecret!, email.trim()).catch((err: Error) => ({
      error: err.message,
    }));
    if ("taxChanged" in result && result.taxChanged) {
      // Not charged: the billing address changed the tax. The new total is on screen; the buyer pays again.
      const { tax, amount: newTotal } = result.taxChanged;
      setPriced((p) => ({ ...(p ?? { amount: newTotal }), tax, amount: newTotal }));
      setChargedAmount(newTotal);
      await elements.fetchUpdates().catch(() => undefined);
      setTaxNotice(true);
      setPaying(false);
      return;
    }
    if ("paymentIntent" in result) {
      const { id: pi, status } = result.paymentIntent;
      window.location.assign(
        `/success?content_id=${encodeURIComponent(id)}&payment_intent=${encodeURIComponent(pi)}&redirect_status=${encodeURIComponent(status)}`,
      );
      return;
    }
    setPaying(false);
    toast({ title: "Payment Failed", description: result.error, variant: "destructive" });
  };

  return (
    <PaywallShell>
      <div className="mx-auto grid max-w-4xl grid-cols-1 gap-6 px-4 py-8 md:grid-cols-[minmax(0,1fr)_minmax(0,1.2fr)] sm:py-12">
        <OrderSummary
          item={item.data}
          code={code}
          listPrice={listPrice}
          itemTotal={itemTotal}
          bumpLine={bumpTaken ? offer : null}
          amountOff={priced?.discount?.amountOff}
          taxText={priced?.tax?.text ?? null}
          total={total}
        />
        <form onSubmit={pay} className="space-y-5 rounded-2xl border bg-card p-6 shadow-sm" noValidate>
          <h1 className="text-xl font-bold">Pay by card</h1>
          {!clientSecret && recover && !recoverError ? (
            <div className="flex items-center gap-2 text-sm text-muted-foreground">
              <Spinner className="size-4" /> Opening your checkout…
            </div>
          ) : !clientSecret ? (
            <div className="space-y-3">
              <p className="text-destructive" role="alert">
                {recoverError ?? "This checkout link is incomplete. Go back to the item and press Unlock again."}
              </p>
              {recover && recoverError && recoverRetry && (
                <Button
                  type="button"
                  variant="outline"
                  onClick={() => {
                    setRecoverError(null);
                    setRecoverAttempt((n) => n + 1);
                  }}
                >
                  Try again
                </Button>
              )}
            </div>
          ) : (
            <>
              <div className="space-y-2">
                <label htmlFor="checkout-email" className="text-sm font-medium">
                  Email
                </label>
                <Input
                  id="checkout-email"
                  type="email"
                  autoComplete="email"
                  placeholder="you@example.com"
                  value={email}
                  readOnly={!!recovered}
                  onChange={(e) => {
                    setEmail(e.target.value);
                    fe.clear("email");
                  }}
                  onBlur={(e) => rememberEmail(e.target.value)}
                  {...fe.field("email", "checkout-email-hint")}
                />
                <FieldError of={fe} name="email" />
                <p id="checkout-email-hint" className="text-xs text-muted-foreground">
                  {recovered ? "This checkout is for the address the reminder was sent to. " : ""}Your access link and
                  receipt are sent here. {REMINDER_HINT}
                </p>
                <label className="flex items-center gap-2 text-xs text-muted-foreground">
                  <input
                    type="checkbox"
                    className="size-3.5"
                    checked={noReminder}
                    onChange={(e) => saveNoReminder(e.target.checked)}
                    data-testid="no-reminder"
                  />
                  {NO_REMINDER_LABEL}
                </label>
              </div>
              {recovered?.notice && (
                <p role="status" className="text-sm text-amber-700" data-testid="checkout-notice">
                  {recovered.notice}
                </p>
              )}
              <div className="space-y-2">
                <DiscountField applied={code} bump={bumpTaken} vatId={vatId} change={change} disabled={paying} />
                <VatField applied={vatId} code={code} bump={bumpTaken} change={change} disabled={paying} />
              </div>
              {offer && (
                <BumpCheckbox
                  offer={offer}
                  taken={bumpTaken}
                  code={code}
                  vatId={vatId}
                  change={change}
                  disabled={paying}
                />
              )}
              {!elements && !loadError && (
                <div className="flex items-center gap-2 text-sm text-muted-foreground">
                  <Spinner className="size-4" /> Loading secure card form…
                </div>
              )}
              {/* Stripe owns this node's children: React must not render into it. */}
              <div ref={cardRef} className="min-h-24" data-testid="payment-element" />
              {loadError && (
                <p className="text-sm text-destructive">
                  The card form could not load ({loadError}). Please refresh the page.
                </p>
              )}
              {taxNotice && (
                <p
                  role="status"
                  className="rounded-md bg-amber-50 p-3 text-sm text-amber-900"
                  data-testid="checkout-tax-notice"
                >
                  {TAX_UPDATED}
                </p>
              )}
              <Button
                type="submit"
                variant="brand"
                size="lg"
                className="h-12 w-full text-base"
                disabled={paying || !elements || changing || stuck}
              >
                {paying ? <Spinner className="size-5 text-white" /> : <Lock />}
                Pay {formatDollars(total)}
              </Button>
              {stuck && (
                <p role="alert" className="text-sm text-destructive" data-testid="checkout-stuck">
                  {CHECKOUT_TERMS_MESSAGES.stuck}
                </p>
              )}
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
