/** @jsxImportSource hono/jsx */
// One purchase on the /library page (docs/library.md): what, from whom, when and for how much; a
// link to its access page (the island swaps in its download, text or player once the card nears the
// viewport), or why it no longer opens; its receipt and 'Change email' as popovers (they open with
// no script), its invoice. Everything here is the buyer's or a creator's text, escaped by JSX.
import { LIBRARY_PAGE_TEXT as T, LIBRARY_PART as PART } from "../../shared/library-text";
import { INVOICE_LINK_TEXT } from "../../shared/invoices";
import { formatDollars } from "../../shared/money";
import { ANONYMOUS_CREATOR, creatorByline, type PublicCreator } from "../../shared/profile";
import type { LibraryCard } from "../services/library/purchases";
import { Icon } from "./icons";
import { button, CARD, TEXT_INPUT } from "./ui";

/** "Nov 27, 2026": how the library writes a date. */
const dateInWords = (iso: string) =>
  new Date(iso).toLocaleDateString("en-US", { month: "short", day: "numeric", year: "numeric", timeZone: "UTC" });

/** A popover as the app's dialog looks: centred, over a dimmed page; Escape or a click outside closes it. */
const POPOVER =
  "m-auto max-h-[calc(100%-2rem)] w-[calc(100%-2rem)] max-w-lg overflow-y-auto rounded-lg border bg-background p-6 text-foreground shadow-lg backdrop:bg-black/50";

function Byline({ creator }: { creator: PublicCreator }) {
  return (
    <div
      class="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-1 text-sm text-muted-foreground"
      data-testid="creator-byline"
    >
      <span
        class="flex size-6 shrink-0 items-center justify-center overflow-hidden rounded-full bg-muted text-xs font-semibold text-foreground"
        aria-hidden="true"
      >
        {creator.avatarUrl ? (
          <img
            src={creator.avatarUrl}
            alt=""
            width={24}
            height={24}
            decoding="async"
            loading="lazy"
            class="size-full object-cover"
          />
        ) : (
          (creator.name?.slice(0, 1).toUpperCase() ?? "A")
        )}
      </span>
      <span class="min-w-0 break-words" data-testid="creator-name">
        {creatorByline(creator)}
      </span>
      {creator.supportEmail && (
        <a href={`mailto:${creator.supportEmail}`} class="underline-offset-4 hover:text-foreground hover:underline">
          Contact the creator
        </a>
      )}
    </div>
  );
}

function PopoverHeader({ id, title, text }: { id: string; title: string; text: string }) {
  return (
    <div class="mb-4 flex items-start justify-between gap-4">
      <div class="min-w-0 space-y-1.5">
        <h2 class="text-lg leading-none font-semibold">{title}</h2>
        <p class="break-words text-sm text-muted-foreground">{text}</p>
      </div>
      <button
        type="button"
        popovertarget={id}
        popovertargetaction="hide"
        aria-label="Close"
        class="rounded-xs opacity-70 hover:opacity-100"
      >
        <Icon name="x" class="size-4" />
      </button>
    </div>
  );
}

function Row({ label, children }: { label: string; children: unknown }) {
  return (
    <div class="flex flex-wrap justify-between gap-x-4 gap-y-0.5 py-2">
      <dt class="text-muted-foreground">{label}</dt>
      <dd class="min-w-0 break-words text-right font-medium">{children}</dd>
    </div>
  );
}

/** What the receipt email says, from the page's own query (no call when it opens). */
function Receipt({ p }: { p: LibraryCard }) {
  const id = `receipt-${p.id}`;
  const state = p.state === "refunded" ? "Refunded" : "Disputed";
  return (
    <div popover="auto" id={id} class={POPOVER}>
      <PopoverHeader id={id} title={T.receipt} text={p.title} />
      <div class="space-y-4" data-testid="library-receipt">
        <dl class="divide-y text-sm">
          <Row label="Order">#{p.id}</Row>
          <Row label="Item">{p.title}</Row>
          <Row label="Sold by">{p.creator.name ?? ANONYMOUS_CREATOR}</Row>
          <Row label="Date">{dateInWords(p.purchasedAt)}</Row>
          <Row label="Amount paid">{formatDollars(p.amount)}</Row>
          <Row label="Receipt sent to">{p.emailedTo}</Row>
          {p.state !== "paid" && <Row label="Status">{state}</Row>}
          {p.licenseKey && (
            <Row label="License key">
              <code class="select-all break-all font-mono">{p.licenseKey}</code>
            </Row>
          )}
        </dl>
        {p.accessUrl && (
          <div class="flex flex-col gap-2 sm:flex-row">
            {/* Copying needs the script: the island shows this button. */}
            <button
              type="button"
              hidden
              data-part={PART.copy}
              data-copy={p.accessUrl}
              data-what="Access link"
              class={button("outline", "default", "flex-1")}
            >
              <Icon name="copy" /> {T.copyAccess}
            </button>
            <a href={p.accessUrl} class={button("outline", "default", "flex-1")}>
              <Icon name="externalLink" /> {T.openAccess}
            </a>
          </div>
        )}
        <p class="text-xs text-muted-foreground">
          {p.creator.supportEmail
            ? `Questions? Write to ${p.creator.name ?? "the creator"} at ${p.creator.supportEmail} with your order number.`
            : "Questions? Reply to your receipt email with your order number."}
        </p>
      </div>
    </div>
  );
}

