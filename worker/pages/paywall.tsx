/** @jsxImportSource hono/jsx */
// The public paywall (spec §2) as finished HTML: title, creator, description, preview image, access
// type, price or tip field and 'Unlock', readable with JavaScript off. The markup is the same for
// every visitor, so it can be cached: web/paywall/island.ts then shows what fits this visitor (the
// owner's controls, a payment that is still processing, the creator's preview) and runs 'Unlock'.
import { dollarsField } from "../../shared/money";
import { middleEllipsis } from "../../shared/file-names";
import { formatFileSize } from "../../shared/uploads";
import type { PublicContent } from "../../shared/content";
import { PAYWALL_PART as PART, PAYWALL_TEXT } from "../../shared/paywall";
import { creatorByline, type PublicCreator } from "../../shared/profile";
import { BuyerFrame } from "./buyer-frame";
import { LostAccessForm } from "./lost-access";
import { Icon, LogoMark, type IconName } from "./icons";
// The React app's shadcn Button and Input, as plain classes.
import { BUTTON_BASE as BUTTON, INPUT } from "./ui";

const ACCESS: Record<PublicContent["accessType"], { icon: IconName; label: string }> = {
  download: { icon: "fileText", label: "Instant download" },
  view: { icon: "type", label: "View online" },
  stream: { icon: "circlePlay", label: "Stream online" },
  link: { icon: "link2", label: "Private link" },
};

const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });

export function ContentNotFound() {
  return (
    <BuyerFrame>
      <div class="mx-auto flex max-w-md flex-col items-center gap-3 px-4 py-24 text-center">
        <Icon name="searchX" class="size-12 text-muted-foreground" />
        <h1 class="text-2xl font-bold">Content Not Found</h1>
        <p class="text-muted-foreground">This content may have been removed or doesn't exist.</p>
        <a
          href="/"
          class={`${BUTTON} h-9 border bg-background px-4 py-2 text-sm shadow-xs hover:bg-accent hover:text-accent-foreground`}
        >
          Go to ApeWall
        </a>
      </div>
    </BuyerFrame>
  );
}

/**
 * "by {name}" with the avatar and a contact link: who the buyer pays. The avatar's 32 px box is
 * there with or without an image (an initial, or the logo mark, stands in), so nothing moves when it
 * loads. Everything in it is the creator's text, escaped by JSX.
 */
function CreatorByline({ creator }: { creator: PublicCreator }) {
  return (
    <div
      class="flex min-h-8 flex-wrap items-center gap-x-2 gap-y-1 text-sm text-muted-foreground"
      data-testid="creator-byline"
    >
      <span
        class="flex size-8 shrink-0 items-center justify-center overflow-hidden rounded-full bg-muted font-semibold text-foreground"
        aria-hidden="true"
      >
        {creator.avatarUrl ? (
          <img
            src={creator.avatarUrl}
            alt=""
            width={32}
            height={32}
            decoding="async"
            class="size-full object-cover"
            data-testid="creator-avatar"
          />
        ) : creator.name ? (
          creator.name.slice(0, 1).toUpperCase()
        ) : (
          <LogoMark class="size-5" />
        )}
      </span>
      <span data-testid="creator-name">{creatorByline(creator)}</span>
      {creator.supportEmail && (
        <a
          href={`mailto:${creator.supportEmail}`}
          class="underline-offset-4 hover:text-foreground hover:underline"
          data-testid="creator-contact"
        >
          Contact the creator
        </a>
      )}
    </div>
  );
}

