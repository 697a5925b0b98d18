/** @jsxImportSource hono/jsx */
// /pricing (spec §2 "Pricing page") as finished HTML, the same for every visitor (docs/pages.md):
// the Creator and Pro plans, three blurbs, the FAQ (native <details>, no script). For a signed-in
// visitor the shared island turns 'Get Started Free' into 'Go to Dashboard' (web/site/common.ts) and
// web/site/pricing.ts shows a Pro creator's plan ("You're on Pro", its renewal, 'Manage
// subscription') in slots that keep their size.
import { FEES_POLICY, REFUND_POLICY } from "../../shared/pricing";
import { PAYOUT_SCHEDULE_TEXT } from "../../shared/payouts";
import { CREATOR_FEATURES, PRICING_PART as PART, PRICING_TEXT as T, PRO_FEATURES } from "../../shared/pricing-page";
import { SITE_PART } from "../../shared/site";
import { Icon, type IconName } from "./icons";
import { SitePage } from "./site";
import { button, CARD } from "./ui";

const BLURBS: { icon: IconName; title: string; text: string }[] = [
  {
    icon: "rocket",
    title: "Start in seconds",
    text: "Drop a file, set a price and share your link. Buyers pay by card without creating an account.",
  },
  {
    icon: "trendingUp",
    title: "Earn more per buyer",
    text: "One-click upsells after checkout typically raise revenue by 30-60%.",
  },
  {
    icon: "shieldCheck",
    title: "Safe for buyers",
    text: `Permanent access links and receipts by email. ${REFUND_POLICY.buyers}`,
  },
];

const FAQ: { q: string; a: string | readonly string[] }[] = [
  {
    q: "How much does it cost?",
    a: "The Creator plan is free. We keep a 20% platform fee on each sale, so you keep 80%. Pro is $99/month with zero commission.",
  },
  // The one schedule this product runs, in the same words as the settings page (shared/payouts.ts).
  { q: "Who pays card processing and dispute fees?", a: FEES_POLICY },
  { q: "When do I get paid?", a: PAYOUT_SCHEDULE_TEXT },
  {
    q: "Do buyers need an account?",
    a: "No. Buyers pay by card and get a permanent access link on screen and by email.",
  },
  { q: "Can I cancel Pro?", a: `Yes. ${REFUND_POLICY.pro}` },
  { q: "What can I sell?", a: "Any digital file (images, videos, PDFs, documents and more), a private link, or text." },
];

function Features({ list }: { list: readonly string[] }) {
  return (
    <ul class="space-y-2 text-sm">
      {list.map((f) => (
        <li key={f} class="flex gap-2">
          <Icon name="check" class="size-4 shrink-0 text-emerald-600" /> {f}
        </li>
      ))}
    </ul>
  );
}

function Plans() {
  return (
    <section class="mx-auto grid max-w-4xl gap-6 px-4 md:grid-cols-2">
      <div class={`${CARD.root} border-primary shadow-lg`} data-part={PART.creatorCard}>
        <div class={CARD.header}>
          {/* Both titles as tall as the Pro badge, so showing it moves nothing and the cards stay level. */}
          <h2 class={`${CARD.title} flex min-h-6 items-center text-xl`}>{T.creator}</h2>
          <p class={CARD.description}>{T.creatorDescription}</p>
          <p class="mt-4 text-4xl font-extrabold">
            {T.creatorPrice} <span class="text-base font-medium text-muted-foreground">{T.creatorFee}</span>
          </p>
        </div>
        <div class={CARD.content}>
          <Features list={CREATOR_FEATURES} />
        </div>
        <div class="mt-auto flex items-center px-6">
          <a href="/api/login" data-part={SITE_PART.start} data-spa class={button("default", "lg", "w-full")}>
            {T.getStarted}
          </a>
        </div>
      </div>
      <div class={CARD.root} data-testid="pro-plan-card" data-part={PART.proCard}>
        <div class={CARD.header}>
          <h2 class={`${CARD.title} flex min-h-6 flex-wrap items-center gap-2 text-xl`}>
            <Icon name="crown" class="size-5 text-amber-500" /> {T.pro}
            {/* "You're on Pro", written and shown by the island for a Pro creator only. */}
            <span
              hidden
              data-part={PART.onPro}
              class="rounded-full bg-emerald-100 px-2.5 py-0.5 text-sm font-semibold text-emerald-800"
            />
          </h2>
          <p class={CARD.description}>{T.proDescription}</p>
          <p class="mt-4 text-4xl font-extrabold">
            {T.proPrice} <span class="text-base font-medium text-muted-foreground">{T.proTerms}</span>
          </p>
        </div>
        <div class={CARD.content}>
          <Features list={PRO_FEATURES} />
        </div>
        <div class="mt-auto flex flex-col items-center gap-2 px-6">
          {/* The renewal line's room is kept for everyone: a Pro creator's page does not move when it shows. */}
          <p class="min-h-5 text-sm text-muted-foreground" data-part={PART.renewal} />
          <a href="/subscribe" data-spa data-part={PART.proAction} class={button("outline", "lg", "w-full")}>
            {T.upgrade}
          </a>
        </div>
      </div>
    </section>
  );
}

export function PricingPage() {
  return (
    <SitePage>
      <section class="mx-auto max-w-5xl px-4 py-14 text-center">
        <h1 class="text-4xl font-extrabold tracking-tight sm:text-5xl">{T.headline}</h1>
        <p class="mx-auto mt-4 max-w-2xl text-lg text-muted-foreground">{T.lede}</p>
      </section>
      <Plans />
      <section class="mx-auto grid max-w-5xl gap-8 px-4 py-16 md:grid-cols-3">
        {BLURBS.map(({ icon, title, text }) => (
          <div key={title} class="space-y-2 text-center">
            <div class="mx-auto flex size-11 items-center justify-center rounded-xl bg-accent text-primary">
              <Icon name={icon} class="size-5" />
            </div>
            <h3 class="font-semibold">{title}</h3>
            <p class="text-sm text-muted-foreground">{text}</p>
          </div>
        ))}
      </section>
      <section class="mx-auto max-w-3xl px-4 pb-20">
        <h2 class="mb-6 text-center text-2xl font-bold">{T.faq}</h2>
        <div class="space-y-3">
          {FAQ.map(({ q, a }) => (
            <details key={q} class="group rounded-lg border bg-card px-4 py-3">
              <summary class="cursor-pointer list-none font-medium">{q}</summary>
              <div class="mt-2 text-sm text-muted-foreground">
                {typeof a === "string" ? (
                  a
                ) : (
                  <ul class="mt-1 list-disc space-y-1 pl-5" data-testid="payout-schedule">
                    {a.map((line) => (
                      <li key={line}>{line}</li>
                    ))}
                  </ul>
                )}
              </div>
            </details>
          ))}
        </div>
      </section>
    </SitePage>
  );
}
