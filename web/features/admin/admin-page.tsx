// /admin: the admin dashboard (spec §2). The server enforces admin on every /api/admin call; this
// screen only decides what to show. Other users see 'Access Denied' with links to their pages.
import { Link } from "@tanstack/react-router";
import { Landmark, MailCheck, ShieldAlert } from "lucide-react";
import { useState } from "react";
import { PageSpinner, Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { MessageScreen, SignInRequired } from "@/features/shell/guard-screens";
import { CreatorTopBar } from "@/features/shell/creator-top-bar";
import { toast } from "@/hooks/use-toast";
import { useAuth } from "@/lib/auth";
import { CreatorPayouts } from "./creator-payouts";
import { FeedbackInbox } from "./feedback-inbox";
import { MonthlyReports } from "./monthly-reports";
import { PayoutRunPanel } from "./payout-run-panel";
import { useFixPurchaseEmails, type Period } from "./queries";
import { SummaryCards } from "./summary-cards";
import { PayoutScheduleList } from "@/features/payouts/payout-schedule";

/** The month that closed last: the one the run on the 1st prepares. */
function closingPeriod(now = new Date()): Period {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1 };
}

const PageLinks = () => (
  <div className="flex flex-wrap justify-center gap-2">
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
);

function FixEmailsButton() {
  const fix = useFixPurchaseEmails({
    onSuccess: (r) => toast({ title: `Fixed ${r.fixed} out of ${r.total} purchases` }),
    onError: () => toast({ title: "Failed to fix purchase emails", variant: "destructive" }),
  });
  return (
    <Button variant="outline" size="sm" onClick={() => fix.mutate(undefined)} disabled={fix.isPending}>
      {fix.isPending ? <Spinner className="size-4" label="Fixing" /> : <MailCheck className="size-4" />}
      Fix Missing Emails
    </Button>
  );
}

export function AdminPage() {
  const { user, isLoading } = useAuth();
  const [period, setPeriod] = useState<Period>(() => closingPeriod());
  if (isLoading) return <PageSpinner />;
  if (!user) return <SignInRequired />;
  if (!user.isAdmin) {
    return (
      <MessageScreen
        icon={<ShieldAlert className="size-7" />}
        title="Access Denied"
        message="You don't have permission to access the admin dashboard."
        action={<PageLinks />}
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
          <div className="flex flex-wrap gap-2">
            <Button variant="outline" size="sm" asChild>
              <Link to="/admin/tax">
                <Landmark className="size-4" />
                Tax
              </Link>
            </Button>
            <FixEmailsButton />
            <PageLinks />
          </div>
        </div>
        <SummaryCards />
        <CreatorPayouts period={period} onPeriodChange={setPeriod} />
        <PayoutRunPanel period={period} />
        <details className="rounded-lg border bg-background p-4 text-sm text-muted-foreground">
          <summary className="cursor-pointer font-medium text-foreground">Payout schedule</summary>
          <PayoutScheduleList className="mt-2" />
        </details>
        <MonthlyReports />
        <FeedbackInbox />
      </main>
    </div>
  );
}
