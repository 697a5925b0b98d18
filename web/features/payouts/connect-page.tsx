// /connect: where Stripe's onboarding returns (spec §2 Bank-account connect, §8 texts).
import { Link } from "@tanstack/react-router";
import { PAYOUT_DESTINATION_MESSAGES } from "@shared/payout-destination";
import { AlertTriangle, CheckCircle2 } from "lucide-react";
import { SectionSpinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { AppShell } from "@/features/shell/app-shell";
import { BankConnectBody, startBankOnboarding, useConnectStatus } from "./bank-connect-card";
import { LoadFailed } from "@/components/load-failed";

/** Signs out and back in, then returns here to connect the bank on a fresh sign-in. */
async function signInAgainToConnect() {
  await fetch("/api/logout", { method: "POST", credentials: "include" }).catch(() => undefined);
  window.location.assign(`/sign-in?returnTo=${encodeURIComponent("/connect")}`);
}

export function ConnectPage({
  refresh,
  connected,
  signInAgain = false,
}: {
  refresh: boolean;
  connected: boolean;
  signInAgain?: boolean;
}) {
  const { data, isLoading, error } = useConnectStatus();
  return (
    <AppShell>
      <div className="mx-auto max-w-xl px-4 py-14">
        <Card>
          <CardContent className="space-y-5 py-4 text-center">
            {signInAgain ? (
              <div data-testid="connect-sign-in-again" className="space-y-5">
                <AlertTriangle className="mx-auto size-12 text-amber-500" />
                <h1 className="text-2xl font-bold">Sign in again</h1>
                <p className="text-muted-foreground">{PAYOUT_DESTINATION_MESSAGES.connectSignInAgain}</p>
                <Button onClick={signInAgainToConnect}>Sign in again</Button>
              </div>
            ) : refresh ? (
              <>
                <AlertTriangle className="mx-auto size-12 text-amber-500" />
                <h1 className="text-2xl font-bold">Setup Interrupted</h1>
                <p className="text-muted-foreground">
                  Your bank account setup was not finished. Pick up where you left off.
                </p>
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
            {!refresh &&
              !signInAgain &&
              (isLoading ? (
                <SectionSpinner />
              ) : error ? (
                <LoadFailed what="your bank account status" />
              ) : (
                data && (
                  <div className="text-left">
                    <BankConnectBody status={data} />
                  </div>
                )
              ))}
            <Button variant="ghost" asChild>
              <Link to="/settings">Back to settings</Link>
            </Button>
          </CardContent>
        </Card>
      </div>
    </AppShell>
  );
}
