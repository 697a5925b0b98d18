// The checkout's terms a buyer can change: a discount code (applied or removed) and the order bump.
// A change asks the server to price the new terms and set the same PaymentIntent's amount, so the
// card typed into the Payment Element stays (docs/checkout-and-codes.md, "Changing a checkout's terms").
// A business buyer's VAT number is one more such term (docs/tax.md, "What the buyer sees").
import type { StripeElements } from "@stripe/stripe-js";
import { useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import type { PublicContent } from "@shared/content";
import type { CheckoutTermsAnswer } from "@shared/payments";
import { bumpLabel } from "@shared/paywall";
import type { TaxLine } from "@shared/tax";
import { Spinner } from "@/components/spinner";
import { api, withoutStatus } from "@/lib/api";
import { TermField } from "./term-field";

/** What the buyer chose: a code, the order bump, a VAT number (null: none). */
export type Choice = { code: string | null; bump: boolean; vatId: string | null };
export type ChangeTerms = (next: Choice) => Promise<void>;
/** The server's terms: `amount` is the total, tax included; `tax` its tax line. */
export type PricedTerms = CheckoutTermsAnswer & { tax?: TaxLine | null };

/**
 * Changes this checkout's terms in place: the server's price on the same PaymentIntent, read into the
 * Payment Element (elements.fetchUpdates), then the page's address says the new terms (the card form
 * is not drawn again). Errors are the caller's to show.
 */
export function useChangeTerms(
  id: string,
  clientSecret: string,
  elements: StripeElements | null,
  changed: (answer: PricedTerms, vatId: string | null) => void,
): ChangeTerms {
  const navigate = useNavigate();
  return async (next) => {
    const answer: PricedTerms = await api("POST /api/checkout/terms", {
      body: {
        paymentIntent: clientSecret.split("_secret_")[0],
        discountCode: next.code,
        bump: next.bump,
        vatId: next.vatId ?? "",
      },
    });
    await elements?.fetchUpdates().catch(() => undefined);
    changed(answer, next.vatId);
    await navigate({
      to: "/checkout/$id",
      params: { id },
      search: {
        payment_intent: clientSecret,
        amount: answer.amount,
        ...(answer.discount ? { code: answer.discount.code } : {}),
        ...(answer.bump ? { bump: true } : {}),
      },
      replace: true,
    });
  };
}

/**
 * "Have a discount code?", or the code applied with "Remove". A code that does not apply says why
 * beside the field, and nothing else changes.
 */
export function DiscountField({
  applied,
  bump,
  vatId,
  change,
  disabled = false,
}: {
  applied?: string;
  bump: boolean;
  vatId: string | null;
  change: ChangeTerms;
  /** While a payment is under way. */
  disabled?: boolean;
}) {
  const code = applied?.toUpperCase() ?? null;
  return (
    <TermField
      id="discount-code"
      label="Discount code"
      prompt="Have a discount code?"
      applied={code}
      appliedText={`Code ${code} applied.`}
      removeLabel={`Remove code ${code}`}
      check={(text) => (/^[A-Za-z0-9_-]{2,40}$/.test(text) ? null : "This code isn't valid")}
      send={(next) => change({ code: next, bump, vatId })}
      field="discountCode"
      disabled={disabled}
    />
  );
}

/**
 * The order bump's checkbox: "Add {title} for $X". Ticking or unticking changes the total in place
 * (keeping the code); a bump that can no longer be sold says why, and the checkout stays as it was.
 */
export function BumpCheckbox({
  offer,
  taken,
  code,
  vatId,
  change,
  disabled = false,
}: {
  offer: NonNullable<PublicContent["bump"]>;
  taken: boolean;
  code?: string;
  vatId: string | null;
  change: ChangeTerms;
  /** While a payment is under way. */
  disabled?: boolean;
}) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const toggle = async (next: boolean) => {
    setBusy(true);
    setProblem(null);
    try {
      await change({ code: code ?? null, bump: next, vatId });
    } catch (err) {
      setProblem(withoutStatus((err as Error).message));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="space-y-1 rounded-lg border-2 border-dashed border-primary/40 bg-primary/5 p-3">
      <label className="flex items-center gap-2 text-sm font-medium">
        <input
          type="checkbox"
          className="size-4 shrink-0"
          checked={busy ? !taken : taken}
          disabled={busy || disabled}
          onChange={(e) => void toggle(e.target.checked)}
          aria-describedby={problem ? "bump-error" : undefined}
        />
        {bumpLabel(offer.title, Math.round(offer.price * 100))}
        {busy && <Spinner className="size-4" />}
      </label>
      {problem && (
        <p id="bump-error" role="alert" className="text-sm text-destructive">
          {problem}
        </p>
      )}
    </div>
  );
}
