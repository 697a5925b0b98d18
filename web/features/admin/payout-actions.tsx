// A creator row's menu of admin actions (mark paid with a reference, mark failed with a reason,
// re-send, hold / release) and their dialogs; on a phone also the one action that applies as a
// button. The server decides (services/payouts/admin.ts PAYOUT_ACTIONS, ./hold.ts); the menu offers
// only what it allows (never Re-send for a payout paid by hand, nothing that sends while held), and
// shows the server's refusal.
import { MoreHorizontal } from "lucide-react";
import { useEffect, useRef, useState, type FormEvent } from "react";
import {
  HOLD_PROMISE,
  holdCreatorSchema,
  markPayoutFailedSchema,
  markPayoutPaidSchema,
  type AdminCreatorPayoutRow,
} from "@shared/admin";
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
import { withoutStatus } from "@/lib/api";
import { formatDollars } from "@shared/money";
import { METHOD_NAMES } from "./process-confirm";
import { usePayoutAction, type PayoutAction } from "./queries";

type Row = AdminCreatorPayoutRow;
type Kind = PayoutAction["kind"];

/**
 * Which actions the row offers, as PAYOUT_ACTIONS allows them from the payout's state: a manual
 * payout is marked paid (not while held: it waits) or failed, never re-sent (the admin pays it by
 * hand; a failed one is prepared again by the next press); a transfer is re-sent.
 */
function actionsFor(r: Row): Kind[] {
  const p = r.payout;
  const out: Kind[] = [];
  if (p && !p.byTransfer && p.status === "pending" && !r.held) out.push("mark-paid");
  if (p && !p.byTransfer && (p.status === "pending" || p.status === "processing")) out.push("mark-failed");
  if (p?.byTransfer && (p.status === "failed" ? !r.held : p.status === "pending" || p.status === "processing"))
    out.push("resend");
  out.push(r.held ? "release" : "hold");
  return out;
}

/** The one action a stacked row shows as a button: release a hold, pay by hand, or re-send a transfer that needs it. */
function primaryOf(r: Row): Kind | null {
  const all = actionsFor(r);
  if (r.held) return "release";
  if (all.includes("mark-paid")) return "mark-paid";
  if (all.includes("resend") && (r.status === "Failed" || r.status === "Retrying")) return "resend";
  return null;
}
const PRIMARY: Partial<Record<Kind, string>> = { "mark-paid": "Mark paid", resend: "Re-send", release: "Release hold" };

const LABELS: Record<Kind, string> = {
  "mark-paid": "Mark paid…",
  "mark-failed": "Mark failed…",
  resend: "Re-send",
  hold: "Hold payouts…",
  release: "Release hold",
};
const DONE: Record<Kind, [string, string]> = {
  "mark-paid": ["Payout marked paid", "Already marked paid: nothing changed."],
  "mark-failed": ["Payout marked failed", "Already failed: nothing changed."],
  resend: ["Payout re-sent", "Nothing to send now: it is already on its way or paid."],
  hold: ["Creator held", "Already held: nothing changed."],
  release: ["Hold released", "Not held: nothing changed."],
};

/** The creator's name, or nothing (the dialog about where money goes never names the login email). */
const realName = (r: Row) => [r.firstName, r.lastName].filter(Boolean).join(" ");
const nameOf = (r: Row) => [r.firstName, r.lastName].filter(Boolean).join(" ") || r.email;
/** Where a manual payout's money goes: "PayPal (name@example.com)", never the creator's login. */
const destinationOf = (r: Row) => {
  const method = METHOD_NAMES[r.payout?.method ?? ""] ?? r.payout?.method ?? "";
  const to = r.payout?.email ?? r.payoutEmail;
  return to ? `${method} ${to}` : method;
};

