/** @jsxImportSource hono/jsx */
// What a buyer gets on the success page, by access type, as the SPA drew it
// (web/features/access/purchase-access.tsx), finished in the HTML: a download is a real form (GET the
// file with the access link, as an attachment) that web/site/success.ts turns into the signed-URL
// download; links, streams and views are links; text and the license key are on the page. Also the
// order's add-ons (the order bump) and what the funnel added after paying. docs/pages.md.
import { middleEllipsis } from "../../shared/file-names";
import type { OrderSummary } from "../../shared/funnels";
import { formatDollars } from "../../shared/money";
import type { PurchaseVerification } from "../../shared/payments";
import { SUCCESS_PART as PART } from "../../shared/success";
import { Icon } from "./icons";
import { button, CARD } from "./ui";

/** `button(variant, size)` with some of its classes replaced (tailwind-merge's job in the SPA: here a later class does not win). */
const restyled = (base: string, drop: string[], add: string) =>
  `${base
    .split(" ")
    .filter((c) => !drop.includes(c))
    .join(" ")} ${add}`;
/** The big access button: 48 px high (the SPA's), not `lg`'s 44 px. */
const BIG = (variant: "brand" | "outline") => restyled(button(variant, "lg"), ["h-11"], "h-12 w-full text-base");

const isAudio = (type: string | null) => !!type && type.startsWith("audio/");
const isImage = (type: string | null) => !!type && /^image\/(png|jpeg|gif|webp|avif)$/.test(type);

/** The access token an access URL carries. */
export const accessOf = (accessUrl: string) => new URL(accessUrl, "http://x").searchParams.get("access") ?? undefined;

/** The file as an attachment, without JavaScript: a GET form to the access link's file URL with download=1. */
function DownloadForm({ v }: { v: PurchaseVerification }) {
  const { content } = v;
  const url = new URL(content.fileUrl!, "http://x");
  return (
    <form
      method="get"
      action={url.pathname}
      data-part={PART.download}
      data-content-id={content.id}
      data-access={url.searchParams.get("access") ?? ""}
      data-file-name={content.fileName ?? ""}
    >
      <input type="hidden" name="access" value={url.searchParams.get("access") ?? ""} />
      <input type="hidden" name="download" value="1" />
      {/* A long name is shortened in the middle (its full name is the title) and may wrap: on a phone
          the button stays inside the screen and nothing of it is cut. */}
      <button
        type="submit"
        class={restyled(
          button("brand", "lg"),
          ["h-11", "whitespace-nowrap"],
          "h-auto min-h-12 w-full py-2 text-base whitespace-normal",
        )}
        aria-label={content.fileName ? `Download ${content.fileName}` : undefined}
      >
        <Icon name="download" />
        <Icon name="loader" class="hidden size-4 animate-spin text-white" />
        <span class="min-w-0 wrap-anywhere">
          Download{" "}
          {content.fileName && (
            <span class="inline-block max-w-full" title={content.fileName}>
              {middleEllipsis(content.fileName)}
            </span>
          )}
        </span>
      </button>
    </form>
  );
}

