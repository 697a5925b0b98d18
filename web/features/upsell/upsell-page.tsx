import { AlertCircle, FlaskConical } from "lucide-react";
import { useEffect, useState } from "react";
import { OFFER_CHANGED_MESSAGE, type AcceptResult, type OrderSummary, type UpsellOffer } from "@shared/funnels";
import { SectionSpinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { PaywallShell } from "@/features/paywall/paywall-shell";
import { toast } from "@/hooks/use-toast";
import { getStripe } from "@/lib/stripe";
import { acceptOffer, completeOffer, declineOffer, fetchOffer, purchaseIdOfAccess, type Claim } from "./api";
import { OfferCard } from "./offer-card";
import { OrderSoFar } from "./order-so-far";
import { useFunnelPreview, useHasRunningTest, useOfferState } from "./queries";

type Props = { access?: string; purchaseId?: string; preview?: string };

function Frame({ children, testMode = false }: { children: React.ReactNode; testMode?: boolean }) {
  return (
    <PaywallShell>
      <div className="mx-auto w-full max-w-lg space-y-4 px-4 py-10">
        {testMode && (
          <div
            className="flex items-center gap-2 rounded-lg border border-amber-300 bg-amber-50 px-4 py-2 text-sm font-medium text-amber-900"
            data-testid="test-mode-banner"
          >
            <FlaskConical className="size-4" /> Test mode — no charge
          </div>
        )}
        {children}
      </div>
    </PaywallShell>
  );
}

const Loading = () => <SectionSpinner className="py-20" />;

/** Where the order is shown: the success page, by the access link when this page has it. */
const orderUrl = (access: string | undefined, contentId?: string) => {
  if (!access) return null;
  const q = new URLSearchParams({ access });
  if (contentId) q.set("content_id", contentId);
  return `/success?${q}`;
};

function Problem({ message, access }: { message: string; access?: string }) {
  const order = orderUrl(access);
  return (
    <Card>
      <CardContent className="space-y-3 text-center">
        <AlertCircle className="mx-auto size-10 text-destructive" />
        <p className="font-semibold">This offer could not be loaded</p>
        <p className="text-sm text-muted-foreground" data-testid="upsell-load-problem">
          {message}
        </p>
        <Button variant="outline" asChild>
          <a href={order ?? "/"}>{order ? "View your order" : "Back to Home"}</a>
        </Button>
      </CardContent>
    </Card>
  );
}

function BuyerFunnel({ claim, access }: { claim: Claim; access?: string }) {
  const state = useOfferState(claim.purchaseId);
  const [current, setCurrent] = useState<UpsellOffer | null | undefined>(undefined);
  const [busy, setBusy] = useState<"accept" | "decline" | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [order, setOrder] = useState<OrderSummary | null>(null);
  const [added, setAdded] = useState<{ title: string; amount: number } | null>(null);
  const offer = current === undefined ? state.data?.offer : current;
  const shownOrder = order ?? state.data?.order ?? null;

  const finish = () => {
    window.location.assign(orderUrl(access, state.data?.contentId) ?? "/");
  };
  useEffect(() => {
    if (state.data && offer === null) finish();
  });

  const moveOn = (next: UpsellOffer | null) => {
    setProblem(null);
    setCurrent(next);
  };

  const settle = async (stepId: string, r: AcceptResult): Promise<void> => {
    if (r.status === "paid") {
      setOrder(r.order);
      setAdded(r.order.added.find((a) => a.purchaseId === r.purchaseId) ?? null);
      return moveOn(r.next);
    }
    if (r.status === "declined") return setProblem(`${r.message} Nothing was charged.`);
    if (r.status === "processing") return finish();
    // The bank wants the buyer: confirm on-session, in this page, with the same saved card.
    const stripe = await getStripe();
    if (!stripe) throw new Error("Stripe is not available");
    const { error } = await stripe.confirmCardPayment(
      r.clientSecret,
      r.paymentMethod ? { payment_method: r.paymentMethod } : undefined,
    );
    if (error) return setProblem(`${error.message ?? "Your bank did not confirm the payment."} Nothing was charged.`);
    return settle(stepId, await completeOffer(claim, stepId));
  };

  const accept = async (amount?: string) => {
    if (!offer) return;
    setBusy("accept");
    try {
      await settle(offer.stepId, await acceptOffer(claim, offer.stepId, amount));
    } catch (err) {
      const message = err instanceof Error ? err.message.replace(/^\d+: /, "") : "Something went wrong";
      // The creator changed the offer since it was shown: nothing was charged; show it as it is now.
      if (err instanceof Error && err.message === `409: ${OFFER_CHANGED_MESSAGE}`) {
        const now = await fetchOffer(claim).catch(() => null);
        if (!now) return finish();
        moveOn(now.offer);
        toast({ title: OFFER_CHANGED_MESSAGE, description: "Nothing was charged." });
        return;
      }
      // 410: the 30 minutes are over; 409: declined meanwhile (another tab). Nothing was charged either way.
      if (err instanceof Error && /^(409|410): /.test(err.message)) {
        toast({ title: message, description: "Nothing was charged." });
        return finish();
      }
      toast({ title: "Payment Failed", description: message, variant: "destructive" });
    } finally {
      setBusy(null);
    }
  };
  const decline = async () => {
    if (!offer) return;
    setBusy("decline");
    try {
      moveOn((await declineOffer(claim, offer.stepId)).next);
    } catch {
      // Already decided elsewhere (another tab): ask the server where the funnel stands.
      moveOn((await fetchOffer(claim).catch(() => ({ offer: null }))).offer);
    } finally {
      setBusy(null);
    }
  };

  if (state.isLoading)
    return (
      <Frame>
        <Loading />
      </Frame>
    );
  if (state.error)
    return (
      <Frame>
        <Problem message={state.error.message.replace(/^\d+: /, "")} access={access} />
      </Frame>
    );
  if (!offer)
    return (
      <Frame>
        <Loading />
      </Frame>
    );
  return (
    <Frame>
      {shownOrder && <OrderSoFar order={shownOrder} added={added} />}
      <OfferCard offer={offer} busy={busy} onAccept={accept} onDecline={decline} problem={problem} testMode={false} />
    </Frame>
  );
}

/** The step after `index` once it was accepted or declined: a downsell follows only a declined upsell. */
function nextIndex(offers: UpsellOffer[], index: number, outcome: "accepted" | "declined"): number {
  let lastUpsell: "accepted" | "declined" | null = null;
  for (let i = 0; i <= index; i++) if (offers[i].stepType === "upsell") lastUpsell = i === index ? outcome : "accepted";
  for (let i = index + 1; i < offers.length; i++) {
    if (offers[i].stepType === "downsell" && lastUpsell !== "declined") continue;
    return i;
  }
  return -1;
}

/** The creator's choice of which variant of the steps under an A/B test the preview walks. */
function VariantSwitch({ variant, onChange }: { variant: "A" | "B"; onChange: (v: "A" | "B") => void }) {
  return (
    <div className="flex flex-wrap items-center gap-2 text-sm">
      <span className="text-muted-foreground">A step is under an A/B test. Preview:</span>
      <div
        className="inline-flex rounded-lg border bg-background p-0.5"
        role="radiogroup"
        aria-label="Variant to preview"
      >
        {(["A", "B"] as const).map((v) => (
          // biome-ignore lint/a11y/useSemanticElements: a segmented control of buttons; role=radio with aria-checked gives it the radios' semantics
          <button
            key={v}
            type="button"
            role="radio"
            aria-checked={variant === v}
            onClick={() => onChange(v)}
            className={
              variant === v
                ? "rounded-md bg-primary px-3 py-1 font-medium text-primary-foreground"
                : "rounded-md px-3 py-1 font-medium text-muted-foreground hover:bg-muted"
            }
          >
            Variant {v}
          </button>
        ))}
      </div>
    </div>
  );
}

function PreviewFunnel({ funnelId }: { funnelId: string }) {
  const [variant, setVariant] = useState<"A" | "B">("A");
  const offers = useFunnelPreview(funnelId, variant);
  const testing = useHasRunningTest(funnelId);
  const [index, setIndex] = useState(0);
  const switcher = testing.data ? (
    <VariantSwitch
      variant={variant}
      onChange={(v) => {
        setVariant(v);
        setIndex(0);
      }}
    />
  ) : null;
  if (offers.isLoading)
    return (
      <Frame testMode>
        <Loading />
      </Frame>
    );
  if (offers.error || !offers.data)
    return (
      <Frame testMode>
        <Problem message={offers.error?.message ?? "Not found"} />
      </Frame>
    );
  const offer = index >= 0 ? offers.data[index] : undefined;
  return (
    <Frame testMode>
      {switcher}
      {offer ? (
        <OfferCard
          offer={offer}
          busy={null}
          problem={null}
          testMode
          onAccept={() => setIndex(nextIndex(offers.data, index, "accepted"))}
          onDecline={() => setIndex(nextIndex(offers.data, index, "declined"))}
        />
      ) : (
        <Card>
          <CardContent className="space-y-3 text-center">
            <p className="font-semibold">
              {offers.data.length
                ? "End of the funnel: buyers go on to their success page."
                : "This funnel has no steps with content yet."}
            </p>
            <Button variant="outline" onClick={() => setIndex(0)} disabled={!offers.data.length}>
              Start again
            </Button>
          </CardContent>
        </Card>
      )}
    </Frame>
  );
}

export function UpsellPage({ access, purchaseId, preview }: Props) {
  if (preview) return <PreviewFunnel funnelId={preview} />;
  const id = purchaseId ?? purchaseIdOfAccess(access);
  if (!id)
    return (
      <Frame>
        <Problem message="This link is incomplete. Open the access link from your receipt email." />
      </Frame>
    );
  return <BuyerFunnel claim={{ purchaseId: id }} access={access} />;
}
