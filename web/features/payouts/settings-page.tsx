// /settings: payout setup, bank connect, earnings overview, "Withdraw now", the money timeline, payout history and
// how payouts work (spec §2 Settings).
import { Info } from "lucide-react";
import type { CurrentUser } from "@shared/auth";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { AppShell } from "@/features/shell/app-shell";
import { DeveloperCard } from "@/features/developer/developer-card";
import { WebhooksCard } from "@/features/developer/webhooks-card";
import { ProfileCard } from "@/features/profile/profile-card";
import { PlanCard } from "@/features/subscription/plan-card";
import { TaxSettingsCard } from "@/features/settings-tax/tax-settings-card";
import { BankConnectCard } from "./bank-connect-card";
import { EarningsOverview } from "./earnings-overview";
import { MoneyTimeline } from "./money-timeline";
import { PayoutHistory } from "./payout-history";
import { PayoutScheduleList } from "./payout-schedule";
import { PayoutSetupCard } from "./payout-setup-card";
import { WithdrawCard } from "./withdraw-card";

export function SettingsPage({ user }: { user: CurrentUser }) {
  return (
    <AppShell>
      <div className="mx-auto max-w-5xl space-y-6 px-4 py-10">
        <div>
          <h1 className="text-3xl font-bold tracking-tight">Settings</h1>
          <p className="text-muted-foreground">Your public profile, your payouts and where your money stands.</p>
        </div>
        <ProfileCard />
        <EarningsOverview />
        <WithdrawCard />
        <PlanCard />
        <div className="grid gap-6 lg:grid-cols-2">
          <PayoutSetupCard user={user} />
          <BankConnectCard />
        </div>
        <MoneyTimeline />
        <div className="grid gap-6 lg:grid-cols-2">
          <PayoutHistory />
          <Card className="bg-accent/40">
            <CardHeader>
              <CardTitle className="flex items-center gap-2">
                <Info className="size-5" /> How payouts work
              </CardTitle>
            </CardHeader>
            <CardContent className="text-sm">
              <PayoutScheduleList />
            </CardContent>
          </Card>
        </div>
        {/* Below the payout cards: its preview loads after them and must not move what they hold. */}
        <TaxSettingsCard />
        <DeveloperCard />
        <WebhooksCard />
      </div>
    </AppShell>
  );
}
