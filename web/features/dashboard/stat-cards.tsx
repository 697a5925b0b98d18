import { useQuery } from "@tanstack/react-query";
import { DollarSign, Eye, FileStack, Wallet } from "lucide-react";
import { Card, CardContent } from "@/components/ui/card";
import { formatDollars } from "@shared/money";
import { cn } from "@/lib/utils";
import { useUnauthorizedRedirect } from "./use-unauthorized-redirect";
import { apiQuery } from "@/lib/api";

export function StatCards() {
  const { data, isLoading, error } = useQuery(apiQuery("GET /api/earnings/stats"));
  useUnauthorizedRedirect(error);
  const cards = [
    {
      label: "Total Earnings",
      value: data && formatDollars(data.totalEarnings),
      // Netted as the analytics' revenue is: both are the ledger's sales less refunds and disputes.
      hint: "After refunds",
      icon: DollarSign,
      tone: "text-emerald-600 bg-emerald-50",
    },
    {
      label: "Available Balance",
      value: data && formatDollars(data.availableBalance),
      hint: data && data.onHold > 0 ? `+ ${formatDollars(data.onHold)} on hold` : undefined,
      icon: Wallet,
      tone: "text-violet-600 bg-violet-50",
    },
    {
      label: "Content Items",
      value: data?.contentCount.toLocaleString(),
      icon: FileStack,
      tone: "text-sky-600 bg-sky-50",
    },
    { label: "Total Unlocks", value: data?.totalUnlocks.toLocaleString(), icon: Eye, tone: "text-pink-600 bg-pink-50" },
  ];
  return (
    <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-4" data-testid="stat-cards">
      {cards.map(({ label, value, hint, icon: Icon, tone }: (typeof cards)[number] & { hint?: string }) => (
        <Card key={label} className="gap-0 py-5">
          <CardContent className="flex items-center justify-between gap-3 px-5">
            <div className="min-w-0">
              <p className="text-sm text-muted-foreground">{label}</p>
              {isLoading ? (
                <div className="mt-2 h-7 w-20 animate-pulse rounded bg-muted" />
              ) : error ? (
                <p className="mt-1 text-sm text-destructive">Couldn't load</p>
              ) : (
                <>
                  <p className="mt-1 text-2xl font-bold whitespace-nowrap">{value}</p>
                  {hint && <p className="text-xs text-muted-foreground">{hint}</p>}
                </>
              )}
            </div>
            <div className={cn("flex size-10 shrink-0 items-center justify-center rounded-lg", tone)}>
              <Icon className="size-5" />
            </div>
          </CardContent>
        </Card>
      ))}
    </div>
  );
}
