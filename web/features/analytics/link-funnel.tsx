// One paywall link's funnel on its content row: view → checkout started → paid, with the drop-off,
// and, once its buyers are shown post-purchase offers, the upsells they took; with an order bump,
// its take rate.
import type { AnalyticsItem } from "@shared/analytics";

const drop = (from: number, to: number) =>
  from > 0 ? `${Math.max(0, Math.round(((from - to) / from) * 100))}% drop` : "—";

export function LinkFunnel({ stats }: { stats: AnalyticsItem }) {
  const steps = [
    ["Views", stats.views],
    ["Checkouts", stats.checkouts],
    ["Paid", stats.sales],
  ] as const;
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
