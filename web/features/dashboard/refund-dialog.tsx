// A sale row's "Refund" action: full or partial amount (prefilled with what is refundable) and a
// reason, sent once per dialog (its requestKey makes a repeated press the same refund). How much
// leaves the creator's balance is the server's figure for the typed amount (the ledger's split), and
// what the row shows afterwards comes from the server's state (Stripe's word), never from this form.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, useState, type FormEvent } from "react";
import { type REFUND_REASONS, refundSaleSchema } from "@shared/earnings";
import type { Sale } from "@shared/earnings";
import { FieldError, FORM, useFieldErrors } from "@/components/field-error";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/components/ui/dialog";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Textarea } from "@/components/ui/textarea";
import { toast } from "@/hooks/use-toast";
import { api, apiQuery, withoutStatus } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { dollarsField, formatDollars } from "@shared/money";

const REASON_LABELS: Record<(typeof REFUND_REASONS)[number] | "other", string> = {
  requested_by_customer: "The buyer asked for it",
  duplicate: "Duplicate payment",
  fraudulent: "Fraudulent payment",
  other: "Other (write a note)",
};
const NOTE_MISSING = "Write a note saying why you are refunding (up to 500 characters)";

/** The amount typed, in cents, when it is one (else null). */
const centsOf = (amount: string) =>
  /^\d+(\.\d{1,2})?$/.test(amount.trim()) && Number(amount) > 0 ? Math.round(Number(amount) * 100) : null;

/** "$16.00 leaves your balance": the server's figure for the typed amount (the creator's share of it). */
function LeavesBalance({ sale, cents }: { sale: Sale; cents: number | null }) {
  const valid = cents !== null && cents <= Math.round(sale.refundable * 100);
  const quote = useQuery({
    ...apiQuery("GET /api/sales/:purchaseId/refund-quote", {
      params: { purchaseId: sale.id },
      query: { amountCents: cents ?? 0 },
    }),
    enabled: valid,
    gcTime: 0,
    placeholderData: keepPreviousData,
  });
  if (!valid) return null;
  return (
    <p className="rounded-md bg-muted px-3 py-2 text-sm" data-testid="refund-share" aria-live="polite">
      {quote.data ? (
        <>
          <strong>{formatDollars(quote.data.leavesBalance)} leaves your balance</strong>
          <span className="text-muted-foreground"> (your share of this refund).</span>
        </>
      ) : quote.error ? (
        <span className="text-muted-foreground">Your share of this refund leaves your balance.</span>
      ) : (
        <span className="text-muted-foreground">Working out your share…</span>
      )}
    </p>
  );
}

/** What the row says about a sale's refunds, from the server's fields. */
export function refundLabel(sale: Sale): string | null {
  if (sale.refundPending) return "Refund pending";
  if (sale.status === "refunded") return "Refunded";
  if (sale.refundedAmount > 0) return `Partly refunded ${formatDollars(sale.refundedAmount)}`;
  if (sale.refundFailed) return "Refund failed";
  return null;
}

