// "Lost your access?": a buyer types the email they paid with and gets every access link by
// email (the answer is the same whether or not that address bought anything), or opens the
// library, where everything bought with that email is in one place (docs/library.md).
import { useMutation } from "@tanstack/react-query";
import { MailCheck } from "lucide-react";
import { useState, type FormEvent } from "react";
import { RECOVER_ACCESS_MESSAGE } from "@shared/payments";
import { LOST_ACCESS_TEXT, lostAccessProblem } from "@shared/paywall";
import { FieldError, useFieldErrors } from "@/components/field-error";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { api } from "@/lib/api";

export function LostAccess({ defaultOpen = false }: { defaultOpen?: boolean }) {
  const [open, setOpen] = useState(defaultOpen);
  const [email, setEmail] = useState("");
  // Every problem here is about the one field (in the paywall's words, shared/paywall.ts).
  const fe = useFieldErrors("lost-access");
  const recover = useMutation({
    mutationFn: async (address: string) => api("POST /api/purchase/recover", { body: { email: address } }),
    onError: (err: Error) => fe.set("email", lostAccessProblem(err.message)),
  });

  if (!open) {
    return (
      <button
        type="button"
        onClick={() => setOpen(true)}
        className="text-sm text-muted-foreground underline-offset-4 hover:text-foreground hover:underline"
      >
        Lost your access?
      </button>
    );
  }
  if (recover.isSuccess) {
    return (
      <p
        className="flex items-start gap-2 rounded-lg bg-emerald-50 px-3 py-2 text-left text-sm text-emerald-900"
        role="status"
        data-testid="lost-access-sent"
      >
        <MailCheck className="mt-0.5 size-4 shrink-0" />
        <span>
          {recover.data.message ?? RECOVER_ACCESS_MESSAGE} <LibraryLink />
        </span>
      </p>
    );
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!email.trim()) return fe.set("email", LOST_ACCESS_TEXT.emptyEmail);
    fe.reset();
    recover.mutate(email.trim());
  };
  return (
    <form onSubmit={submit} className="space-y-2 text-left" noValidate aria-label="Lost your access?">
      <label htmlFor="lost-access-email" className="text-sm font-medium">
        Lost your access? Enter the email you paid with and we'll send your access links.
      </label>
      <div className="flex gap-2">
        <Input
          id="lost-access-email"
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
        <Button type="submit" variant="outline" disabled={recover.isPending}>
          {recover.isPending && <Spinner className="size-4" />} Send links
        </Button>
      </div>
      <FieldError of={fe} name="email" />
      <p className="text-sm text-muted-foreground">
        <LibraryLink />
      </p>
    </form>
  );
}

/** Where everything bought with one email is: the buyer's library. */
function LibraryLink() {
  return (
    <a href="/library" className="font-medium underline underline-offset-4 hover:text-foreground">
      See everything you bought in your library
    </a>
  );
}
