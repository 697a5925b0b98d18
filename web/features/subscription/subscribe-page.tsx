// /subscribe: the Pro plan's card form (spec §2 Pro subscription, §8 Subscription texts). The
// server opens the subscription and returns the first invoice's client secret; the card is
// confirmed with Stripe here, and the plan changes only when Stripe's webhooks say it is paid.
// A creator already on Pro sees "You're on Pro" instead of a second card form.
import { formatCentsShort } from "@shared/money";
import type { Stripe, StripeElements } from "@stripe/stripe-js";
import { useQueryClient } from "@tanstack/react-query";
import { ArrowLeft, Crown, Lock } from "lucide-react";
import { useCallback, useEffect, useRef, useState, type FormEvent } from "react";
import { PRO_PRICE_CENTS } from "@shared/pricing";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { AppShell } from "@/features/shell/app-shell";
import { toast } from "@/hooks/use-toast";
import { api, withoutStatus } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { getStripe } from "@/lib/stripe";
import { OnProPanel, useSubscription } from "./on-pro";

export function SubscribePage() {
  const cardRef = useRef<HTMLDivElement>(null);
  const [stripe, setStripe] = useState<Stripe | null>(null);
  const [elements, setElements] = useState<StripeElements | null>(null);
  const [setupError, setSetupError] = useState<string | null>(null);
  const [paying, setPaying] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const queryClient = useQueryClient();
  const plan = useSubscription();
  // The card form starts only for a creator who is not Pro (or whose plan could not be read: the
  // server refuses a second subscription either way).
  const ready = !plan.isLoading && !plan.isPro;

  const start = useCallback(
    async (isCancelled: () => boolean) => {
      setSetupError(null);
      setElements(null);
      try {
        const { clientSecret } = await api("POST /api/create-subscription");
        if (!clientSecret) throw new Error("No client secret received");
        const s = await getStripe();
        if (isCancelled() || !s || !cardRef.current) return;
        const els = s.elements({
          clientSecret,
          appearance: { theme: "stripe", variables: { colorPrimary: "#7c3aed", borderRadius: "8px" } },
        });
        els.create("payment").mount(cardRef.current);
        setStripe(s);
        setElements(els);
      } catch (err) {
        if (isCancelled()) return;
        // 409: Pro arrived since the plan was read (another tab, a late webhook): show it.
        if (err instanceof Error && err.message.startsWith("409: "))
          return void queryClient.invalidateQueries({ queryKey: queryKeys.subscription });
        setSetupError(err instanceof Error ? err.message : "No client secret received");
      }
    },
    [queryClient],
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: `attempt` is the trigger: "Try Again" bumps it to start the setup once more
  useEffect(() => {
    if (!ready) return;
    let cancelled = false;
    void start(() => cancelled);
    return () => {
      cancelled = true;
    };
  }, [start, attempt, ready]);

  const pay = async (e: FormEvent) => {
    e.preventDefault();
    if (!stripe || !elements) return;
    setPaying(true);
    try {
      const { error } = await stripe.confirmPayment({
        elements,
        confirmParams: { return_url: `${window.location.origin}/dashboard?subscription=success` },
      });
      // confirmPayment returns only on failure: success leaves for the return URL.
      if (error)
        toast({
          title: "Payment Failed",
          description: error.message ?? "An unexpected error occurred",
          variant: "destructive",
        });
    } catch {
      toast({ title: "Payment Failed", description: "An unexpected error occurred", variant: "destructive" });
    } finally {
      setPaying(false);
    }
  };

  return (
    <AppShell>
      <div className="mx-auto max-w-lg space-y-6 px-4 py-10">
        <a
          href="/pricing"
          className="inline-flex items-center gap-1 text-sm text-muted-foreground hover:text-foreground"
        >
          <ArrowLeft className="size-4" /> Back to pricing
        </a>
        <Card>
          <CardHeader>
            <CardTitle className="flex items-center gap-2 text-2xl">
              <Crown className="size-6 text-amber-500" /> ApeWall Pro
            </CardTitle>
            <CardDescription>
              {formatCentsShort(PRO_PRICE_CENTS)}/month · zero commission on every sale · cancel anytime
            </CardDescription>
          </CardHeader>
          <CardContent>
            {plan.isLoading ? (
              <div className="flex justify-center py-6">
                <Spinner className="size-6" />
              </div>
            ) : plan.isPro && plan.data ? (
              <OnProPanel state={plan.data} />
            ) : setupError ? (
              <div
                className="space-y-3 rounded-lg border border-destructive/30 bg-destructive/5 p-4 text-center"
                role="alert"
              >
                <h2 className="font-semibold text-destructive">Setup Error</h2>
                <p className="text-sm text-muted-foreground">{withoutStatus(setupError)}</p>
                <Button variant="outline" onClick={() => setAttempt((n) => n + 1)}>
                  Try Again
                </Button>
              </div>
            ) : (
              <form onSubmit={pay} className="space-y-5">
                <div ref={cardRef} className="min-h-12" />
                {!elements && (
                  <div className="flex justify-center">
                    <Spinner className="size-6" />
                  </div>
                )}
                <Button type="submit" variant="brand" size="lg" className="w-full" disabled={paying || !elements}>
                  {paying ? <Spinner className="size-4 text-current" /> : <Lock />} Subscribe for{" "}
                  {formatCentsShort(PRO_PRICE_CENTS)}/month
                </Button>
              </form>
            )}
          </CardContent>
        </Card>
      </div>
    </AppShell>
  );
}