export function RowActions({ row, primary = false }: { row: Row; primary?: boolean }) {
  const [open, setOpen] = useState(false);
  const [dialog, setDialog] = useState<Exclude<Kind, "resend" | "release"> | null>(null);
  const menu = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => !menu.current?.contains(e.target as Node) && setOpen(false);
    document.addEventListener("mousedown", close);
    return () => document.removeEventListener("mousedown", close);
  }, [open]);
  const lastKind = useRef<Kind>("resend");
  const direct = usePayoutAction({
    onSuccess: (r) =>
      toast({ title: DONE[lastKind.current][0], description: r.changed ? undefined : DONE[lastKind.current][1] }),
    onError: (e) => toast({ title: "Action Failed", description: e.message, variant: "destructive" }),
  });
  const pick = (k: Kind) => {
    setOpen(false);
    if (k === "resend" && row.payout) {
      lastKind.current = k;
      direct.mutate({ kind: "resend", payoutId: row.payout.id });
    } else if (k === "release") {
      lastKind.current = k;
      direct.mutate({ kind: "release", userId: row.userId });
    } else setDialog(k as Exclude<Kind, "resend" | "release">);
  };
  const main = primary ? primaryOf(row) : null;
  return (
    <div className="relative flex items-center gap-1" ref={menu}>
      {main && (
        <Button variant="outline" size="sm" onClick={() => pick(main)} disabled={direct.isPending}>
          {PRIMARY[main]}
        </Button>
      )}
      <Button
        variant="ghost"
        size="sm"
        aria-label={`Actions for ${row.email}`}
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
        disabled={direct.isPending}
      >
        {direct.isPending ? <Spinner className="size-4" label="Working" /> : <MoreHorizontal className="size-4" />}
      </Button>
      {open && (
        <div
          role="menu"
          className="absolute top-full right-0 z-20 mt-1 w-44 rounded-md border bg-popover p-1 text-sm shadow-md"
        >
          {actionsFor(row).map((k) => (
            <button
              key={k}
              role="menuitem"
              type="button"
              className="block w-full rounded px-2 py-1.5 text-left hover:bg-accent"
              onClick={() => pick(k)}
            >
              {LABELS[k]}
            </button>
          ))}
        </div>
      )}
      {dialog && <ActionDialog row={row} kind={dialog} onClose={() => setDialog(null)} />}
    </div>
  );
}

const DIALOGS = {
  "mark-paid": {
    title: "Mark payout paid",
    text: (r: Row) =>
      `You sent ${formatDollars(r.payout?.amount ?? 0)} by ${destinationOf(r)}${realName(r) ? ` for ${realName(r)}` : ""} by hand. Record the reference of that payment (e.g. the PayPal transaction id); the creator is emailed that it was sent.`,
    field: "Reference",
    schema: markPayoutPaidSchema,
    key: "reference" as const,
    submit: "Mark Paid",
  },
  "mark-failed": {
    title: "Mark payout failed",
    text: (r: Row) =>
      `${formatDollars(r.payout?.amount ?? 0)} goes back to ${nameOf(r)}'s available balance and is paid in a later run. The creator is emailed the reason below: write it for them.`,
    field: "Reason (the creator reads it)",
    schema: markPayoutFailedSchema,
    key: "reason" as const,
    submit: "Mark Failed",
  },
  hold: {
    title: "Hold payouts",
    text: (r: Row) =>
      `The payout runs skip ${nameOf(r)} and Withdraw now is refused until you release them. ${HOLD_PROMISE} They are emailed now and when you release them, with how to reach support.`,
    field: "Reason",
    schema: holdCreatorSchema,
    key: "reason" as const,
    submit: "Hold",
  },
};

function ActionDialog({ row, kind, onClose }: { row: Row; kind: keyof typeof DIALOGS; onClose: () => void }) {
  const d = DIALOGS[kind];
  const [value, setValue] = useState("");
  const fe = useFieldErrors(`action-${kind}`);
  const action = usePayoutAction({
    onSuccess: (r) => {
      toast({ title: DONE[kind][0], description: r.changed ? undefined : DONE[kind][1] });
      onClose();
    },
    // Beside the field when the server names it; anything else (a 409 about the payout, a 5xx) under the form.
    onError: (e) => fe.fromServer(e, [d.key]) || fe.set(FORM, withoutStatus(e.message)),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!fe.check(d.schema, { [d.key]: value })) return;
    const text = value.trim();
    action.mutate(
      kind === "mark-paid"
        ? { kind, payoutId: row.payout!.id, reference: text }
        : kind === "mark-failed"
          ? { kind, payoutId: row.payout!.id, reason: text }
          : { kind, userId: row.userId, reason: text },
    );
  };
  const Field = kind === "mark-failed" ? Textarea : Input;
  return (
    <Dialog open onOpenChange={(o) => !o && !action.isPending && onClose()}>
      <DialogContent>
        <form onSubmit={submit} className="space-y-4" noValidate>
          <DialogHeader>
            <DialogTitle>{d.title}</DialogTitle>
            <DialogDescription>{d.text(row)}</DialogDescription>
          </DialogHeader>
          <div className="space-y-1.5">
            <Label htmlFor={`action-${kind}`}>{d.field}</Label>
            <Field
              id={`action-${kind}`}
              value={value}
              onChange={(e) => {
                setValue(e.target.value);
                fe.clear(d.key, FORM);
              }}
              {...fe.field(d.key)}
              autoFocus
            />
            <FieldError of={fe} name={d.key} />
            <FieldError of={fe} name={FORM} />
          </div>
          <DialogFooter>
            <Button type="button" variant="outline" onClick={onClose} disabled={action.isPending}>
              Cancel
            </Button>
            <Button
              type="submit"
              variant={kind === "mark-paid" ? "default" : "destructive"}
              disabled={action.isPending}
            >
              {action.isPending && <Spinner className="size-4" label="Saving" />} {d.submit}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
