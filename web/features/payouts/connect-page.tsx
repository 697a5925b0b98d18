// /connect: where Stripe's onboarding returns (spec §2 Bank-account connect, §8 texts).
import { Link } from "@tanstack/react-router";
import { AlertTriangle, CheckCircle2 } from "lucide-react";
import { SectionSpinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { AppShell } from "@/features/shell/app-shell";
import { BankConnectBody, startBankOnboarding, useConnectStatus } from "./bank-connect-card";

export function ConnectPage({ refresh, connected }: { refresh: boolean; connected: boolean }) {
  const { data, isLoading, error } = useConnectStatus();
  return (
    <AppShell>
      <div className="mx-auto max-w-xl px-4 py-14">
        <Card>
          <CardContent className="space-y-5 py-4 text-center">
            {refresh ? (
              <>
                <AlertTriangle className="mx-auto size-12 text-amber-500" />
                <h1 className="text-2xl font-bold">Setup Interrupted</h1>
                <p className="text-muted-foreground">Your bank account setup was not finished. Pick up where you left off.</p>
                <Button onClick={startBankOnboarding}>Continue setup</Button>
              </>
            ) : connected ? (
              <>
                <CheckCircle2 className="mx-auto size-12 text-emerald-600" />
                <h1 className="text-2xl font-bold">Bank Account Connected!</h1>
                <p className="text-muted-foreground">Your earnings will be paid to your bank account by transfer.</p>
              </>
            ) : (
              <h1 className="text-2xl font-bold">Bank payouts</h1>
            )}
            {!refresh && (isLoading ? <SectionSpinner /> : error ? <p className="text-destructive">Couldn't load your bank account status.</p> : data && <div className="text-left"><BankConnectBody status={data} /></div>)}
            <Button variant="ghost" asChild>
              <Link to="/settings">Back to settings</Link>
            </Button>
          </CardContent>
        </Card>
      </div>
    </AppShell>
  );
}
