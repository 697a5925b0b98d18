// "Buying as a business? Add a VAT number": a business buyer's VAT number, sent with the checkout's
// terms so the server prices it again (a reverse charge shows as the tax line). docs/tax.md.
import { useState } from "react";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { withoutStatus } from "@/lib/api";
import type { ChangeTerms } from "./checkout-terms";

const EMPTY = "Enter your VAT number with its country prefix, like DE123456789.";

export function VatField({
  applied,
  code,
  bump,
  change,
  disabled = false,
}: {
  /** The VAT number on this checkout (null: none). */
  applied: string | null;
  code?: string;
  bump: boolean;
  change: ChangeTerms;
  /** While a payment is under way. */
  disabled?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const [text, setText] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (vatId: string | null) => {
    setBusy(true);
    setProblem(null);
    try {
      await change({ code: code ?? null, bump, vatId: vatId ? vatId.toUpperCase().replace(/[\s.\-/]/g, "") : null });
      setText("");
      setOpen(false);
    } catch (err) {
      setProblem(withoutStatus((err as Error).message).replace(/^vatId: /, ""));
    } finally {
      setBusy(false);
    }
  };
  const error = problem && (
    <p id="vat-number-error" role="alert" className="text-sm text-destructive">
      {problem}
    </p>
  );
  if (applied)
    return (
      <div className="space-y-1">
        <p
          className="flex items-center justify-between gap-3 text-sm font-medium text-emerald-700"
          data-testid="checkout-vat"
        >
          <span className="min-w-0 break-words">VAT number {applied} applied.</span>
          <button
            type="button"
            className="shrink-0 text-sm font-medium text-muted-foreground underline underline-offset-4 hover:text-foreground disabled:opacity-60"
            aria-label={`Remove VAT number ${applied}`}
            disabled={busy || disabled}
            onClick={() => void run(null)}
          >
            Remove
          </button>
        </p>
        {error}
      </div>
    );
  if (!open)
    return (
      <button
        type="button"
        className="block text-sm font-medium text-primary underline-offset-4 hover:underline disabled:opacity-60"
        disabled={disabled}
        onClick={() => setOpen(true)}
      >
        Buying as a business? Add a VAT number
      </button>
    );
  const apply = () => (text.trim() ? void run(text.trim()) : setProblem(EMPTY));
  return (
    <div className="space-y-2">
      <label htmlFor="vat-number" className="text-sm font-medium">
        VAT number
      </label>
      <div className="flex gap-2">
        <Input
          id="vat-number"
          value={text}
          disabled={disabled}
          autoComplete="off"
          placeholder="DE123456789"
          onChange={(e) => {
            setText(e.target.value);
            setProblem(null);
          }}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              apply();
            }
          }}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? "vat-number-error" : undefined}
        />
        <Button type="button" variant="outline" onClick={apply} disabled={busy || disabled || !text.trim()}>
          {busy ? <Spinner className="size-4" /> : null}
          Apply
        </Button>
      </div>
      {error}
    </div>
  );
}
