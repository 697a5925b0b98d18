/** @jsxImportSource hono/jsx */
// The buyer's library (docs/library.md) as finished HTML: signed in (the `aw_library` cookie), the
// buyer's purchases, a page at a time; signed out, "Email me a sign-in link". The emailed link's
// token is in the fragment, which no server sees: web/site/library.ts then shows 'Open my library'
// in place of the form. The island's controls are drawn here too, in <template>s it copies.
import { LIBRARY_PAGE_TEXT as T, LIBRARY_PART as PART, LIBRARY_TEXT } from "../../shared/library-text";
import type { LibraryCard } from "../services/library/purchases";
import { Icon, type IconName } from "./icons";
import { PurchaseCard } from "./library-card";
import { SitePage } from "./site";
import { button, CARD, TEXT_INPUT } from "./ui";

function Frame({ children }: { children: unknown }) {
  return (
    <SitePage>
      <div class="mx-auto w-full max-w-2xl px-4 py-10">{children}</div>
      <ol
        data-part={PART.toasts}
        aria-live="polite"
        class="pointer-events-none fixed top-0 z-[100] flex max-h-screen w-full flex-col-reverse p-4 sm:top-auto sm:right-0 sm:bottom-0 sm:flex-col md:max-w-[420px]"
      />
    </SitePage>
  );
}

function Centered(props: {
  icon: IconName;
  title: string;
  text: string;
  part: string;
  hidden?: boolean;
  children?: unknown;
}) {
  return (
    <div class={`${CARD.root} mx-auto max-w-md`} data-part={props.part} hidden={props.hidden}>
      <div class={`${CARD.content} space-y-4 text-center`}>
        <div class="mx-auto flex size-14 items-center justify-center rounded-full bg-accent text-primary">
          <Icon name={props.icon} class="size-7" />
        </div>
        <h1 class="text-2xl font-bold">{props.title}</h1>
        <p class="text-muted-foreground">{props.text}</p>
        {props.children}
      </div>
    </div>
  );
}

const SENT_BOX = "flex items-start gap-2 rounded-lg bg-emerald-50 px-3 py-3 text-left text-sm text-emerald-900";

/** "Email me a sign-in link": posts to /library with no script; the island sends it with the bot check. */
function RequestLinkForm({
  email,
  problem,
  label = T.requestLink,
}: {
  email?: string;
  problem?: string;
  label?: string;
}) {
  return (
    <form
      method="post"
      action="/library"
      data-part={PART.linkForm}
      class="space-y-2 text-left"
      novalidate
      aria-label="Sign in to your library"
    >
      <label for="library-email" class="text-sm font-medium">
        {T.emailLabel}
      </label>
      <div class="flex flex-col gap-2 sm:flex-row">
        <input
          id="library-email"
          name="email"
          type="email"
          autocomplete="email"
          placeholder="you@example.com"
          value={email}
          aria-invalid={problem ? "true" : undefined}
          aria-describedby={problem ? "library-email-error" : undefined}
          class={TEXT_INPUT}
        />
        <button type="submit" class={button("brand", "default", "shrink-0")}>
          <Icon name="loader" class="hidden size-4 animate-spin text-white" /> <span>{label}</span>
        </button>
      </div>
      <p id="library-email-error" role="alert" class="text-sm text-destructive empty:hidden">
        {problem}
      </p>
    </form>
  );
}

function LinkSent({ message }: { message: string }) {
  return (
    <div class={SENT_BOX} role="status" data-testid="library-link-sent" data-part={PART.linkSent}>
      <Icon name="mailCheck" class="mt-0.5 size-4 shrink-0" />
      <span class="min-w-0 break-words">
        <span>{message}</span>{" "}
        <a href="/library" class="underline underline-offset-4">
          {T.useAnother}
        </a>
      </span>
    </div>
  );
}

/**
 * The emailed link's two states, shown by the island when the address has `#token=`: 'Open my
 * library', and the link used or expired. `form`: the invalid state's own link form (the signed-in
 * page has none; the signed-out page's form moves in).
 */
