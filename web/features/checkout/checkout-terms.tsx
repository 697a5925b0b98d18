// The checkout's terms a buyer can change: a discount code and the order bump. Either starts the
// checkout again (a new PaymentIntent at the server's price) and reloads this page for it.
import { useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import type { PublicContent } from "@shared/content";
import { bumpLabel } from "@shared/paywall";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { api, withoutStatus } from "@/lib/api";

/**
 * Starts this checkout again with other terms (a code applied, the order bump ticked or not): a new
 * PaymentIntent at the server's price, keeping the amount and the email typed, then this page for it.
 * A browser that owns the item already goes to its access instead. Errors are the caller's to show.
 */
function useStartAgain(id: string) {
  const navigate = useNavigate();
  return async (terms: { code?: string; bump: boolean; amount?: number; email: string; noReminder: boolean }) => {
    const email = terms.email.trim();
    const body = await api("POST /api/create-payment-intent", {
      body: {
        contentId: id,
        ...(terms.code ? { discountCode: terms.code } : {}),
        ...(terms.bump ? { bump: true } : {}),
        ...(terms.amount !== undefined ? { customAmount: terms.amount } : {}),
        ...(email && /^[^\s@]+@[^\s@]+$/.test(email) ? { buyerEmail: email } : {}),
        ...(terms.noReminder ? { noReminder: true } : {}),
      },
    });
    if ("alreadyOwned" in body) return window.location.assign(body.accessUrl);
    const code = body.discount?.code ?? terms.code?.toUpperCase();
    await navigate({
      to: "/checkout/$id",
      params: { id },
      search: {
        payment_intent: body.clientSecret,
        amount: body.amount,
        ...(code ? { code } : {}),
        ...(terms.bump ? { bump: true } : {}),
      },
      replace: true,
    });
  };
}

/**
 * "Have a code?": applying one starts the checkout again with it (a new PaymentIntent at the price the
 * server computes, holding one use of the code); the page then shows that price. A code that does not
 * apply says why beside the field, and nothing else changes.
 */
export function DiscountField({
  id,
  applied,
  amount,
  email,
  bump,
  noReminder,
}: {
  id: string;
  applied?: string;
  amount?: number;
  email: string;
  bump: boolean;
  noReminder: boolean;
}) {
  const startAgain = useStartAgain(id);
  const [open, setOpen] = useState(false);
  const [text, setText] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (applied) return <p className="text-sm text-emerald-700">Code {applied.toUpperCase()} applied.</p>;
  if (!open) {
    return (
      <button
        type="button"
        className="text-sm font-medium text-primary underline-offset-4 hover:underline"
        onClick={() => setOpen(true)}
      >
        Have a discount code?
      </button>
    );
  }
  const apply = async () => {
    if (!/^[A-Za-z0-9_-]{2,40}$/.test(text.trim())) return setProblem("This code isn't valid");
    setBusy(true);
    setProblem(null);
    try {
      await startAgain({ code: text.trim(), bump, amount, email, noReminder });
    } catch (err) {
      setProblem(withoutStatus((err as Error).message).replace(/^discountCode: /, ""));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="space-y-2">
      <label htmlFor="discount-code" className="text-sm font-medium">
        Discount code
      </label>
      <div className="flex gap-2">
        <Input
          id="discount-code"
          value={text}
          autoComplete="off"
          onChange={(e) => {
            setText(e.target.value);
            setProblem(null);
          }}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              void apply();
            }
          }}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? "discount-code-error" : undefined}
        />
        <Button type="button" variant="outline" onClick={() => void apply()} disabled={busy || !text.trim()}>
          {busy ? <Spinner className="size-4" /> : null}
          Apply
        </Button>
      </div>
      {problem && (
        <p id="discount-code-error" role="alert" className="text-sm text-destructive">
          {problem}
        </p>
      )}
    </div>
  );
}

/**
 * The order bump's checkbox: "Add {title} for $X". Ticking or unticking starts the checkout again
 * (a new PaymentIntent for the new total, keeping the code and amount); a bump that can no longer be
 * sold says why, and the checkout stays as it was.
 */
export function BumpCheckbox({
  id,
  offer,
  taken,
  code,
  amount,
  email,
  noReminder,
}: {
  id: string;
  offer: NonNullable<PublicContent["bump"]>;
  taken: boolean;
  code?: string;
  amount?: number;
  email: string;
  noReminder: boolean;
}) {
  const startAgain = useStartAgain(id);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const toggle = async (next: boolean) => {
    setBusy(true);
    setProblem(null);
    try {
      await startAgain({ code, bump: next, amount, email, noReminder });
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
          className="size-4"
          checked={busy ? !taken : taken}
          disabled={busy}
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
