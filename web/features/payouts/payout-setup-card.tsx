// Where manual payouts go (spec §2 Settings, §5 Payout setup, §8 'Setup Failed'). A change needs a
// recent sign-in: the server's 403 comes with "Sign in again", and what was typed is kept across it.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { CheckCircle2, Wallet } from "lucide-react";
import { useEffect, useState, type FormEvent } from "react";
import { PAYOUT_METHODS, PAYOUT_SETUP_MESSAGES, payoutSetupSchema } from "@shared/payouts";
import type { CurrentUser } from "@shared/auth";
import { FieldError, FORM, useFieldErrors } from "@/components/field-error";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { toast } from "@/hooks/use-toast";
import { apiRequest } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { METHOD_LABELS, payoutDestinationText, withoutStatus } from "./format";
import { clearDraft, keepDraft, needsSignInAgain, readDraft, signInAgain } from "./payout-draft";

function SignInAgainNotice({ message, onSignIn }: { message: string; onSignIn: () => void }) {
  return (
    <p className="text-sm text-destructive" role="alert" data-testid="payout-sign-in-again">
      {message}{" "}
      <button type="button" className="font-medium underline" onClick={onSignIn}>
        Sign in again
      </button>
    </p>
  );
}

/**
 * Both the connected bank and a manual method are set up: the creator chooses where payouts go.
 * The other one is used when the chosen one cannot be paid (e.g. Stripe restricts the account).
 */
function PayoutDefaultChoice({ user }: { user: CurrentUser }) {
  const queryClient = useQueryClient();
  // Shown at once; back to the saved choice if the server refuses (remounted when the saved one changes).
  const [choice, setChoice] = useState(user.payoutDefault);
  const [reauth, setReauth] = useState<string | null>(null);
  const choose = useMutation({
    mutationFn: (payoutDefault: "bank" | "manual") => apiRequest("POST", "/api/payout/default", { payoutDefault }),
    onSuccess: async () => {
      toast({ title: "Payout Settings Saved", description: "Your payout information has been updated." });
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.authUser }),
        queryClient.invalidateQueries({ queryKey: queryKeys.nextPayout }),
      ]);
    },
    onError: (error) => {
      setChoice(user.payoutDefault);
      if (needsSignInAgain(error)) setReauth(withoutStatus((error as Error).message));
      toast({
        title: "Setup Failed",
        description: error instanceof Error ? withoutStatus(error.message) : "Failed to setup payout information",
        variant: "destructive",
      });
    },
  });
  const manual = `${METHOD_LABELS[user.payoutMethod ?? ""] ?? user.payoutMethod}${user.payoutEmail ? ` (${user.payoutEmail})` : ""}`;
  const options = [
    { value: "bank", label: METHOD_LABELS.bank },
    { value: "manual", label: manual },
  ] as const;
  return (
    <fieldset className="space-y-2 text-sm" disabled={choose.isPending} data-testid="payout-default">
      <legend className="mb-1 font-medium">Send my payouts to</legend>
      {options.map((o) => (
        <label key={o.value} className="flex items-center gap-2">
          <input
            type="radio"
            name="payout-default"
            value={o.value}
            checked={choice === o.value}
            onChange={() => {
              setChoice(o.value);
              choose.mutate(o.value);
            }}
          />
          {o.label}
        </label>
      ))}
      {choose.isPending && <Spinner className="size-4" label="Saving" />}
      {reauth && <SignInAgainNotice message={reauth} onSignIn={signInAgain} />}
    </fieldset>
  );
}