export function PurchaseAccess({ v }: { v: PurchaseVerification }) {
  const { content } = v;
  return (
    <div class="space-y-4" data-testid="purchase-access" data-access-type={content.accessType}>
      {content.accessType === "download" && content.fileUrl && <DownloadForm v={v} />}
      {content.accessType === "link" && content.linkUrl && (
        <a href={content.linkUrl} target="_blank" rel="noreferrer noopener" class={BIG("brand")}>
          <Icon name="externalLink" /> Open Link
        </a>
      )}
      {content.accessType === "stream" && content.fileUrl && (
        <>
          {isAudio(content.fileType) ? (
            // biome-ignore lint/a11y/useMediaCaption: the creator's own upload, which comes with no caption track
            <audio controls preload="metadata" src={content.fileUrl} class="w-full" data-testid="stream-player" />
          ) : (
            // biome-ignore lint/a11y/useMediaCaption: the creator's own upload, which comes with no caption track
            <video
              controls
              preload="metadata"
              src={content.fileUrl}
              class="aspect-video w-full rounded-lg bg-black"
              data-testid="stream-player"
            />
          )}
          <a href={content.fileUrl} target="_blank" rel="noreferrer" class={button("outline", "lg", "w-full")}>
            <Icon name="circlePlay" /> Watch in a new tab
          </a>
        </>
      )}
      {content.accessType === "view" && content.fileUrl && (
        <>
          {isImage(content.fileType) && (
            <img src={content.fileUrl} alt={content.title} class="w-full rounded-lg border" data-testid="view-image" />
          )}
          <a
            href={content.fileUrl}
            target="_blank"
            rel="noreferrer"
            class={BIG(content.textContent ? "outline" : "brand")}
          >
            <Icon name="eye" /> View Online
          </a>
        </>
      )}
      {content.textContent && (
        <div
          class="max-h-[60vh] overflow-auto whitespace-pre-wrap rounded-lg border bg-muted/40 p-4 text-sm"
          data-testid="text-content"
        >
          {content.textContent}
        </div>
      )}
      {v.purchase.licenseKey && (
        <div class="rounded-lg border bg-muted/40 p-3 text-left">
          <div class="text-xs font-medium text-muted-foreground">Your license key</div>
          <div class="mt-1 flex items-center gap-2">
            <code class="flex-1 select-all break-all font-mono text-sm" data-testid="license-key">
              {v.purchase.licenseKey}
            </code>
            <button
              type="button"
              disabled
              data-part={PART.copyLicense}
              data-key={v.purchase.licenseKey}
              class={button("outline", "sm")}
              aria-label="Copy license key"
            >
              <Icon name="copy" /> Copy
            </button>
          </div>
        </div>
      )}
    </div>
  );
}

const TOTAL = "flex items-baseline justify-between border-t pt-4 font-semibold";

/** The order bump bought with this purchase, each with its own permanent link; the total unless the funnel's card says it. */
export function AddOns({ v, order }: { v: PurchaseVerification; order: { extras: number; total: number } | null }) {
  return (
    <div class={CARD.root} data-testid="order-add-ons">
      <div class={CARD.header}>
        <h2 class={CARD.title}>Also in your order</h2>
        <p class={CARD.description}>Each has its own permanent access link, also in your receipt.</p>
      </div>
      <div class={CARD.content}>
        <ul class="divide-y">
          {v.addOns.map((a) => (
            <li key={a.accessUrl} class="flex items-center justify-between gap-3 py-2">
              <span class="min-w-0 truncate font-medium">{a.title}</span>
              <span class="flex shrink-0 items-center gap-3 text-sm">
                <span class="text-muted-foreground">{formatDollars(a.amount)}</span>
                <a href={a.accessUrl} class={button("outline", "sm")}>
                  Open
                </a>
              </span>
            </li>
          ))}
        </ul>
        {order && order.extras === 0 && (
          <p class={TOTAL} data-testid="order-total">
            <span>Total charged</span>
            <span>{formatDollars(order.total)}</span>
          </p>
        )}
      </div>
    </div>
  );
}

/** The items the funnel added after the first, each with its access, and the order's total as charged. */
export function OrderExtras({ items, order }: { items: PurchaseVerification[]; order: OrderSummary }) {
  return (
    <div class={CARD.root} data-testid="order-extras">
      <div class={`${CARD.content} space-y-4`}>
        <h2 class="flex items-center gap-2 font-semibold">
          <Icon name="circlePlus" class="size-5 text-primary" /> Also in your order
        </h2>
        {items.map((x) => (
          <div key={x.purchase.id} class="space-y-2 border-t pt-4" data-testid="order-extra">
            <div class="flex items-baseline justify-between gap-3">
              <p class="min-w-0 font-medium break-words">{x.content.title}</p>
              <p class="shrink-0 text-sm text-muted-foreground">
                Order #{x.purchase.id} • {formatDollars(x.purchase.amount)}
              </p>
            </div>
            <PurchaseAccess v={x} />
            <div class="flex flex-wrap gap-2">
              <a href={x.accessUrl} class={button("outline", "sm")}>
                Permanent access link
              </a>
            </div>
          </div>
        ))}
        <p class={TOTAL} data-testid="order-total">
          <span>Total charged</span>
          <span>{formatDollars(order.total)}</span>
        </p>
      </div>
    </div>
  );
}
