// /settings → "Tax on your prices": whether the creator's prices include tax (saved as soon as it is
// chosen) and, for a price they type, what a buyer in a few places pays and what they earn
// (docs/tax.md "What the creator sees").
import { Landmark } from "lucide-react";
import { useEffect, useState } from "react";
import { dollarsToCents, dollarsField } from "@shared/money";
import { MAX_PRICE_CENTS, MIN_PRICE_CENTS } from "@shared/pricing";
import { TAX_BEHAVIORS, type TaxBehavior } from "@shared/tax";
import { TAX_BEHAVIOR_TEXT, TAX_SETTINGS_MESSAGES } from "@shared/tax-settings";
import { LoadFailed } from "@/components/load-failed";
import { SectionSpinner, Spinner } from "@/components/spinner";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { useUnauthorizedRedirect } from "@/features/dashboard/use-unauthorized-redirect";
import { toast } from "@/hooks/use-toast";
import { withoutStatus } from "@/lib/api";
import { useSaveTaxBehavior, useTaxSettings } from "./queries";
import { TaxPreviewTable } from "./tax-preview-table";

/** The three choices as radio buttons; the choice is saved at once and shown from the click. */
function BehaviorChoice({ saved }: { saved: TaxBehavior }) {
  const save = useSaveTaxBehavior();
  const [choice, setChoice] = useState<TaxBehavior>();
  const [error, setError] = useState<string>();
  const current = choice ?? saved;
  const choose = (behavior: TaxBehavior) => {
    setChoice(behavior);
    setError(undefined);
    save.mutate(behavior, {
      onSuccess: (next) =>
        toast({ title: "Saved", description: `Prices: ${TAX_BEHAVIOR_TEXT[next.behavior].title.toLowerCase()}.` }),
      onError: (e) => setError(withoutStatus(e.message)),
      onSettled: () => setChoice(undefined),
    });
  };
  return (
    <fieldset className="space-y-2" aria-describedby={error ? "tax-behavior-error" : undefined}>
      <legend className="mb-2 flex items-center gap-2 text-sm font-medium">
        Prices include tax {save.isPending && <Spinner className="size-4" label="Saving" />}
      </legend>
      <div className="grid gap-2 md:grid-cols-3">
        {TAX_BEHAVIORS.map((b) => (
          <label
            key={b}
            className="flex cursor-pointer gap-3 rounded-lg border p-3 text-sm has-[:checked]:border-primary has-[:checked]:bg-primary/5"
          >
            <input
              type="radio"
              name="tax-behavior"
              value={b}
              className="mt-0.5 size-4 shrink-0 accent-primary"
              checked={current === b}
              disabled={save.isPending}
              onChange={() => choose(b)}
            />
            <span className="min-w-0">
              <span className="block font-medium">{TAX_BEHAVIOR_TEXT[b].title}</span>
              <span className="block text-muted-foreground">{TAX_BEHAVIOR_TEXT[b].text}</span>
            </span>
          </label>
        ))}
      </div>
      {error && (
        <p id="tax-behavior-error" className="text-sm text-destructive" role="alert">
          {error}
        </p>
      )}
    </fieldset>
  );
}

/** The typed price in cents once it is a valid price and the creator paused typing; null while it is not. */
function useSettledPrice(text: string): { cents: number | null; invalid: boolean } {
  const cents = dollarsToCents(text);
  const valid = cents >= MIN_PRICE_CENTS && cents <= MAX_PRICE_CENTS;
  const [settled, setSettled] = useState<number | null>(valid ? cents : null);
  useEffect(() => {
    if (!valid) return;
    const t = setTimeout(() => setSettled(cents), 400);
    return () => clearTimeout(t);
  }, [cents, valid]);
  return { cents: valid ? settled : null, invalid: !valid && text.trim() !== "" };
}

function Preview({ behavior, suggestedPrice }: { behavior: TaxBehavior; suggestedPrice: number }) {
  const [price, setPrice] = useState(dollarsField(suggestedPrice));
  const { cents, invalid } = useSettledPrice(price);
  return (
    <section className="space-y-3 border-t pt-5" aria-labelledby="tax-preview-title">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h3 id="tax-preview-title" className="font-semibold">
            What buyers pay and what you earn
          </h3>
          <p className="text-sm text-muted-foreground">Worked out by Stripe Tax, as at checkout.</p>
        </div>
        <div className="space-y-1">
          <Label htmlFor="tax-preview-price">For a price of</Label>
          <div className="relative w-36">
            <span className="pointer-events-none absolute inset-y-0 left-3 flex items-center text-muted-foreground">
              $
            </span>
            <Input
              id="tax-preview-price"
              inputMode="decimal"
              type="number"
              step="0.01"
              min={MIN_PRICE_CENTS / 100}
              max={MAX_PRICE_CENTS / 100}
              className="pl-6"
              value={price}
              onChange={(e) => setPrice(e.target.value)}
              aria-invalid={invalid}
              aria-describedby={invalid ? "tax-preview-price-error" : undefined}
            />
          </div>
        </div>
      </div>
      {invalid && (
        <p id="tax-preview-price-error" className="text-sm text-destructive" role="alert">
          {TAX_SETTINGS_MESSAGES.price}
        </p>
      )}
      {cents !== null && <TaxPreviewTable priceCents={cents} behavior={behavior} />}
      <p className="text-xs text-muted-foreground">
        Tax is never part of your earnings: the fee and your share are worked out on the price without tax. Where
        ApeWall does not collect tax, the buyer pays your price and none is due.
      </p>
    </section>
  );
}

export function TaxSettingsCard() {
  const { data, isLoading, error, refetch } = useTaxSettings();
  useUnauthorizedRedirect(error);
  return (
    <Card data-testid="tax-settings">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <Landmark className="size-5" /> Tax on your prices
        </CardTitle>
        <CardDescription>
          ApeWall collects sales tax, VAT and GST on every sale and pays it to the tax authorities. Choose whether the
          prices you set include it.
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-5">
        {isLoading ? (
          <SectionSpinner className="py-8" />
        ) : error || !data ? (
          <LoadFailed
            what="your tax settings"
            detail={error ? withoutStatus(error.message) : undefined}
            onRetry={refetch}
          />
        ) : (
          <>
            <BehaviorChoice saved={data.behavior} />
            <Preview behavior={data.behavior} suggestedPrice={data.suggestedPrice} />
          </>
        )}
      </CardContent>
    </Card>
  );
}