/** The item's paywall. `image` carries the preview image's size when known, so it takes its place at once. */
export function PaywallPage({
  item,
  imageSize,
}: {
  item: PublicContent;
  imageSize: { width: number; height: number } | null;
}) {
  const kind = ACCESS[item.accessType];
  const pwyw = item.pricingModel === "pay_what_you_want";
  const min = item.minimumPrice ?? item.price;
  return (
    <BuyerFrame>
      <div data-part={PART.previewBar} />
      <div class="mx-auto max-w-4xl px-4 py-8 sm:py-12" data-part={PART.root} data-id={item.id}>
        <div
          data-part={PART.previewBanner}
          hidden
          class="mb-4 flex items-center gap-2 rounded-lg border border-amber-200 bg-amber-50 px-4 py-2 text-sm text-amber-900"
        >
          <Icon name="eye" class="size-4" /> Preview: this is what buyers see.
        </div>
        <div class="grid overflow-hidden rounded-2xl border bg-card shadow-xl md:grid-cols-2">
          <div class="relative aspect-[4/3] bg-brand-gradient md:aspect-auto">
            {item.previewImage ? (
              <img
                src={item.previewImage}
                alt={item.title}
                width={imageSize?.width}
                height={imageSize?.height}
                fetchpriority="high"
                decoding="async"
                class="absolute inset-0 size-full object-cover"
              />
            ) : (
              <div class="absolute inset-0 flex items-center justify-center text-white/90">
                <Icon name={kind.icon} class="size-20" />
              </div>
            )}
            <div class="absolute top-3 left-3 flex items-center gap-1.5 rounded-full bg-black/60 px-3 py-1 text-xs font-medium text-white backdrop-blur">
              <span data-part={PART.badgeLocked} class="flex items-center gap-1.5">
                <Icon name="lock" class="size-3.5" /> Locked
              </span>
              <span data-part={PART.badgeUnlocked} hidden class="flex items-center gap-1.5">
                <Icon name="lockOpen" class="size-3.5" /> Unlocked
              </span>
            </div>
          </div>
          <div class="flex flex-col gap-5 p-6 sm:p-8">
            <div class="space-y-2">
              <h1 class="text-2xl font-bold tracking-tight sm:text-3xl">{item.title}</h1>
              <CreatorByline creator={item.creator} />
              {item.creator.bio && (
                <p class="text-xs whitespace-pre-line text-muted-foreground" data-testid="creator-bio">
                  {item.creator.bio}
                </p>
              )}
            </div>
            {item.description && <p class="whitespace-pre-line text-muted-foreground">{item.description}</p>}
            <div class="flex flex-wrap gap-2 text-sm">
              <span class="inline-flex items-center gap-1.5 rounded-full bg-accent px-3 py-1 text-accent-foreground">
                <Icon name={kind.icon} class="size-4" /> {kind.label}
              </span>
              {item.fileName && (
                <span class="inline-flex max-w-full items-center gap-1.5 rounded-full bg-muted px-3 py-1 text-muted-foreground">
                  <span class="min-w-0 truncate" title={item.fileName}>
                    {middleEllipsis(item.fileName)}
                  </span>
                  {item.fileSize !== null && ` · ${formatFileSize(item.fileSize)}`}
                </span>
              )}
            </div>

            <div data-part={PART.access} data-testid="unlocked" hidden class="mt-auto">
              <div data-part={PART.owned} hidden />
              <p
                data-part={PART.checking}
                hidden
                class="flex items-center gap-2 text-sm text-muted-foreground"
                role="status"
              >
                <Icon name="loader" class="size-4 animate-spin text-primary" /> {PAYWALL_TEXT.checking}
              </p>
              <p
                data-part={PART.processing}
                hidden
                class="flex items-center gap-2 rounded-lg bg-amber-50 px-3 py-2 text-sm text-amber-900"
                role="status"
              >
                <Icon name="loader" class="size-4 animate-spin text-primary" /> {PAYWALL_TEXT.processing}
              </p>
            </div>

            <div data-part={PART.buy} class="mt-auto space-y-5">
              {item.availability !== "on_sale" ? (
                // No form: nothing to buy here. An owner's access still shows (the script swaps this part out).
                <div class="space-y-1 rounded-lg border bg-muted px-4 py-3" role="status" data-testid="not-for-sale">
                  <p class="font-semibold">
                    {item.availability === "unpublished" ? PAYWALL_TEXT.unpublished : PAYWALL_TEXT.upsellOnly}
                  </p>
                  <p class="text-sm text-muted-foreground">{PAYWALL_TEXT.notForSaleOwners}</p>
                </div>
              ) : (
                <form data-part={PART.form} class="space-y-3" novalidate>
                  {pwyw ? (
                    <div class="space-y-2">
                      <label for="tip" class="text-sm font-medium">
                        Name your price
                      </label>
                      <div class="relative">
                        <span class="absolute top-1/2 left-3 -translate-y-1/2 text-muted-foreground">$</span>
                        <input
                          id="tip"
                          name="tip"
                          data-part={PART.tip}
                          type="number"
                          inputmode="decimal"
                          step="0.01"
                          min={min}
                          placeholder={dollarsField(min)}
                          class={`${INPUT} h-11 pl-7 text-lg`}
                        />
                      </div>
                      <p class="text-xs text-muted-foreground">
                        Minimum {usd.format(min)}. Pay more to support the creator.
                      </p>
                    </div>
                  ) : (
                    <p class="text-3xl font-extrabold" data-testid="paywall-price">
                      {usd.format(item.price)}
                    </p>
                  )}
                  <button
                    type="submit"
                    data-part={PART.unlock}
                    class={`${BUTTON} bg-brand-gradient px-6 text-white shadow-md hover:opacity-95 hover:shadow-lg has-[>svg]:px-4 h-12 w-full text-base`}
                  >
                    <Icon name="lock" />
                    <Icon name="loader" class="hidden size-5 animate-spin" />
                    Unlock
                  </button>
                  <p class="flex items-center justify-center gap-1.5 text-xs text-muted-foreground">
                    <Icon name="shieldCheck" class="size-3.5" /> Pay by card · permanent access · receipt by email
                  </p>
                  <noscript>
                    <p class="text-center text-xs text-muted-foreground">{PAYWALL_TEXT.noScript}</p>
                  </noscript>
                </form>
              )}
              {/* Its room is kept from the start, so the button appearing with the script moves nothing: the
                  button is a block of exactly that height (as an inline box it sat in a 24 px line, and a
                  script run after the first paint moved the footer by 4 px). */}
              <div data-part={PART.lostAccess} class="min-h-5 text-center">
                <button
                  type="button"
                  hidden
                  class="mx-auto block h-5 text-sm text-muted-foreground underline-offset-4 hover:text-foreground hover:underline"
                >
                  Lost your access?
                </button>
                <LostAccessForm hidden />
              </div>
            </div>
          </div>
        </div>
      </div>
    </BuyerFrame>
  );
}