function LinkPanels({ form = false }: { form?: boolean }) {
  return (
    <>
      <Centered icon="keyRound" title={T.openTitle} text={T.openText} part={PART.open} hidden>
        <button type="button" class={button("brand", "lg", "w-full")}>
          <Icon name="loader" class="hidden size-4 animate-spin text-white" /> {T.open}
        </button>
        <p role="alert" class="text-sm text-destructive empty:hidden" />
      </Centered>
      <Centered icon="mailWarning" title={LIBRARY_TEXT.linkInvalid} text={T.invalidText} part={PART.invalid} hidden>
        <div data-testid="library-link-invalid">{form && <RequestLinkForm label={T.requestNewLink} />}</div>
      </Centered>
    </>
  );
}

export type SignedOutView = { ended: boolean; sent?: boolean; email?: string; problem?: string };

/** Not signed in: the form (or, after a post without script, its answer); the link's two states, hidden. */
export function LibrarySignedOut({ ended, sent, email, problem }: SignedOutView) {
  return (
    <Frame>
      <Centered icon="library" title={T.title} text={T.intro} part={PART.signIn}>
        {ended && (
          <p
            class="flex items-center justify-center gap-2 rounded-lg bg-muted px-3 py-2 text-sm font-medium"
            role="status"
            data-testid="library-session-ended"
          >
            <Icon name="clock" class="size-4 shrink-0" /> {T.sessionEnded}
          </p>
        )}
        {sent ? <LinkSent message={LIBRARY_TEXT.linkSent} /> : <RequestLinkForm email={email} problem={problem} />}
      </Centered>
      <LinkPanels />
      <noscript>
        <p class="mx-auto mt-4 max-w-md text-center text-xs text-muted-foreground">{T.noScript}</p>
      </noscript>
      <template data-part={PART.kit}>
        <div data-kit="sent">
          <LinkSent message="" />
        </div>
        <Toast />
      </template>
    </Frame>
  );
}

function Toast() {
  return (
    <li
      data-kit="toast"
      role="status"
      class="pointer-events-auto relative mb-2 flex w-full flex-col gap-1 overflow-hidden rounded-lg border bg-background p-5 pr-8 text-foreground shadow-lg animate-in fade-in-0 slide-in-from-top-full sm:slide-in-from-bottom-full data-[variant=destructive]:border-destructive data-[variant=destructive]:bg-destructive data-[variant=destructive]:text-white"
    >
      <div class="text-sm font-semibold" />
      <div class="text-sm opacity-90" />
    </li>
  );
}

/** What the island builds a purchase's access from (PurchaseAccess's look, web/features/access). */
function AccessKit() {
  const wide = "h-12 w-full text-base";
  return (
    <template data-part={PART.kit}>
      <button
        type="button"
        data-kit="download"
        class={button("brand", "lg", "h-auto min-h-12 w-full py-2 text-base whitespace-normal")}
      >
        <Icon name="download" />
        <Icon name="loader" class="hidden size-4 animate-spin text-white" />
        <span class="min-w-0 wrap-anywhere">
          Download <span class="inline-block max-w-full" />
        </span>
      </button>
      {/* biome-ignore lint/a11y/useValidAnchor: a kit copy; the island sets its href from the purchase */}
      <a data-kit="link" target="_blank" rel="noreferrer noopener" class={button("brand", "lg", wide)}>
        <Icon name="externalLink" /> Open Link
      </a>
      {/* biome-ignore lint/a11y/useMediaCaption: the creator's own upload, which comes with no caption track */}
      <audio data-kit="audio" controls preload="metadata" class="w-full" data-testid="stream-player" />
      {/* biome-ignore lint/a11y/useMediaCaption: the creator's own upload, which comes with no caption track */}
      <video
        data-kit="video"
        controls
        preload="metadata"
        class="aspect-video w-full rounded-lg bg-black"
        data-testid="stream-player"
      />
      {/* biome-ignore lint/a11y/useValidAnchor: a kit copy; the island sets its href from the purchase */}
      <a data-kit="watch" target="_blank" rel="noreferrer" class={button("outline", "lg", "w-full")}>
        <Icon name="circlePlay" /> Watch in a new tab
      </a>
      <img data-kit="image" alt="" class="w-full rounded-lg border" data-testid="view-image" />
      {/* biome-ignore lint/a11y/useValidAnchor: a kit copy; the island sets its href from the purchase */}
      <a data-kit="view" target="_blank" rel="noreferrer" class={button("brand", "lg", wide)}>
        <Icon name="eye" /> View Online
      </a>
      {/* biome-ignore lint/a11y/useValidAnchor: a kit copy; the island sets its href from the purchase */}
      <a data-kit="view-secondary" target="_blank" rel="noreferrer" class={button("outline", "lg", wide)}>
        <Icon name="eye" /> View Online
      </a>
      <div
        data-kit="text"
        class="max-h-[60vh] overflow-auto whitespace-pre-wrap rounded-lg border bg-muted/40 p-4 text-sm"
        data-testid="text-content"
      />
      <div data-kit="license" class="rounded-lg border bg-muted/40 p-3 text-left">
        <div class="text-xs font-medium text-muted-foreground">Your license key</div>
        <div class="mt-1 flex items-center gap-2">
          <code class="flex-1 select-all break-all font-mono text-sm" data-testid="license-key" />
          <button
            type="button"
            data-part={PART.copy}
            data-what="License key"
            aria-label="Copy license key"
            class={button("outline", "sm")}
          >
            <Icon name="copy" /> Copy
          </button>
        </div>
      </div>
      <div data-kit="sent">
        <LinkSent message="" />
      </div>
      <Toast />
    </template>
  );
}

