/** @jsxImportSource hono/jsx */
// /sign-in (docs/pages.md): the emailed-link form, the Google and GitHub buttons where configured, the
// callbacks' `?error=` and the "Check your email" state, as the SPA drew them. The form posts to
// /sign-in without JavaScript; web/site/sign-in.ts sends it through the API with the bot check.
import { PRODUCT_NAME } from "../../shared/site";
import { SIGN_IN_PART as PART, SIGN_IN_TEXT as T } from "../../shared/sign-in";
import { Icon, LogoMark } from "./icons";
import { button, CARD, TEXT_INPUT } from "./ui";

export type SignInView = {
  returnTo: string;
  /** The `?error=` message, when the code is a known one. */
  error: string | null;
  providers: { google: boolean; github: boolean };
  devOutbox: boolean;
  /** After a form post without JavaScript: the address the link went to. */
  sentTo?: string;
  /** After a refused form post: what was typed and what went wrong. */
  email?: string;
  emailError?: string;
  formError?: string;
};

const LABEL = "flex items-center gap-2 text-sm leading-none font-medium select-none";
const ERROR = "text-sm text-destructive [overflow-wrap:anywhere]";

function GoogleIcon() {
  return (
    <svg viewBox="0 0 24 24" class="size-4" aria-hidden="true">
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
    <svg viewBox="0 0 24 24" class="size-4" aria-hidden="true" fill="currentColor">
      <path d="M12 .3a12 12 0 0 0-3.8 23.4c.6.1.8-.3.8-.6v-2c-3.3.7-4-1.6-4-1.6-.6-1.4-1.4-1.8-1.4-1.8-1-.7.1-.7.1-.7 1.2.1 1.8 1.2 1.8 1.2 1 1.8 2.8 1.3 3.5 1 0-.8.4-1.3.7-1.6-2.7-.3-5.5-1.3-5.5-6 0-1.2.5-2.3 1.3-3.1-.2-.4-.6-1.6 0-3.2 0 0 1-.3 3.4 1.2a11.5 11.5 0 0 1 6 0c2.3-1.5 3.3-1.2 3.3-1.2.6 1.6.2 2.8.1 3.2.8.8 1.3 1.9 1.3 3.2 0 4.6-2.8 5.6-5.5 5.9.5.4.9 1.1.9 2.2v3.3c0 .3.2.7.8.6A12 12 0 0 0 12 .3" />
    </svg>
  );
}

function SentPanel({ view }: { view: SignInView }) {
  const sent = view.sentTo !== undefined;
  return (
    <div
      data-part={PART.sentPanel}
      hidden={!sent}
      class={`${CARD.content} flex flex-col items-center gap-4 text-center`}
      role="status"
    >
      <div class="flex size-14 items-center justify-center rounded-full bg-accent text-primary">
        <Icon name="inbox" class="size-7" />
      </div>
      <h1 class="text-2xl font-bold">{T.sentTitle}</h1>
      <p class="text-muted-foreground [overflow-wrap:anywhere]">
        {T.sentBefore}
        <strong data-part={PART.sentTo} class="text-foreground">
          {view.sentTo ?? ""}
        </strong>
        <span data-part={PART.sentAfter}>{sent ? T.sentAfterNoScript : T.sentAfter}</span>
      </p>
      {view.devOutbox && (
        <p class="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900">
          {T.devOutbox}{" "}
          <a class="font-medium underline" href="/dev/mail" target="_blank" rel="noreferrer">
            {T.devOutboxLink}
          </a>
          .
        </p>
      )}
      {/* Only the island watches for the session; a page posted without JavaScript does not say it waits. */}
      <div data-part={PART.waiting} hidden={sent} class="flex items-center gap-2 text-sm text-muted-foreground">
        <Icon name="loader" class="size-4 animate-spin text-primary" label="Waiting for sign-in" /> {T.waiting}
      </div>
      <a href={`/sign-in?returnTo=${encodeURIComponent(view.returnTo)}`} data-part={PART.again} class={button("ghost")}>
        {T.again}
      </a>
    </div>
  );
}

function FormPanel({ view }: { view: SignInView }) {
  const oauthHref = (p: string) => `/api/auth/oauth/${p}?returnTo=${encodeURIComponent(view.returnTo)}`;
  const emailErrorId = "email-error";
  return (
    <div data-part={PART.formPanel} hidden={view.sentTo !== undefined} class="flex flex-col gap-6">
      <div class={`${CARD.header} text-center`}>
        <h1 class={`${CARD.title} text-2xl`}>{T.title}</h1>
        <p class={CARD.description}>{T.lead}</p>
      </div>
      <div class={`${CARD.content} space-y-5`}>
        {view.error && (
          <div
            role="alert"
            class="flex gap-2 rounded-md border border-destructive/30 bg-destructive/5 px-3 py-2 text-sm text-destructive"
          >
            <Icon name="circleAlert" class="mt-0.5 size-4 shrink-0" /> {view.error}
          </div>
        )}
        <form method="post" action="/sign-in" data-part={PART.form} class="space-y-3" novalidate>
          <input type="hidden" name="returnTo" value={view.returnTo} />
          <div class="space-y-2">
            <label for="email" class={LABEL}>
              {T.emailLabel}
            </label>
            <input
              id="email"
              name="email"
              type="email"
              autocomplete="email"
              placeholder={T.emailPlaceholder}
              value={view.email ?? ""}
              data-part={PART.email}
              class={TEXT_INPUT}
              aria-invalid={view.emailError ? "true" : undefined}
              aria-describedby={view.emailError ? emailErrorId : undefined}
              autofocus
              required
            />
            <p id={emailErrorId} data-part={PART.emailError} role="alert" hidden={!view.emailError} class={ERROR}>
              {view.emailError ?? ""}
            </p>
            <p data-part={PART.formError} role="alert" hidden={!view.formError} class={ERROR}>
              {view.formError ?? ""}
            </p>
          </div>
          <div data-part={PART.humanCheck} data-testid="human-check" />
          <button type="submit" data-part={PART.send} class={button("default", "default", "w-full")}>
            <Icon name="mail" />
            <Icon name="loader" class="hidden size-4 animate-spin" />
            {T.send}
          </button>
        </form>
        {(view.providers.google || view.providers.github) && (
          <>
            <div class="flex items-center gap-3 text-xs text-muted-foreground">
              <span class="h-px flex-1 bg-border" /> {T.or} <span class="h-px flex-1 bg-border" />
            </div>
            <div class="grid gap-2">
              {view.providers.google && (
                <a href={oauthHref("google")} class={button("outline")}>
                  <GoogleIcon /> {T.google}
                </a>
              )}
              {view.providers.github && (
                <a href={oauthHref("github")} class={button("outline")}>
                  <GitHubIcon /> {T.github}
                </a>
              )}
            </div>
          </>
        )}
      </div>
    </div>
  );
}

/** The whole page: the logo, the card (the form, or the sent state), the way home. */
export function SignInPage({ view }: { view: SignInView }) {
  return (
    <main class="flex min-h-screen flex-col items-center justify-center gap-6 bg-muted/40 px-4 py-10">
      <a href="/" class="flex shrink-0 items-center gap-2 font-bold text-lg tracking-tight">
        <LogoMark class="size-8" />
        <span>{PRODUCT_NAME}</span>
      </a>
      <div class={`${CARD.root} w-full max-w-md shadow-lg`}>
        <FormPanel view={view} />
        <SentPanel view={view} />
      </div>
      <p class="text-sm text-muted-foreground">
        <a href="/" class="hover:text-foreground">
          {T.home}
        </a>
      </p>
    </main>
  );
}
