// "Wrong email? Change it" on the success page: the browser that paid moves the order's receipt to
// another address; the old one is told. Behaviour: docs/payments.md ("Changing a purchase's email").
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { MailCheck } from "lucide-react";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { HUMAN_CHECK_ACTIONS, HUMAN_CHECK_REFUSED } from "@shared/human-check";
import { PURCHASE_EMAIL_MESSAGES, purchaseEmailChangeSchema } from "@shared/purchase-email";
import { FieldError, useFieldErrors } from "@/components/field-error";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { CardContent } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { useHumanCheck } from "@/hooks/use-human-check";
import { api, withoutStatus } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

/** The form's words for what the server answered: a 404 means this is not the browser that paid. */
function problemOf(message: string): string {
  if (message.startsWith("404: ")) return PURCHASE_EMAIL_MESSAGES.notThisBrowser;
  if (message === `403: ${HUMAN_CHECK_REFUSED}`) return HUMAN_CHECK_REFUSED;
  if (/^(409|429): /.test(message)) return withoutStatus(message);
  return "We couldn't change the email. Check your connection and try again.";
}

export function ChangeEmail({ purchaseId, emailedTo }: { purchaseId: string; emailedTo: string | null }) {
  const [open, setOpen] = useState(false);
  const [email, setEmail] = useState("");
  const fe = useFieldErrors("change-email");
  // Whether the order had an address when this change was asked for (the page's answer is read again after it).
  const [hadAddress, setHadAddress] = useState(!!emailedTo);
  const done = useRef<HTMLParagraphElement>(null);
  const queryClient = useQueryClient();
  const check = useHumanCheck(HUMAN_CHECK_ACTIONS.purchaseEmail);
  const change = useMutation({
    mutationFn: (address: string) =>
      check.send((headers) =>
        api("POST /api/purchases/:id/email", { params: { id: purchaseId }, body: { email: address }, headers }),
      ),
    // The page's "We emailed your receipt … to" line now names the new address.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.purchaseVerify("", "", "").slice(0, 1) }),
    // A 400 names the field ("email: …"); any other answer is about the order, shown under the field too.
    onError: (err: Error) => {
      if (!(err.message.startsWith("400: ") && fe.fromServer(err, ["email"]))) fe.set("email", problemOf(err.message));
    },
  });

  // The form is gone once it worked: the focus moves to what happened, not to the page's start.
  useEffect(() => {
    if (change.isSuccess) done.current?.focus();
  }, [change.isSuccess]);

  if (change.isSuccess) {
    return (
      <CardContent>
        <p
          className="flex items-start gap-2 rounded-lg bg-emerald-50 px-3 py-2 text-sm text-emerald-900 outline-none [overflow-wrap:anywhere]"
          role="status"
          ref={done}
          tabIndex={-1}
          data-testid="change-email-done"
        >
          <MailCheck className="mt-0.5 size-4 shrink-0" />
          {change.data.changed
            ? `Done: your receipt and access link are on their way to ${change.variables}.${hadAddress ? " We told the old address about the change." : ""}`
            : `${change.variables} is already the email on this order: nothing changed.`}
        </p>
      </CardContent>
    );
  }
  if (!open) {
    return (
      <CardContent>
        <button
          type="button"
          onClick={() => setOpen(true)}
          className="text-sm text-muted-foreground underline underline-offset-4 hover:text-foreground"
          data-testid="change-email-open"
        >
          {emailedTo ? "Wrong email? Change it" : "Add an email for your receipt"}
        </button>
      </CardContent>
    );
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const valid = fe.check(purchaseEmailChangeSchema, { email });
    if (valid) {
      setHadAddress(!!emailedTo);
      change.mutate(valid.email);
    }
  };
  return (
    <CardContent>
      <form onSubmit={submit} className="space-y-2" noValidate aria-label="Change the email on this order">
        <label htmlFor="change-email-input" className="text-sm font-medium">
          Where should your receipt and access link go?
        </label>
        <div className="flex flex-col gap-2 sm:flex-row">
          <Input
            id="change-email-input"
            type="email"
            autoComplete="email"
            placeholder="you@example.com"
            autoFocus
            value={email}
            onChange={(e) => {
              setEmail(e.target.value);
              fe.clear("email");
            }}
            {...fe.field("email")}
          />
          <div className="flex gap-2">
            <Button type="submit" disabled={change.isPending} className="flex-1 sm:flex-none">
              {change.isPending && <Spinner className="size-4" />} Change email
            </Button>
            <Button
              type="button"
              variant="ghost"
              onClick={() => {
                setOpen(false);
                fe.reset();
              }}
              disabled={change.isPending}
            >
              Cancel
            </Button>
          </div>
        </div>
        <div ref={check.mount} data-testid="human-check" />
        <FieldError of={fe} name="email" />
        <p className="text-xs text-muted-foreground">
          We'll send your receipt there and tell the address it was sent to before.
        </p>
      </form>
    </CardContent>
  );
}
