// One code on /discounts: its rule, usage (wrapping on a phone, never cut), revenue, "Copy link" (the
// item's paywall link with `?code=`, which the paywall prices: docs/checkout-and-codes.md) and "End".
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Check, Link2 } from "lucide-react";
import { useEffect, useState } from "react";
import type { CreatorContent } from "@shared/content";
import type { DiscountCode } from "@shared/discounts";
import { formatDollars } from "@shared/money";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { paywallUrl } from "@/features/content/content-row";
import { toast } from "@/hooks/use-toast";
import { api, withoutStatus } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

const STATUS: Record<DiscountCode["status"], { label: string; className: string }> = {
  active: { label: "Active", className: "bg-emerald-600 text-white" },
  expired: { label: "Expired", className: "border-amber-400 text-amber-800" },
  used_up: { label: "Used up", className: "border-amber-400 text-amber-800" },
  archived: { label: "Ended", className: "text-muted-foreground" },
};
const count = (n: number) => n.toLocaleString("en-US");

/** "Course Notes · 3 of 1,000 used (1 at checkout) · 1 per buyer · until 12/31/2099". */
function usageLine(code: DiscountCode): string {
  const parts = [
    code.contentTitle ?? "All items",
    `${count(code.uses)}${code.maxUses !== null ? ` of ${count(code.maxUses)}` : ""} used${code.held > 0 ? ` (${count(code.held)} at checkout)` : ""}`,
  ];
  if (code.maxUsesPerBuyer !== null) parts.push(`${count(code.maxUsesPerBuyer)} per buyer`);
  if (code.expiresAt) parts.push(`until ${new Date(code.expiresAt).toLocaleDateString("en-US", { timeZone: "UTC" })}`);
  return parts.join(" · ");
}

const codeLink = (contentId: string, code: string) => `${paywallUrl(contentId)}?code=${encodeURIComponent(code)}`;

/** Copies `url`; true once it is on the clipboard ("Copied" shows for a moment), a toast when it cannot be. */
function useCopy(): [boolean, (url: string) => Promise<void>] {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(false), 2500);
    return () => clearTimeout(t);
  }, [copied]);
  const copy = async (url: string) => {
    try {
      await navigator.clipboard.writeText(url);
      setCopied(true);
    } catch {
      toast({ title: "Copy Failed", description: "Could not copy link to clipboard.", variant: "destructive" });
    }
  };
  return [copied, copy];
}

/** A code for one item copies that item's link; a code for every item asks which item's. */
function CopyLink({ code, items }: { code: DiscountCode; items: CreatorContent[] }) {
  const [copied, copy] = useCopy();
  if (code.contentId) {
    const contentId = code.contentId;
    return (
      <Button variant="outline" size="sm" onClick={() => copy(codeLink(contentId, code.code))}>
        {copied ? <Check /> : <Link2 />}
        {copied ? "Copied" : "Copy link"}
      </Button>
    );
  }
  if (items.length === 0) return null;
  return (
    <span className="inline-flex items-center gap-2">
      <select
        aria-label="Copy link for"
        className="h-8 max-w-44 rounded-md border border-input bg-background px-2 text-sm shadow-xs"
        value=""
        onChange={(e) => e.target.value && copy(codeLink(e.target.value, code.code))}
      >
        <option value="">Copy link…</option>
        {items.map((i) => (
          <option key={i.id} value={i.id}>
            {i.title}
          </option>
        ))}
      </select>
      {copied && (
        <span role="status" className="inline-flex items-center gap-1 text-emerald-700">
          <Check className="size-4" />
          Copied
        </span>
      )}
    </span>
  );
}

export function CodeRow({ code, items }: { code: DiscountCode; items: CreatorContent[] }) {
  const queryClient = useQueryClient();
  const archive = useMutation({
    mutationFn: () => api("POST /api/discounts/:id/archive", { params: { id: code.id } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.discounts }),
    onError: (err) =>
      toast({
        title: "Could not end the code",
        description: withoutStatus((err as Error).message),
        variant: "destructive",
      }),
  });
  const status = STATUS[code.status];
  const live = code.status === "active";
  return (
    <li className="flex flex-col gap-3 py-4 md:flex-row md:items-start md:justify-between" data-testid="discount-row">
      <div className="min-w-0 space-y-1">
        <p className="flex flex-wrap items-center gap-x-2 gap-y-1">
          <span className="font-mono font-semibold break-all">{code.code}</span>
          <span className="text-sm">{code.label}</span>
          <Badge variant="outline" className={status.className}>
            {status.label}
          </Badge>
        </p>
        <p className="text-sm break-words text-muted-foreground" data-testid="discount-usage">
          {usageLine(code)}
        </p>
      </div>
      <div className="flex shrink-0 flex-wrap items-center gap-x-4 gap-y-2 text-sm">
        <span>
          <span className="text-muted-foreground">Revenue </span>
          {formatDollars(code.revenue)}
        </span>
        <span>
          <span className="text-muted-foreground">Given </span>
          {formatDollars(code.discountGiven)}
        </span>
        {live && <CopyLink code={code} items={items.filter((i) => !i.upsellOnly)} />}
        {code.status !== "archived" && (
          <Button variant="outline" size="sm" onClick={() => archive.mutate()} disabled={archive.isPending}>
            End
          </Button>
        )}
      </div>
    </li>
  );
}