export function RefundDialog({ sale, onClose }: { sale: Sale; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [amount, setAmount] = useState(dollarsField(sale.refundable));
  // One key per amount in cents, for the dialog's life: a double press, or a retry after an error
  // (even with the amount retyped, "10" or "10.00"), is the same refund; another amount is another
  // request (the server refuses a key reused with a new amount).
  const keys = useRef(new Map<number, string>());
  const keyFor = (cents: number) => {
    if (!keys.current.has(cents)) keys.current.set(cents, crypto.randomUUID());
    return keys.current.get(cents)!;
  };
  const [reason, setReason] = useState<keyof typeof REASON_LABELS>("requested_by_customer");
  const [note, setNote] = useState("");
  const fe = useFieldErrors("refund");
  const aliases = { amountCents: "amount" };

  const refund = useMutation({
    mutationFn: async (body: { amountCents: number; reason: string; requestKey: string }) =>
      api("POST /api/sales/:purchaseId/refund", { params: { purchaseId: sale.id }, body }),
    onSuccess: (r) => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.creatorSales });
      void queryClient.invalidateQueries({ queryKey: queryKeys.earningsStats });
      void queryClient.invalidateQueries({ queryKey: queryKeys.moneyTimeline });
      if (r.status === "failed" || r.status === "canceled")
        toast({
          title: "Refund Failed",
          description: "Stripe could not refund this payment. Nothing was taken from your balance.",
          variant: "destructive",
        });
      else if (r.status === "succeeded")
        toast({
          title: "Refund sent",
          description: `${formatDollars(r.amount)} is on its way back to the buyer's card. They were emailed.`,
        });
      else
        toast({
          title: "Refund pending",
          description: `Stripe is processing the ${formatDollars(r.amount)} refund. The sale shows the result once it is done.`,
        });
      onClose();
    },
    onError: (e) => fe.fromServer(e, ["amount", "reason"], aliases) || fe.set(FORM, withoutStatus(e.message)),
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const cents = centsOf(amount);
    if (cents === null) return fe.set("amount", "Enter an amount in dollars, at least $0.01");
    if (cents > Math.round(sale.refundable * 100))
      return fe.set("amount", `You can refund at most ${formatDollars(sale.refundable)} of this sale`);
    if (reason === "other" && !note.trim()) return fe.set("reason", NOTE_MISSING);
    const body = { amountCents: cents, reason: reason === "other" ? note.trim() : reason, requestKey: keyFor(cents) };
    if (fe.check(refundSaleSchema, body, { alias: aliases })) refund.mutate(body);
  };

  return (
    <Dialog open onOpenChange={(o) => !o && !refund.isPending && onClose()}>
      <DialogContent>
        <form onSubmit={submit} className="space-y-4" noValidate>
          <DialogHeader>
            <DialogTitle>Refund this sale</DialogTitle>
            <DialogDescription>
              {sale.productName} · paid {formatDollars(sale.amount)}
              {sale.buyerEmail ? ` by ${sale.buyerEmail}` : ""}. The money goes back to the buyer's card through Stripe.
              A full refund ends the buyer's access; a partial one keeps it.
            </DialogDescription>
          </DialogHeader>
          <div className="space-y-1.5">
            <Label htmlFor="refund-amount">Amount (USD, up to {formatDollars(sale.refundable)})</Label>
            <Input
              id="refund-amount"
              inputMode="decimal"
              value={amount}
              onChange={(e) => {
                setAmount(e.target.value);
                fe.clear("amount", FORM);
              }}
              {...fe.field("amount")}
              autoFocus
            />
            <FieldError of={fe} name="amount" />
          </div>
          <LeavesBalance sale={sale} cents={centsOf(amount)} />
          <div className="space-y-1.5">
            <Label htmlFor="refund-reason">Reason</Label>
            <select
              id="refund-reason"
              className="h-9 w-full rounded-md border bg-background px-3 text-sm"
              value={reason}
              onChange={(e) => {
                setReason(e.target.value as keyof typeof REASON_LABELS);
                fe.clear("reason", FORM);
              }}
              {...(reason === "other" ? {} : fe.field("reason"))}
            >
              {Object.entries(REASON_LABELS).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
            {reason !== "other" && <FieldError of={fe} name="reason" />}
          </div>
          {reason === "other" && (
            <div className="space-y-1.5">
              <Label htmlFor="refund-note">Note (kept with the refund, up to 500 characters)</Label>
              <Textarea
                id="refund-note"
                value={note}
                maxLength={500}
                onChange={(e) => {
                  setNote(e.target.value);
                  fe.clear("reason", FORM);
                }}
                {...fe.field("reason")}
              />
              <FieldError of={fe} name="reason" />
            </div>
          )}
          <FieldError of={fe} name={FORM} />
          <DialogFooter>
            <Button type="button" variant="outline" onClick={onClose} disabled={refund.isPending}>
              Cancel
            </Button>
            <Button type="submit" variant="destructive" disabled={refund.isPending}>
              {refund.isPending ? <Spinner className="size-4" label="Refunding" /> : null}
              Refund {Number.isFinite(Number(amount)) && Number(amount) > 0 ? formatDollars(Number(amount)) : ""}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
