/** @jsxImportSource hono/jsx */
// The buyer's success page (spec §2) as finished HTML, in the buyer's frame the paywall and checkout
// share: verifying (a payment on its way), not found, revoked (a refund or chargeback ended it) and
// paid, with everything readable and every access link a real link with JavaScript off.
// web/site/success.ts adds copying, the email actions, the download's toast and the polling.
// docs/pages.md.
import type { OrderSummary } from "../../shared/funnels";
import { INVOICE_LINK_TEXT } from "../../shared/invoices";
import { formatDollars } from "../../shared/money";
import type { PurchaseVerification, RevokedPurchase } from "../../shared/payments";
import { creatorByline } from "../../shared/profile";
import { PURCHASE_EMAIL_MESSAGES as M } from "../../shared/purchase-email";
import { bouncedReceipt, emailLine, SUCCESS_PART as PART, SUCCESS_TEXT as T, supportLine } from "../../shared/success";
import { BuyerFrame } from "./buyer-frame";
import { Icon } from "./icons";
import { LostAccessForm } from "./lost-access";
import { AddOns, OrderExtras, PurchaseAccess } from "./success-access";
import { button, CARD, TEXT_INPUT } from "./ui";

export function Verifying() {
  return (
    <BuyerFrame>
      <div class="flex flex-col items-center gap-4 py-24 text-center" role="status" data-part={PART.verifying}>
        <Icon name="loader" class="size-10 animate-spin text-primary" label="Loading" />
        <h1 class="text-2xl font-bold">{T.verifying.title}</h1>
        <p class="text-muted-foreground">{T.verifying.description}</p>
      </div>
    </BuyerFrame>
  );
}

/** "Lost your access?", open: the island sends it; the library link works without it. */
function LostAccess() {
  return (
    <div data-part={PART.lostAccess}>
      <LostAccessForm disabled />
    </div>
  );
}

export function NotFound() {
  return (
    <BuyerFrame>
      <div class="mx-auto max-w-md px-4 py-20">
        <div class={CARD.root}>
          <div class={`${CARD.content} space-y-4 text-center`}>
            <Icon name="circleAlert" class="mx-auto size-12 text-destructive" />
            <h1 class="text-2xl font-bold">{T.notFound.title}</h1>
            <p class="text-muted-foreground">{T.notFound.intro}</p>
            <ul class="space-y-1 text-left text-sm text-muted-foreground">
              {T.notFound.causes.map((cause) => (
                <li key={cause}>• {cause}</li>
              ))}
            </ul>
            <a href="/" class={button()}>
              {T.notFound.home}
            </a>
            <div class="border-t pt-4">
              <LostAccess />
            </div>
          </div>
        </div>
      </div>
    </BuyerFrame>
  );
}

const dateInWords = (iso: string) =>
  new Date(iso).toLocaleDateString("en-US", { month: "short", day: "numeric", year: "numeric", timeZone: "UTC" });

/** An old link to a purchase a refund or chargeback ended: what happened and when, nothing more. */
export function Revoked({ r }: { r: RevokedPurchase }) {
  const what = r.state === "refunded" ? "refunded" : "disputed";
  return (
    <BuyerFrame>
      <div class="mx-auto max-w-md px-4 py-20">
        <div class={CARD.root}>
          <div class={`${CARD.content} space-y-4 text-center`} data-testid="purchase-revoked">
            <Icon name="undo2" class="mx-auto size-12 text-muted-foreground" />
            <h1 class="text-2xl font-bold">
              This order was {what} on {dateInWords(r.since)}
            </h1>
            <div>
              <p class="font-medium break-words">{r.content.title}</p>
              <p class="text-sm text-muted-foreground">Order #{r.orderId}</p>
            </div>
            <p class="text-sm text-muted-foreground">
              The {r.state === "refunded" ? "refund" : "dispute"} ended access to this item, so this link no longer
              opens it.
            </p>
            <a href={`/p/${r.content.id}`} class={button("outline")}>
              Go to the item
            </a>
          </div>
        </div>
      </div>
    </BuyerFrame>
  );
}

/** The bounced receipt's banner (its slot is always there: the island fills it when the provider's word comes). */
function ReceiptBanner({ v }: { v: PurchaseVerification }) {
  const bounce = bouncedReceipt(v);
  return (
    <div data-part={PART.receiptBanner}>
      {bounce && (
        <div
          role="alert"
          data-testid="receipt-bounced"
          class="flex gap-3 rounded-xl border border-amber-300 bg-amber-50 p-4 text-sm text-amber-950"
        >
          <Icon name="mailWarning" class="mt-0.5 size-5 shrink-0 text-amber-700" />
          <div class="min-w-0 space-y-1">
            <p class="font-semibold break-words">{bounce.heading}</p>
            <p class="break-words">{bounce.text}</p>
          </div>
        </div>
      )}
    </div>
  );
}

function Byline({ creator }: { creator: PurchaseVerification["content"]["creator"] }) {
  return (
    <div
      class="mt-1 flex min-w-0 flex-wrap items-center gap-x-2 gap-y-1 text-sm text-muted-foreground"
      data-testid="creator-byline"
    >
      <span
        class="flex size-6 shrink-0 items-center justify-center overflow-hidden rounded-full bg-muted text-xs font-semibold text-foreground"
        aria-hidden="true"
      >
        {creator?.avatarUrl ? (
          <img src={creator.avatarUrl} alt="" width={24} height={24} class="size-full object-cover" />
        ) : (
          (creator?.name?.slice(0, 1).toUpperCase() ?? "A")
        )}
      </span>
      <span class="min-w-0 break-words" data-testid="creator-name">
        {creatorByline(creator)}
      </span>
      {creator?.supportEmail && (
        <a href={`mailto:${creator.supportEmail}`} class="underline-offset-4 hover:text-foreground hover:underline">
          Contact the creator
        </a>
      )}
    </div>
  );
}

