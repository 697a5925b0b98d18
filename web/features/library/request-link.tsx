// "Email me a sign-in link": the one form that opens the library. The answer is the same for any
// address, so it says only that a link is on its way (docs/library.md).
import { useMutation } from "@tanstack/react-query";
import { MailCheck } from "lucide-react";
import { type FormEvent, useState } from "react";
import { HUMAN_CHECK_ACTIONS, HUMAN_CHECK_REFUSED } from "@shared/human-check";
import { LIBRARY_TEXT } from "@shared/library";
import { LOST_ACCESS_TEXT, lostAccessProblem } from "@shared/paywall";
import { FieldError, useFieldErrors } from "@/components/field-error";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { useHumanCheck } from "@/hooks/use-human-check";
import { api } from "@/lib/api";

export function RequestLinkForm({ submitLabel = "Email me a sign-in link" }: { submitLabel?: string }) {
  const [email, setEmail] = useState("");
  const fe = useFieldErrors("library-link");
  const check = useHumanCheck(HUMAN_CHECK_ACTIONS.libraryLink);
  const send = useMutation({
    mutationFn: (address: string) =>
      check.send((headers) => api("POST /api/library/link", { body: { email: address }, headers })),
    onError: (err: Error) =>
      fe.set(
        "email",
        err.message === `403: ${HUMAN_CHECK_REFUSED}` ? HUMAN_CHECK_REFUSED : lostAccessProblem(err.message),
      ),
  });

  if (send.isSuccess) {
    return (
      <div
        className="flex items-start gap-2 rounded-lg bg-emerald-50 px-3 py-3 text-left text-sm text-emerald-900"
        role="status"
        data-testid="library-link-sent"
      >
        <MailCheck className="mt-0.5 size-4 shrink-0" />
        <span className="min-w-0 break-words">
          {send.data.message ?? LIBRARY_TEXT.linkSent}{" "}
          <button type="button" className="underline underline-offset-4" onClick={() => send.reset()}>
            Use another address
          </button>
        </span>
      </div>
    );
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!email.trim()) return fe.set("email", LOST_ACCESS_TEXT.emptyEmail);
    fe.reset();
    send.mutate(email.trim());
  };
  return (
    <form onSubmit={submit} className="space-y-2 text-left" noValidate aria-label="Sign in to your library">
      <label htmlFor="library-email" className="text-sm font-medium">
        The email you paid with
      </label>
      <div className="flex flex-col gap-2 sm:flex-row">
        <Input
          id="library-email"
          type="email"
          autoComplete="email"
          placeholder="you@example.com"
          value={email}
          onChange={(e) => {
            setEmail(e.target.value);
            fe.clear("email");
          }}
          {...fe.field("email")}
        />
        <Button type="submit" variant="brand" disabled={send.isPending} className="shrink-0">
          {send.isPending && <Spinner className="size-4 text-white" />} {submitLabel}
        </Button>
      </div>
      <div ref={check.mount} data-testid="human-check" />
      <FieldError of={fe} name="email" />
    </form>
  );
}
