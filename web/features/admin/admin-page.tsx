import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { ShieldAlert } from "lucide-react";
import type { AdminPayoutSummary } from "@shared/types";
import { PageSpinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { MessageScreen, SignInRequired } from "@/features/shell/guard-screens";
import { CreatorTopBar } from "@/features/shell/creator-top-bar";
import { useAuth } from "@/lib/auth";
import { queryKeys } from "@/lib/query-keys";
import { formatUsd } from "@/lib/utils";

function Summary() {
  const { data, isLoading, error } = useQuery<AdminPayoutSummary>({ queryKey: queryKeys.adminPayoutSummary });
  if (isLoading) return <div className="h-28 animate-pulse rounded-xl bg-muted" />;
  if (error || !data) return <p className="text-destructive">Couldn't load the payout summary. {error?.message}</p>;
  const cards = [
    { label: "Total Revenue", value: formatUsd(data.totalRevenue) },
    { label: "Platform Commission", value: formatUsd(data.platformCommission) },
    { label: "Total Payouts", value: formatUsd(data.totalPayouts) },
    { label: "Creators", value: data.creatorCount.toLocaleString() },
    { label: "Pending Payouts", value: data.pendingPayouts.toLocaleString() },
  ];
  return (
    <div className="grid grid-cols-2 gap-4 md:grid-cols-5">
      {cards.map((c) => (
        <Card key={c.label} className="gap-1 py-5">
          <CardContent className="px-5">
            <p className="text-sm text-muted-foreground">{c.label}</p>
            <p className="mt-1 text-2xl font-bold">{c.value}</p>
          </CardContent>
        </Card>
      ))}
    </div>
  );
}

export function AdminPage() {
  const { user, isLoading } = useAuth();
  if (isLoading) return <PageSpinner />;
  if (!user) return <SignInRequired />;
  if (!user.isAdmin) {
    return (
      <MessageScreen
        icon={<ShieldAlert className="size-7" />}
        title="Access Denied"
        message="You don't have permission to access the admin dashboard."
        action={
          <Button asChild>
            <Link to="/">Go to Dashboard</Link>
          </Button>
        }
      />
    );
  }
  return (
    <div className="min-h-screen bg-muted/30">
      <CreatorTopBar user={user} />
      <main className="mx-auto max-w-6xl space-y-6 px-4 py-8">
        <div className="flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
          <div>
            <h1 className="text-3xl font-bold tracking-tight">Admin Dashboard</h1>
            <p className="text-muted-foreground">Platform revenue and creator payouts.</p>
          </div>
          <div className="flex gap-2">
            <Button variant="outline" size="sm" asChild>
              <Link to="/">Dashboard</Link>
            </Button>
            <Button variant="outline" size="sm" asChild>
              <Link to="/upload">Upload</Link>
            </Button>
            <Button variant="outline" size="sm" asChild>
              <Link to="/settings">Settings</Link>
            </Button>
          </div>
        </div>
        <Summary />
      </main>
    </div>
  );
}
