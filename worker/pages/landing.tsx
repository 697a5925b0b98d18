/** @jsxImportSource hono/jsx */
// The signed-out landing (spec §2 "Landing (signed out)") as finished HTML, the same for every
// visitor (docs/pages.md): the hero with its drop zone, the link and text cards, the feature cards.
// web/site/landing.ts brings the drop zone and the two forms to life: the chosen file's, link's or
// text's intent is kept through sign-in (web/lib/pending-upload.ts). Without JavaScript each form
// still leads to sign-in (a GET to /api/login), the intent not kept.
import { formatFileSize, MAX_UPLOAD_BYTES } from "../../shared/file-size";
import { DROP_ZONE_TEXT, LANDING_FEATURES, LANDING_PART as PART, LANDING_TEXT as T } from "../../shared/landing";
import { Icon } from "./icons";
import { SitePage } from "./site";
import { button, CARD, TEXT_INPUT, TEXTAREA } from "./ui";

function DropZone() {
  return (
    <form action="/api/login" method="get" class="space-y-4" data-part={PART.dropZone}>
      {/* biome-ignore lint/a11y/useSemanticElements: the drop target holds text a <button> may not contain */}
      <div
        role="button"
        tabIndex={0}
        data-testid="drop-zone"
        class="flex cursor-pointer flex-col items-center justify-center gap-3 rounded-2xl border-2 border-dashed border-border bg-background px-6 py-10 text-center transition-colors hover:border-primary/60 hover:bg-accent/40 data-[dragging]:border-primary data-[dragging]:bg-accent"
      >
        <input type="file" class="hidden" data-testid="file-input" data-part={PART.fileInput} tabIndex={-1} />
        <div class="flex size-14 items-center justify-center rounded-full bg-brand-gradient text-white shadow-md">
          <Icon name="cloudUpload" class="size-7" />
        </div>
        <p class="text-lg font-semibold" data-part={PART.dropTitle}>
          {DROP_ZONE_TEXT.title}
        </p>
        <p class="text-sm text-muted-foreground">{DROP_ZONE_TEXT.hint}</p>
        <p class="text-xs text-muted-foreground">{DROP_ZONE_TEXT.maxSize(formatFileSize(MAX_UPLOAD_BYTES))}</p>
        <div class="mt-2 flex gap-6 text-xs text-muted-foreground">
          <span class="flex items-center gap-1.5">
            <Icon name="image" class="size-4" /> Images
          </span>
          <span class="flex items-center gap-1.5">
            <Icon name="video" class="size-4" /> Videos
          </span>
          <span class="flex items-center gap-1.5">
            <Icon name="fileText" class="size-4" /> Documents
          </span>
        </div>
      </div>
      <div
        hidden
        class="flex items-center justify-between rounded-lg border bg-card px-4 py-3"
        data-testid="selected-file"
        data-part={PART.selected}
      >
        <div class="min-w-0 text-left">
          <p class="truncate font-medium" data-part={PART.selectedName} />
          <p class="text-xs text-muted-foreground" data-part={PART.selectedSize} />
        </div>
        <button type="button" class={button("ghost", "icon")} aria-label={DROP_ZONE_TEXT.remove} data-part={PART.clear}>
          <Icon name="x" />
        </button>
      </div>
      <button type="submit" class={button("brand", "lg", "w-full text-base")} data-part={PART.submit}>
        {DROP_ZONE_TEXT.apeIt}
      </button>
    </form>
  );
}

function LinkCard() {
  return (
    <div class={CARD.root}>
      <div class={CARD.header}>
        <h2 class={`${CARD.title} flex items-center gap-2`}>
          <Icon name="link2" class="size-5 text-primary" /> {T.linkTitle}
        </h2>
        <p class={CARD.description}>{T.linkDescription}</p>
      </div>
      <div class={CARD.content}>
        <form action="/api/login" method="get" class="flex flex-col gap-3 sm:flex-row" data-part={PART.linkForm}>
          <input type="url" class={TEXT_INPUT} placeholder={T.linkPlaceholder} aria-label={T.linkLabel} />
          <button type="submit" class={button()}>
            {T.create}
          </button>
        </form>
      </div>
    </div>
  );
}

function TextCard() {
  return (
    <div class={CARD.root}>
      <div class={CARD.header}>
        <h2 class={`${CARD.title} flex items-center gap-2`}>
          <Icon name="type" class="size-5 text-primary" /> {T.textTitle}
        </h2>
        <p class={CARD.description}>{T.textDescription}</p>
      </div>
      <div class={CARD.content}>
        <form action="/api/login" method="get" class="flex flex-col gap-3" data-part={PART.textForm}>
          <textarea
            rows={3}
            class={`${TEXTAREA} field-sizing-fixed`}
            placeholder={T.textPlaceholder}
            aria-label={T.textLabel}
          />
          <button type="submit" class={button("default", "default", "self-end")}>
            {T.create}
          </button>
        </form>
      </div>
    </div>
  );
}

export function LandingPage() {
  return (
    <SitePage>
      <section class="relative overflow-hidden">
        <div class="pointer-events-none absolute inset-x-0 -top-40 h-96 bg-brand-gradient opacity-10 blur-3xl" />
        <div class="relative mx-auto grid max-w-6xl items-center gap-12 px-4 py-14 lg:grid-cols-2 lg:py-20">
          <div class="space-y-6 text-center lg:text-left">
            <span class="inline-flex items-center gap-2 rounded-full border bg-background px-3 py-1 text-xs font-medium text-muted-foreground">
              <span class="size-2 rounded-full bg-emerald-500" /> {T.badge}
            </span>
            <h1 class="text-4xl font-extrabold tracking-tight sm:text-5xl lg:text-6xl">
              {T.headline} <span class="text-brand-gradient">{T.headlineBrand}</span>
            </h1>
            <p class="mx-auto max-w-xl text-lg text-muted-foreground lg:mx-0">{T.lede}</p>
            <div class="flex flex-wrap justify-center gap-x-6 gap-y-2 text-sm text-muted-foreground lg:justify-start">
              {T.ticks.map((tick) => (
                <span key={tick}>✓ {tick}</span>
              ))}
            </div>
          </div>
          <div class={`${CARD.root} shadow-xl`}>
            <div class={CARD.content}>
              <DropZone />
            </div>
          </div>
        </div>
      </section>

      <section class="mx-auto grid max-w-6xl gap-6 px-4 pb-12 md:grid-cols-2">
        <LinkCard />
        <TextCard />
      </section>

      <section class="border-t bg-muted/40">
        <div class="mx-auto grid max-w-6xl gap-6 px-4 py-14 md:grid-cols-3">
          {LANDING_FEATURES.map(({ icon, title, text }) => (
            <div key={title} class="flex flex-col gap-6 py-6">
              <div class="space-y-3 px-6">
                <div class="flex size-11 items-center justify-center rounded-xl bg-brand-gradient text-white">
                  <Icon name={icon} class="size-5" />
                </div>
                <h3 class="text-lg font-semibold">{title}</h3>
                <p class="text-muted-foreground">{text}</p>
              </div>
            </div>
          ))}
        </div>
      </section>
    </SitePage>
  );
}