export function PayoutSetupCard({ user }: { user: CurrentUser }) {
  const queryClient = useQueryClient();
  // What was typed before a sign-in the server asked for, if this account left some.
  const [draft] = useState(() => readDraft(user.id));
  useEffect(() => clearDraft(), []);
  const [method, setMethod] = useState(draft?.payoutMethod ?? user.payoutMethod ?? "");
  const [email, setEmail] = useState(draft?.payoutEmail ?? user.payoutEmail ?? "");
  const [reauth, setReauth] = useState<string | null>(null);
  const fe = useFieldErrors("payout");

  const save = useMutation({
    mutationFn: (input: { payoutMethod: string; payoutEmail: string }) =>
      apiRequest("POST", "/api/payout/setup", input),
    onSuccess: async () => {
      setReauth(null);
      toast({ title: "Payout Settings Saved", description: "Your payout information has been updated." });
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.authUser }),
        queryClient.invalidateQueries({ queryKey: queryKeys.nextPayout }),
      ]);
    },
    onError: (error) => {
      const failed = () =>
        toast({
          title: "Setup Failed",
          description: error instanceof Error ? withoutStatus(error.message) : "Failed to setup payout information",
          variant: "destructive",
        });
      // Not a field's problem: the notice beside Save offers the sign-in, keeping what was typed.
      if (needsSignInAgain(error)) {
        setReauth(withoutStatus((error as Error).message));
        failed();
      } else fe.fromServer(error, ["payoutMethod", "payoutEmail"]) || failed();
    },
  });

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    // The schema's messages name no path: each goes beside the field it is about.
    const parsed = fe.check(
      payoutSetupSchema,
      { payoutMethod: method, payoutEmail: email },
      {
        place: (_field, message) =>
          message === PAYOUT_SETUP_MESSAGES.required
            ? [...(method ? [] : ["payoutMethod"]), ...(email.trim() ? [] : ["payoutEmail"])]
            : message === PAYOUT_SETUP_MESSAGES.method
              ? ["payoutMethod"]
              : message === PAYOUT_SETUP_MESSAGES.email
                ? ["payoutEmail"]
                : [FORM],
      },
    );
    if (parsed) return save.mutate(parsed);
    // Spec §8 still announces it: 'Setup Failed' with the message.
    const first = payoutSetupSchema.safeParse({ payoutMethod: method, payoutEmail: email }).error?.issues[0]?.message;
    toast({ title: "Setup Failed", description: first ?? PAYOUT_SETUP_MESSAGES.required, variant: "destructive" });
  };

  return (
    <Card id="payout-setup">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <Wallet className="size-5" /> Payout setup
        </CardTitle>
        <CardDescription>Where we send your earnings.</CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        {user.payoutEnabled ? (
          <div
            className="flex items-center gap-2 rounded-lg border border-emerald-200 bg-emerald-50 px-3 py-2 text-sm text-emerald-900"
            role="status"
          >
            <CheckCircle2 className="size-4 shrink-0" />
            <span>{payoutDestinationText(user)}</span>
          </div>
        ) : (
          <div
            className="rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900"
            role="status"
          >
            <p className="font-semibold">Payouts Not Set Up</p>
            <p>Choose a payout method and the email of that account, or connect your bank account.</p>
          </div>
        )}
        {user.bankReady && user.payoutMethod && <PayoutDefaultChoice key={user.payoutDefault} user={user} />}
        {draft && (
          <p className="rounded-lg border border-sky-200 bg-sky-50 px-3 py-2 text-sm text-sky-900" role="status">
            We kept what you typed. Press Save to change where your payouts go.
          </p>
        )}
        <form onSubmit={onSubmit} className="grid gap-4 sm:grid-cols-2" noValidate>
          <div className="space-y-2">
            <Label htmlFor="payout-method">Payout method</Label>
            <Select
              value={method}
              onValueChange={(m) => {
                setMethod(m);
                fe.clear("payoutMethod", FORM);
              }}
            >
              <SelectTrigger
                id="payout-method"
                aria-label="Payout method"
                className="w-full"
                {...fe.field("payoutMethod")}
              >
                <SelectValue placeholder="Choose a method" />
              </SelectTrigger>
              <SelectContent>
                {PAYOUT_METHODS.map((m) => (
                  <SelectItem key={m} value={m}>
                    {METHOD_LABELS[m]}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
            <FieldError of={fe} name="payoutMethod" />
          </div>
          <div className="space-y-2">
            <Label htmlFor="payout-email">Payout email</Label>
            <Input
              id="payout-email"
              type="email"
              value={email}
              onChange={(e) => {
                setEmail(e.target.value);
                fe.clear("payoutEmail", FORM);
              }}
              placeholder="you@example.com"
              autoComplete="email"
              {...fe.field("payoutEmail")}
            />
            <FieldError of={fe} name="payoutEmail" />
          </div>
          <div className="sm:col-span-2">
            <FieldError of={fe} name={FORM} />
            {reauth && (
              <SignInAgainNotice
                message={reauth}
                onSignIn={() => {
                  keepDraft({ userId: user.id, payoutMethod: method, payoutEmail: email });
                  void signInAgain();
                }}
              />
            )}
          </div>
          <Button type="submit" className="sm:col-span-2 sm:justify-self-start" disabled={save.isPending}>
            {save.isPending && <Spinner className="size-4 text-current" />} Save
          </Button>
        </form>
      </CardContent>
    </Card>
  );
}
