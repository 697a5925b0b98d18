// One term a buyer types into the checkout (a discount code, a VAT number): a link that opens the
// field, Apply, the server's refusal beside it, and once applied its name with "Remove". Sending it
// is the caller's (docs/checkout-and-codes.md, "Changing a checkout's terms"; docs/tax.md).
import { useState } from "react";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { withoutStatus } from "@/lib/api";

export function TermField({
  id,
  label,
  prompt,
  applied,
  appliedText,
  removeLabel,
  placeholder,
  check,
  send,
  field,
  testId,
  disabled = false,
}: {
  /** The input's id (its error is `${id}-error`). */
  id: string;
  label: string;
  /** The link that opens the field ("Have a discount code?"). */
  prompt: string;
  applied: string | null;
  appliedText: string;
  removeLabel: string;
  placeholder?: string;
  /** A message for text that cannot be right, before asking the server; null when it may be. */
  check: (text: string) => string | null;
  /** Applies `value` (null: removes it); throws the server's refusal. */
  send: (value: string | null) => Promise<void>;
  /** The request's field name, taken off the front of the server's message ("discountCode: …"). */
  field: string;
  testId?: string;
  /** While a payment is under way. */
  disabled?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const [text, setText] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (value: string | null) => {
    setBusy(true);
    setProblem(null);
    try {
      await send(value);
      setText("");
      setOpen(false);
    } catch (err) {
      setProblem(withoutStatus((err as Error).message).replace(new RegExp(`^${field}: `), ""));
    } finally {
      setBusy(false);
    }
  };
  const errorId = `${id}-error`;
  const error = problem && (
    <p id={errorId} role="alert" className="text-sm text-destructive">
      {problem}
    </p>
  );
  if (applied)
    return (
      <div className="space-y-1">
        <p
          className="flex items-center justify-between gap-3 text-sm font-medium text-emerald-700"
          data-testid={testId}
        >
          <span className="min-w-0 break-words">{appliedText}</span>
          <button
            type="button"
            className="shrink-0 text-sm font-medium text-muted-foreground underline underline-offset-4 hover:text-foreground disabled:opacity-60"
            aria-label={removeLabel}
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
        {prompt}
      </button>
    );
  const apply = () => {
    const wrong = check(text.trim());
    if (wrong) return setProblem(wrong);
    void run(text.trim());
  };
  return (
    <div className="space-y-2">
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      <div className="flex gap-2">
        <Input
          id={id}
          value={text}
          disabled={disabled}
          autoComplete="off"
          placeholder={placeholder}
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
          aria-describedby={problem ? errorId : undefined}
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
