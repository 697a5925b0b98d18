// /admin/tax: the month's tax report by jurisdiction, its reconciliation with Stripe, and where
// ApeWall is registered or nearing a threshold (docs/tax.md, "The admin's tax report"). The server
// enforces admin on every /api/admin/tax call; this screen only decides what to show.
import { Link, useNavigate } from "@tanstack/react-router";
import { ArrowLeft, ShieldAlert } from "lucide-react";
import { PageSpinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { CreatorTopBar } from "@/features/shell/creator-top-bar";
import { MessageScreen, SignInRequired } from "@/features/shell/guard-screens";
import { useAuth } from "@/lib/auth";
import { PeriodPicker } from "../period-picker";
import { monthQuery, type Period } from "./queries";
import { TaxReconciliationCard } from "./tax-reconciliation";
import { TaxReportCard } from "./tax-report";
import { TaxThresholdsCard } from "./tax-thresholds";

/** The years with a report: from 2024 to this one. */
const reportYears = () =>
  Array.from({ length: Math.min(new Date().getUTCFullYear(), 2030) - 2024 + 1 }, (_, i) => 2024 + i);

export function TaxPage({ period }: { period: Period }) {
  const { user, isLoading } = useAuth();
  const navigate = useNavigate();
  if (isLoading) return <PageSpinner />;
  if (!user) return <SignInRequired />;
  if (!user.isAdmin) {
    return (
      <MessageScreen
        icon={<ShieldAlert className="size-7" />}
        title="Access Denied"
        message="You don't have permission to access the admin dashboard."
        action={
          <Button variant="outline" size="sm" asChild>
            <Link to="/">Dashboard</Link>
          </Button>
        }
      />
    );
  }
  const choose = (p: Period) => void navigate({ to: "/admin/tax", search: { month: monthQuery(p) } });
  return (
    <div className="min-h-screen bg-muted/30">
      <CreatorTopBar user={user} />
      <main className="mx-auto max-w-6xl space-y-6 px-4 py-8">
        <div className="flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
          <div className="space-y-1">
            <Button variant="ghost" size="sm" className="-ml-3" asChild>
              <Link to="/admin">
                <ArrowLeft />
                Admin Dashboard
              </Link>
            </Button>
            <h1 className="text-3xl font-bold tracking-tight">Tax</h1>
            <p className="text-muted-foreground">
              Sales tax and VAT collected by jurisdiction, checked against Stripe, and where to register.
            </p>
          </div>
          <PeriodPicker idPrefix="tax" period={period} onChange={choose} years={reportYears()} />
        </div>
        <TaxReportCard period={period} />
        <TaxReconciliationCard period={period} />
        <TaxThresholdsCard />
      </main>
    </div>
  );
}
