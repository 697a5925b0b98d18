// The sign-in screen /api/login leads to: an emailed link (always) and OAuth buttons (when configured).
// While the visitor reads their email, this tab watches for the session and continues by itself.
import { useMutation, useQuery } from "@tanstack/react-query";
import { Link, useNavigate } from "@tanstack/react-router";
import { AlertCircle, Inbox, Mail } from "lucide-react";
import { useEffect, useState, type FormEvent } from "react";
import { emailLoginSchema } from "@shared/auth";
import { HUMAN_CHECK_ACTIONS } from "@shared/human-check";
import { Logo } from "@/components/logo";
import { FieldError, FORM, useFieldErrors } from "@/components/field-error";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { useHumanCheck } from "@/hooks/use-human-check";
import { api, apiQuery } from "@/lib/api";
import { useAuth } from "@/lib/auth";
import { queryClient } from "@/lib/query-client";
import { queryKeys } from "@/lib/query-keys";

const ERRORS: Record<string, string> = {
  "link-invalid": "That sign-in link is invalid, already used or expired. Request a new one below.",
  "state-mismatch": "We couldn't verify that sign-in. Please try again.",
  "oauth-failed": "The sign-in provider didn't answer as expected. Please try again.",
  "email-unverified": "That account's email address isn't verified with the provider. Use the email link instead.",
};

function GoogleIcon() {
  return (
    <svg viewBox="0 0 24 24" className="size-4" aria-hidden>
      <path
        fill="#4285F4"
        d="M22.56 12.25c0-.78-.07-1.53-.2-2.25H12v4.26h5.92a5.06 5.06 0 0 1-2.2 3.32v2.77h3.57c2.08-1.92 3.27-4.74 3.27-8.1z"
      />
      <path
        fill="#34A853"
        d="M12 23c2.97 0 5.46-.98 7.28-2.66l-3.57-2.77c-.98.66-2.23 1.06-3.71 1.06-2.86 0-5.29-1.93-6.16-4.53H2.18v2.84A11 11 0 0 0 12 23z"
      />
      <path
        fill="#FBBC05"
        d="M5.84 14.09A6.6 6.6 0 0 1 5.5 12c0-.73.13-1.43.34-2.09V7.07H2.18A11 11 0 0 0 1 12c0 1.78.43 3.45 1.18 4.93l3.66-2.84z"
      />
      <path
        fill="#EA4335"
        d="M12 5.38c1.62 0 3.06.56 4.21 1.64l3.15-3.15A10.9 10.9 0 0 0 12 1 11 11 0 0 0 2.18 7.07l3.66 2.84C6.71 7.31 9.14 5.38 12 5.38z"
      />
    </svg>
  );
}

function GitHubIcon() {
  return (
    <svg viewBox="0 0 24 24" className="size-4" aria-hidden fill="currentColor">
      <path d="M12 .3a12 12 0 0 0-3.8 23.4c.6.1.8-.3.8-.6v-2c-3.3.7-4-1.6-4-1.6-.6-1.4-1.4-1.8-1.4-1.8-1-.7.1-.7.1-.7 1.2.1 1.8 1.2 1.8 1.2 1 1.8 2.8 1.3 3.5 1 0-.8.4-1.3.7-1.6-2.7-.3-5.5-1.3-5.5-6 0-1.2.5-2.3 1.3-3.1-.2-.4-.6-1.6 0-3.2 0 0 1-.3 3.4 1.2a11.5 11.5 0 0 1 6 0c2.3-1.5 3.3-1.2 3.3-1.2.6 1.6.2 2.8.1 3.2.8.8 1.3 1.9 1.3 3.2 0 4.6-2.8 5.6-5.5 5.9.5.4.9 1.1.9 2.2v3.3c0 .3.2.7.8.6A12 12 0 0 0 12 .3" />
    </svg>
  );
}