/** The email card: where the receipt went, 'Send it again', and (for the browser that paid) a change of address. */
function EmailCard({ v }: { v: PurchaseVerification }) {
  const { purchase } = v;
  return (
    <div class={CARD.root} data-testid="email-access">
      <div class={CARD.header}>
        <h2 class={`${CARD.title} flex items-center gap-2`}>
          <Icon name="mail" class="size-5" /> {T.emailTitle}
        </h2>
        <p class={`${CARD.description} break-words`} data-testid="email-access-sent" data-part={PART.emailLine}>
          {emailLine(purchase)}
        </p>
      </div>
      {purchase.emailedTo && (
        <div class={CARD.content}>
          <button type="button" disabled data-part={PART.sendEmail} class={button("outline")}>
            <Icon name="loader" class="hidden size-4 animate-spin text-primary" />
            <span>{T.sendAgain}</span>
          </button>
        </div>
      )}
      {purchase.canChangeEmail && (
        <div class={CARD.content} data-part={PART.changeEmail} data-not-this-browser={M.notThisBrowser}>
          <button
            type="button"
            disabled
            class="text-sm text-muted-foreground underline underline-offset-4 hover:text-foreground"
            data-testid="change-email-open"
          >
            {purchase.emailedTo ? "Wrong email? Change it" : "Add an email for your receipt"}
          </button>
          <form hidden class="space-y-2" novalidate aria-label="Change the email on this order">
            <label for="change-email-input" class="text-sm font-medium">
              Where should your receipt and access link go?
            </label>
            <div class="flex flex-col gap-2 sm:flex-row">
              <input
                id="change-email-input"
                name="email"
                type="email"
                autocomplete="email"
                placeholder="you@example.com"
                class={TEXT_INPUT}
              />
              <div class="flex gap-2">
                <button type="submit" class={button("default", "default", "flex-1 sm:flex-none")}>
                  <Icon name="loader" class="hidden size-4 animate-spin" /> Change email
                </button>
                <button type="button" class={button("ghost")}>
                  Cancel
                </button>
              </div>
            </div>
            <div data-testid="human-check" />
            <p id="change-email-error" role="alert" class="text-sm text-destructive" />
            <p class="text-xs text-muted-foreground">
              We'll send your receipt there and tell the address it was sent to before.
            </p>
          </form>
        </div>
      )}
    </div>
  );
}

export type PaidProps = {
  v: PurchaseVerification;
  /** What the funnel added after paying, and the order as charged (null: not readable). */
  order: { items: PurchaseVerification[]; summary: OrderSummary } | null;
};

export function Paid({ v, order }: PaidProps) {
  const preview = v.content.previewImage;
  return (
    <BuyerFrame>
      <div class="mx-auto max-w-2xl space-y-6 px-4 py-10">
        <div class="space-y-2 text-center">
          <Icon name="circleCheck" class="mx-auto size-14 text-emerald-600" />
          <h1 class="text-3xl font-bold">{T.paid}</h1>
          <p class="text-muted-foreground" data-testid="order-line">
            Order #{v.purchase.id} • {formatDollars(v.purchase.amount)}
          </p>
          {v.invoice && (
            <span class="inline-flex flex-wrap items-center justify-center gap-x-2 gap-y-1" data-testid="invoice-link">
              <a href={v.invoice.url} download title={`Invoice ${v.invoice.number}`} class={button("outline", "sm")}>
                <Icon name="fileText" /> {INVOICE_LINK_TEXT}
              </a>
              <span class="text-xs text-muted-foreground">Invoice {v.invoice.number}</span>
            </span>
          )}
        </div>
        <ReceiptBanner v={v} />
        <div class={CARD.root}>
          <div class={`${CARD.content} space-y-5`}>
            <div class="flex gap-4">
              {preview && (
                <img
                  src={preview.startsWith("data:") ? preview : `/api/content/${v.content.id}/preview-image`}
                  alt=""
                  width={80}
                  height={80}
                  class="size-20 shrink-0 rounded-lg object-cover"
                />
              )}
              <div class="min-w-0">
                <h2 class="text-xl font-semibold break-words">{v.content.title}</h2>
                {v.content.creator && <Byline creator={v.content.creator} />}
                {v.content.description && (
                  <p class="mt-1 text-sm break-words text-muted-foreground">{v.content.description}</p>
                )}
              </div>
            </div>
            <PurchaseAccess v={v} />
            <a href={v.accessUrl} data-part={PART.copyLink} class={button("outline", "default", "w-full")}>
              <Icon name="copy" /> {T.copyLink}
            </a>
          </div>
        </div>
        {v.addOns.length > 0 && (
          <AddOns v={v} order={order && { extras: order.items.length, total: order.summary.total }} />
        )}
        {order && order.items.length > 0 && <OrderExtras items={order.items} order={order.summary} />}
        <EmailCard v={v} />
        <div class="flex gap-3 rounded-xl border border-sky-200 bg-sky-50 p-4 text-sm text-sky-900">
          <Icon name="info" class="mt-0.5 size-5 shrink-0" />
          <ul class="space-y-1">
            {T.info.map((line) => (
              <li key={line}>{line}</li>
            ))}
            <li>{supportLine(v.purchase.id)}</li>
          </ul>
        </div>
        <p class="text-center">
          <a href={`/p/${v.content.id}`} class="break-words text-sm text-muted-foreground hover:text-foreground">
            ← Return to {v.content.title}
          </a>
        </p>
      </div>
    </BuyerFrame>
  );
}