export type SignedInView = { email: string; cards: LibraryCard[]; nextCursor: string | null; paged: boolean };

/** 'Show more': a form that loads the next page with no script; the island appends it in place. */
function MorePurchases({ cursor }: { cursor: string }) {
  return (
    <form method="get" action="/library" data-part={PART.more} class="space-y-2 text-center">
      <input type="hidden" name="cursor" value={cursor} />
      <p role="alert" class="text-sm text-destructive empty:hidden" />
      <button type="submit" class={button("outline")}>
        <Icon name="loader" class="hidden size-4 animate-spin" /> {T.showMore}
      </button>
    </form>
  );
}

/** Signed in: who, 'Sign out', the purchases (newest first, a page at a time) or the empty state. */
export function LibrarySignedIn({ email, cards, nextCursor, paged }: SignedInView) {
  return (
    <Frame>
      <div class="space-y-6" data-part={PART.signedIn}>
        <div class="flex flex-wrap items-end justify-between gap-3">
          <div class="min-w-0">
            <h1 class="text-3xl font-bold">{T.title}</h1>
            <p class="break-words text-sm text-muted-foreground" data-testid="library-email">
              Signed in as {email}
            </p>
          </div>
          <form method="post" action="/library/sign-out" data-part={PART.signOut}>
            <button type="submit" class={button("outline", "sm")}>
              <Icon name="logOut" />
              <Icon name="loader" class="hidden size-4 animate-spin" /> {T.signOut}
            </button>
          </form>
        </div>
        <p
          class="text-right text-sm text-destructive"
          role="alert"
          data-testid="library-sign-out-failed"
          data-part={PART.signOutFailed}
          hidden
        />
        {paged && (
          <a href="/library" class="text-sm font-medium underline underline-offset-4">
            {T.newest}
          </a>
        )}
        {cards.length > 0 && (
          <ul class="space-y-4" data-testid="library-purchases" data-part={PART.list}>
            {cards.map((p) => (
              <PurchaseCard key={p.id} p={p} />
            ))}
          </ul>
        )}
        {nextCursor && <MorePurchases cursor={nextCursor} />}
        <div class={CARD.root} data-part={PART.empty} hidden={cards.length > 0}>
          <div class={`${CARD.content} flex flex-col items-center gap-3 py-12 text-center`}>
            <Icon name="packageOpen" class="size-10 text-muted-foreground" />
            <h3 class="text-lg font-semibold">{LIBRARY_TEXT.empty}</h3>
            <p class="max-w-sm text-muted-foreground">{LIBRARY_TEXT.emptyHint}</p>
          </div>
        </div>
        <AccessKit />
      </div>
      <LinkPanels form />
    </Frame>
  );
}