/** 'Change email': the form the island sends (POST /api/purchases/{id}/email, with the bot check). */
function ChangeEmail({ p }: { p: LibraryCard }) {
  const id = `change-email-${p.id}`;
  return (
    <div popover="auto" id={id} class={POPOVER} data-part={PART.changeEmail} data-id={p.id}>
      <PopoverHeader
        id={id}
        title={T.changeEmailTitle}
        text={`Receipts for ${p.title} go to the new address, and it moves to that address's library. Your current address is told.`}
      />
      <form class="space-y-2" novalidate aria-label={T.changeEmail}>
        <label for={`${id}-email`} class="text-sm font-medium">
          {T.newEmail}
        </label>
        <input
          id={`${id}-email`}
          name="email"
          type="email"
          autocomplete="email"
          placeholder="you@example.com"
          class={TEXT_INPUT}
        />
        <p role="alert" class="text-sm text-destructive empty:hidden" />
        <noscript>
          <p class="text-sm text-muted-foreground">{T.changeNeedsScript}</p>
        </noscript>
        {/* Enabled by the island: with no script this form cannot send (see the note above). */}
        <button type="submit" disabled class={button("default", "default", "w-full")}>
          <Icon name="loader" class="hidden size-4 animate-spin" /> {T.changeEmail}
        </button>
      </form>
    </div>
  );
}

export function PurchaseCard({ p }: { p: LibraryCard }) {
  const paid = p.state === "paid";
  const what = p.state === "refunded" ? "refund" : "dispute";
  const state = p.state === "refunded" ? "Refunded" : "Disputed";
  return (
    <li data-cursor={p.cursor}>
      <div
        class={CARD.root}
        data-testid="library-purchase"
        data-purchase-id={p.id}
        data-state={p.state}
        data-access-type={p.accessType}
      >
        <div class={`${CARD.content} space-y-4`}>
          <div class="flex items-start justify-between gap-3">
            <div class="min-w-0 space-y-1">
              <h2 class="break-words text-lg font-semibold">{p.title}</h2>
              <Byline creator={p.creator} />
              <p class="text-sm text-muted-foreground">
                {dateInWords(p.purchasedAt)} · {formatDollars(p.amount)} · Order #{p.id}
              </p>
            </div>
            {!paid && (
              <span class="inline-flex shrink-0 items-center rounded-md border border-transparent bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-800">
                {state}
              </span>
            )}
          </div>
          {paid && p.accessUrl ? (
            // The access page opens it with no script; the island puts the controls here in its place.
            <div data-part={PART.access} data-id={p.id} class="min-h-12">
              <a href={p.accessUrl} class={button("brand", "lg", "h-12 w-full text-base")}>
                <Icon name="externalLink" /> {T.openAccess}
              </a>
            </div>
          ) : (
            <p
              class="flex items-start gap-2 rounded-lg bg-muted px-3 py-2 text-sm text-muted-foreground"
              data-testid="library-revoked"
            >
              <Icon name="undo2" class="mt-0.5 size-4 shrink-0" />
              <span>
                {state}
                {p.revokedAt ? ` on ${dateInWords(p.revokedAt)}` : ""}: the {what} ended access to this item.
              </span>
            </p>
          )}
          <div class="flex flex-wrap gap-2 border-t pt-3">
            <button type="button" popovertarget={`receipt-${p.id}`} class={button("outline", "sm")}>
              <Icon name="receiptText" /> {T.receipt}
            </button>
            {p.invoice && (
              <a
                href={`/api/purchases/${p.id}/invoice.pdf`}
                download
                title={`Invoice ${p.invoice}`}
                data-testid="invoice-link"
                class={button("outline", "sm")}
              >
                <Icon name="fileText" /> {INVOICE_LINK_TEXT}
              </a>
            )}
            {paid && (
              <button type="button" popovertarget={`change-email-${p.id}`} class={button("ghost", "sm")}>
                <Icon name="atSign" /> {T.changeEmail}
              </button>
            )}
          </div>
        </div>
        {/* Out of the content's flow: a closed popover takes no room, and no spacing either. */}
        <Receipt p={p} />
        {paid && <ChangeEmail p={p} />}
      </div>
    </li>
  );
}
