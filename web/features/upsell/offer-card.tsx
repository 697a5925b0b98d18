// One funnel offer: its item, price (or the buyer's amount for a tip), its tax line when the answer
// carries one (taxed on the first purchase's evidence, docs/tax.md) and the one-click accept.
import { AlertCircle, CreditCard, Gift } from "lucide-react";
import { useEffect, useState } from "react";
import type { UpsellOffer } from "@shared/funnels";
import { dollarsField, formatDollars, formatDollarsPlain } from "@shared/money";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { toast } from "@/hooks/use-toast";

export function OfferCard({
  offer,
  busy,
  onAccept,
  onDecline,
  problem,
  testMode,
}: {
  offer: UpsellOffer;
  busy: "accept" | "decline" | null;
  onAccept: (amount?: string) => void;
  onDecline: () => void;
  problem: string | null;
  testMode: boolean;
}) {
  const tip = offer.pricingModel === "pay_what_you_want";
  // "Includes $1.67 VAT (20%, France)" / "+ $0.89 sales tax (Washington)", as the server words it.
  const taxText = offer.tax?.text ?? null;
  const [amount, setAmount] = useState("");
  // The amount starts again at the minimum for each new step (and when the offer's bounds change).
  // biome-ignore lint/correctness/useExhaustiveDependencies: stepId and maximumPrice mark a new offer, so they re-run it on purpose
  useEffect(
    () => setAmount(tip && offer.minimumPrice !== null ? dollarsField(offer.minimumPrice) : ""),
    [offer.stepId, tip, offer.minimumPrice, offer.maximumPrice],
  );
  const accept = () => {
    if (tip && offer.minimumPrice !== null && amount && Number(amount) < offer.minimumPrice) {
      toast({
        title: "Amount too low",
        description: `Minimum amount is ${formatDollarsPlain(offer.minimumPrice)}`,
        variant: "destructive",
      });
      return;
    }
    if (tip && offer.maximumPrice !== null && amount && Number(amount) > offer.maximumPrice) {
      toast({
        title: "Amount too high",
        description: `Maximum amount is ${formatDollarsPlain(offer.maximumPrice)}`,
        variant: "destructive",
      });
      return;
    }
    onAccept(tip ? amount : undefined);
  };
  return (
    <Card className="overflow-hidden" data-testid="upsell-offer">
      {offer.previewImage && <img src={offer.previewImage} alt="" className="aspect-[3/1] w-full object-cover" />}
      <CardContent className="space-y-5">
        <div className="space-y-2 text-center">
          <p className="inline-flex items-center gap-1.5 rounded-full bg-accent px-3 py-1 text-xs font-medium text-primary">
            <Gift className="size-3.5" /> {offer.stepType === "downsell" ? "A smaller offer" : "Add to your order"}
          </p>
          <h1 className="text-2xl font-bold" data-testid="upsell-title">
            {offer.title}
          </h1>
          {offer.description && <p className="text-muted-foreground">{offer.description}</p>}
          <p className="text-3xl font-bold" data-testid="upsell-price">
            {tip ? `${formatDollars(offer.minimumPrice ?? offer.price)}+` : formatDollars(offer.price)}
          </p>
          {taxText && (
            <p className="text-sm text-muted-foreground" data-testid="upsell-tax">
              {taxText}
            </p>
          )}
        </div>
        {tip && (
          <div className="space-y-1">
            <label htmlFor="upsell-amount" className="text-sm font-medium">
              Your amount (minimum {formatDollars(offer.minimumPrice ?? 0)}
              {offer.maximumPrice !== null && `, up to ${formatDollars(offer.maximumPrice)}`})
            </label>
            <Input
              id="upsell-amount"
              type="number"
              step="0.01"
              min={offer.minimumPrice ?? 0}
              max={offer.maximumPrice ?? undefined}
              value={amount}
              onChange={(e) => setAmount(e.target.value)}
            />
          </div>
        )}
        {problem && (
          <div
            className="flex gap-2 rounded-lg border border-destructive/30 bg-destructive/5 p-3 text-sm text-destructive"
            role="alert"
            data-testid="upsell-problem"
          >
            <AlertCircle className="mt-0.5 size-4 shrink-0" />
            <span>{problem}</span>
          </div>
        )}
        {!problem && (
          <Button size="lg" variant="brand" className="h-12 w-full text-base" onClick={accept} disabled={!!busy}>
            {busy === "accept" && <Spinner className="size-5 text-white" />}
            {offer.ctaText}
          </Button>
        )}
        <Button variant="ghost" className="w-full" onClick={onDecline} disabled={!!busy}>
          {busy === "decline" && <Spinner className="size-4" />}
          {problem ? "Skip this offer" : "No thanks"}
        </Button>
        {!testMode && offer.card && (
          <p className="flex items-center justify-center gap-1.5 text-xs text-muted-foreground">
            <CreditCard className="size-3.5" /> Charged to your{" "}
            {offer.card.brand.charAt(0).toUpperCase() + offer.card.brand.slice(1)} ending in {offer.card.last4}, the
            card you just used. No need to type it again.
          </p>
        )}
      </CardContent>
    </Card>
  );
}
