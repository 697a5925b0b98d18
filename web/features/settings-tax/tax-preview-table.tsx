// The tax preview's figures: per buyer, what they pay, its tax, the net, ApeWall's fee on the net and
// what the creator earns. A table on a wide screen; on a phone one block per buyer (nothing to scroll).
import { useSyncExternalStore } from "react";
import type { TaxBehavior } from "@shared/tax";
import type { TaxPreview, TaxPreviewRow } from "@shared/tax-settings";
import { formatDollars } from "@shared/money";
import { LoadFailed } from "@/components/load-failed";
import { SectionSpinner } from "@/components/spinner";
import { withoutStatus } from "@/lib/api";
import { cn } from "@/lib/utils";
import { useTaxPreview } from "./queries";

const WIDE = "(min-width: 640px)";
function useWide(): boolean {
  return useSyncExternalStore(
    (changed) => {
      const m = matchMedia(WIDE);
      m.addEventListener("change", changed);
      return () => m.removeEventListener("change", changed);
    },
    () => matchMedia(WIDE).matches,
  );
}

/** Under the buyer's name: the tax line as their checkout shows it, or why there is none. */
function TaxNote({ row }: { row: TaxPreviewRow }) {
  const text = row.taxLine ?? "No tax due";
  return <span className="block text-xs text-muted-foreground">{text}</span>;
}

function Figures({ preview }: { preview: TaxPreview }) {
  const wide = useWide();
  const fee = `Fee (${preview.feePercent}%)`;
  if (!wide) {
    return (
      <ul className="divide-y rounded-lg border" data-testid="tax-preview">
        {preview.rows.map((r) => (
          <li key={r.id} className="space-y-1.5 px-3 py-3 text-sm" data-testid="tax-preview-row">
            <div className="flex items-start justify-between gap-3">
              <p className="min-w-0 font-medium">
                {r.buyer}
                <TaxNote row={r} />
              </p>
              <p className="shrink-0 text-right">
                <span className="block font-semibold">{formatDollars(r.earns)}</span>
                <span className="block text-xs text-muted-foreground">you earn</span>
              </p>
            </div>
            <p className="text-muted-foreground">
              Pays {formatDollars(r.buyerPays)} · tax {formatDollars(r.tax)} · net {formatDollars(r.net)} · fee{" "}
              {formatDollars(r.fee)}
            </p>
          </li>
        ))}
      </ul>
    );
  }
  return (
    <div className="overflow-x-auto rounded-lg border">
      <table className="w-full text-sm" data-testid="tax-preview">
        <thead className="bg-muted/60 text-left text-muted-foreground">
          <tr>
            <th className="px-3 py-2 font-medium">Buyer</th>
            <th className="px-3 py-2 text-right font-medium">Buyer pays</th>
            <th className="px-3 py-2 text-right font-medium">Tax</th>
            <th className="px-3 py-2 text-right font-medium">Net</th>
            <th className="px-3 py-2 text-right font-medium">{fee}</th>
            <th className="px-3 py-2 text-right font-medium">You earn</th>
          </tr>
        </thead>
        <tbody>
          {preview.rows.map((r) => (
            <tr key={r.id} className="border-t" data-testid="tax-preview-row">
              <td className="px-3 py-2.5 font-medium">
                {r.buyer}
                <TaxNote row={r} />
              </td>
              <td className="px-3 py-2.5 text-right tabular-nums">{formatDollars(r.buyerPays)}</td>
              <td className="px-3 py-2.5 text-right tabular-nums">{formatDollars(r.tax)}</td>
              <td className="px-3 py-2.5 text-right tabular-nums">{formatDollars(r.net)}</td>
              <td className="px-3 py-2.5 text-right tabular-nums">{formatDollars(r.fee)}</td>
              <td className="px-3 py-2.5 text-right font-semibold tabular-nums">{formatDollars(r.earns)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function TaxPreviewTable({ priceCents, behavior }: { priceCents: number; behavior: TaxBehavior }) {
  const { data, isLoading, isFetching, isPlaceholderData, error, refetch } = useTaxPreview(priceCents, behavior);
  if (isLoading) return <SectionSpinner className="py-8" />;
  if (error) {
    return <LoadFailed what="the tax preview" detail={withoutStatus(error.message)} onRetry={refetch} />;
  }
  if (!data) return null;
  return (
    <div className={cn("transition-opacity", isPlaceholderData && "opacity-60")} aria-busy={isFetching}>
      <Figures preview={data} />
    </div>
  );
}
