// One paywall link's funnel on its content row: view → checkout started → paid (checkouts of this
// item that were paid, so never more than started), with the drop-off; its sales as another item's
// order bump or as a funnel step on a line of their own (they had no checkout of this item); once
// its buyers are shown post-purchase offers, the upsells they took; with an order bump, its take rate.
import type { AnalyticsItem } from "@shared/analytics";

const drop = (from: number, to: number) =>
  from > 0 ? `${Math.max(0, Math.round(((from - to) / from) * 100))}% drop` : "—";

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export function LinkFunnel({ stats }: { stats: AnalyticsItem }) {
  const steps = [
    ["Views", stats.views],
    ["Checkouts", stats.checkouts],
    ["Paid", stats.paidCheckouts],
  ] as const;
  const otherSales = [
    stats.bumpSales > 0 && plural(stats.bumpSales, "as an order bump", "as order bumps"),
    stats.upsellSales > 0 && plural(stats.upsellSales, "as a funnel upsell", "as funnel upsells"),
  ].filter(Boolean);
  return (
    // biome-ignore lint/a11y/useSemanticElements: figures read as one labelled group; a fieldset is for form controls
    <div
      className="flex flex-wrap items-center gap-1.5 text-xs"
      data-testid="link-funnel"
      role="group"
      aria-label="Last 30 days: view, checkout, paid"
    >
      {steps.map(([label, n], i) => (
        <span key={label} className="flex items-center gap-1.5">
          {i > 0 && <span className="text-muted-foreground">→ {drop(steps[i - 1][1], n)} →</span>}
          <span className="rounded bg-muted px-1.5 py-0.5">
            {label} <strong>{n}</strong>
          </span>
        </span>
      ))}
      {otherSales.length > 0 && (
        <span className="flex items-center gap-1.5">
          <span className="text-muted-foreground">·</span>
          <span
            className="rounded bg-muted px-1.5 py-0.5"
            data-testid="link-funnel-other-sales"
            title="Sold with another item's checkout or after it: not a checkout of this item"
          >
            Also sold {otherSales.join(", ")}
          </span>
        </span>
      )}
      {stats.offers > 0 && (
        <span className="flex items-center gap-1.5" data-testid="link-funnel-upsells">
          <span className="text-muted-foreground">→</span>
          <span className="rounded bg-muted px-1.5 py-0.5">
            Upsells <strong>{stats.upsells}</strong> of {stats.offers} offered
          </span>
        </span>
      )}
      {stats.bumpOffered > 0 && (
        <span className="flex items-center gap-1.5">
          <span className="text-muted-foreground">·</span>
          <span
            className="rounded bg-muted px-1.5 py-0.5"
            data-testid="link-funnel-bump"
            title="Of the paid checkouts that offered the order bump, those that took it"
          >
            Bump taken <strong>{stats.bumpTakeRate}%</strong> ({stats.bumpTaken} of {stats.bumpOffered})
          </span>
        </span>
      )}
      <span className="text-muted-foreground">· 30 days</span>
    </div>
  );
}