export function SignInPage({ returnTo = "/", error }: { returnTo?: string; error?: string }) {
  const navigate = useNavigate();
  const { user } = useAuth();
  const providers = useQuery(apiQuery("GET /api/auth/providers"));
  const [email, setEmail] = useState("");
  const fe = useFieldErrors("sign-in");
  const [sentTo, setSentTo] = useState<string | null>(null);

  // The bot check (docs/security.md): a refused token's message shows under the form, like a 429's.
  const check = useHumanCheck(HUMAN_CHECK_ACTIONS.signIn);
  const send = useMutation({
    mutationFn: (input: { email: string; returnTo: string }) =>
      check.send((headers) => api("POST /api/auth/email", { body: input, headers })),
    onSuccess: (_res, input) => setSentTo(input.email),
    // Beside the field when the server names it; anything else (429, 5xx, the network) under the form.
    onError: (err) => fe.fromServer(err, ["email"]) || fe.set(FORM, err.message.replace(/^\d+: /, "")),
  });

  // Already signed in (or signed in from the emailed link in another tab): continue.
  useEffect(() => {
    if (user) navigate({ to: returnTo, replace: true });
  }, [user, returnTo, navigate]);
  useEffect(() => {
    if (!sentTo) return;
    const timer = setInterval(() => queryClient.invalidateQueries({ queryKey: queryKeys.authUser }), 2000);
    return () => clearInterval(timer);
  }, [sentTo]);

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = fe.check(
      emailLoginSchema,
      { email, returnTo },
      {
        place: (field, message) => [
          field === "email" ? ["email", "Please enter a valid email address."] : [FORM, message],
        ],
      },
    );
    if (parsed) send.mutate({ email: parsed.email, returnTo });
  };

  const oauthHref = (p: string) => `/api/auth/oauth/${p}?returnTo=${encodeURIComponent(returnTo)}`;

  return (
    <div className="flex min-h-screen flex-col items-center justify-center gap-6 bg-muted/40 px-4 py-10">
      <Logo />
      <Card className="w-full max-w-md shadow-lg">
        {sentTo ? (
          <CardContent className="flex flex-col items-center gap-4 text-center">
            <div className="flex size-14 items-center justify-center rounded-full bg-accent text-primary">
              <Inbox className="size-7" />
            </div>
            <h1 className="text-2xl font-bold">Check your email</h1>
            <p className="text-muted-foreground">
              We sent a sign-in link to <strong className="text-foreground">{sentTo}</strong>. It works once and expires
              in 15 minutes. This page continues by itself once you've signed in.
            </p>
            {providers.data?.devOutbox && (
              <p className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900">
                Running locally: the email is in the{" "}
                <a className="font-medium underline" href="/dev/mail" target="_blank" rel="noreferrer">
                  dev outbox
                </a>
                .
              </p>
            )}
            <div className="flex items-center gap-2 text-sm text-muted-foreground">
              <Spinner className="size-4" label="Waiting for sign-in" /> Waiting for you to open the link…
            </div>
            <Button variant="ghost" onClick={() => setSentTo(null)}>
              Use a different email
            </Button>
          </CardContent>
        ) : (
          <>
            <CardHeader className="text-center">
              <CardTitle className="text-2xl">Sign in to ApeWall</CardTitle>
              <CardDescription>No password needed: we'll email you a link.</CardDescription>
            </CardHeader>
            <CardContent className="space-y-5">
              {error && ERRORS[error] && (
                <div
                  role="alert"
                  className="flex gap-2 rounded-md border border-destructive/30 bg-destructive/5 px-3 py-2 text-sm text-destructive"
                >
                  <AlertCircle className="mt-0.5 size-4 shrink-0" /> {ERRORS[error]}
                </div>
              )}
              <form onSubmit={onSubmit} className="space-y-3" noValidate>
                <div className="space-y-2">
                  <Label htmlFor="email">Email</Label>
                  <Input
                    id="email"
                    type="email"
                    autoComplete="email"
                    placeholder="you@example.com"
                    value={email}
                    onChange={(e) => {
                      setEmail(e.target.value);
                      fe.clear("email", FORM);
                    }}
                    {...fe.field("email")}
                    autoFocus
                  />
                  <FieldError of={fe} name="email" />
                  <FieldError of={fe} name={FORM} />
                </div>
                <div ref={check.mount} data-testid="human-check" />
                <Button type="submit" className="w-full" disabled={send.isPending}>
                  {send.isPending ? <Spinner className="size-4 text-primary-foreground" /> : <Mail />}
                  Email me a sign-in link
                </Button>
              </form>
              {(providers.data?.google || providers.data?.github) && (
                <>
                  <div className="flex items-center gap-3 text-xs text-muted-foreground">
                    <span className="h-px flex-1 bg-border" /> or <span className="h-px flex-1 bg-border" />
                  </div>
                  <div className="grid gap-2">
                    {providers.data.google && (
                      <Button variant="outline" asChild>
                        <a href={oauthHref("google")}>
                          <GoogleIcon /> Continue with Google
                        </a>
                      </Button>
                    )}
                    {providers.data.github && (
                      <Button variant="outline" asChild>
                        <a href={oauthHref("github")}>
                          <GitHubIcon /> Continue with GitHub
                        </a>
                      </Button>
                    )}
                  </div>
                </>
              )}
            </CardContent>
          </>
        )}
      </Card>
      <p className="text-sm text-muted-foreground">
        <Link to="/" className="hover:text-foreground">
          ← Back to home
        </Link>
      </p>
    </div>
  );
}
