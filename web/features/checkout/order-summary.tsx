// The checkout's order summary: the item, its price or the code's discount, the order bump, the tax
// line as the server words it (docs/tax.md) and the total.
import type { PublicContent } from "@shared/content";
import { formatDollars } from "@shared/money";
import { CreatorByline } from "@/components/creator-byline";

export function OrderSummary({
  item,
  code,
  listPrice,
  itemTotal,
  bumpLine,
  amountOff,
  taxText,
  total,
}: {
  item: PublicContent;
  code?: string;
  /** The fixed price before a code (null for pay what you want). */
  listPrice: number | null;
  /** What the item itself costs on this checkout (the total without the bump). */
  itemTotal: number;
  bumpLine: PublicContent["bump"] | null;
  /** What the code took off, as the server priced it (else read from the list price). */
  amountOff?: number;
  /** "Includes $1.67 VAT (20%, France)", "+ $0.89 sales tax (Washington)"; null where none is due. */
  taxText: string | null;
  total: number;
}) {
  // What the code took off: the server's word after a change, else the list price less the item's part.
  const off = code
    ? (amountOff ?? (listPrice !== null && listPrice > itemTotal ? Math.round((listPrice - itemTotal) * 100) / 100 : 0))
    : 0;
  return (
    <section className="h-fit space-y-4 rounded-2xl border bg-card p-6 shadow-sm" aria-label="Order summary">
      <h2 className="font-semibold">Order summary</h2>
      <div className="flex items-center gap-3">
        {item.previewImage ? (
          <img src={item.previewImage} alt="" className="size-14 rounded-lg object-cover" />
        ) : (
          <div className="size-14 rounded-lg bg-brand-gradient" />
        )}
        <div className="min-w-0">
          <p className="truncate font-medium">{item.title}</p>
          <CreatorByline creator={item.creator} className="mt-1" />
        </div>
      </div>
      <dl className="space-y-2 border-t pt-4 text-sm">
        <div className="flex justify-between gap-4">
          <dt className="min-w-0 break-words text-muted-foreground">{item.title}</dt>
          <dd>{formatDollars(itemTotal + off)}</dd>
        </div>
        {code && off > 0 && (
          <div className="flex justify-between gap-4 text-emerald-700" data-testid="checkout-discount">
            <dt>Code {code.toUpperCase()}</dt>
            <dd>−{formatDollars(off)}</dd>
          </div>
        )}
        {bumpLine && (
          <div className="flex justify-between gap-4" data-testid="checkout-bump-line">
            <dt className="min-w-0 break-words text-muted-foreground">{bumpLine.title} (add-on)</dt>
            <dd>+{formatDollars(bumpLine.price)}</dd>
          </div>
        )}
        {taxText && (
          <div className="text-muted-foreground" data-testid="checkout-tax">
            <dt className="break-words">{taxText}</dt>
          </div>
        )}
        <div className="flex justify-between">
          <dt className="text-muted-foreground">Processing fee</dt>
          <dd>{formatDollars(0)}</dd>
        </div>
        <div className="flex justify-between border-t pt-2 text-base font-semibold">
          <dt>Total</dt>
          <dd data-testid="checkout-total">{formatDollars(total)}</dd>
        </div>
      </dl>
    </section>
  );
}
