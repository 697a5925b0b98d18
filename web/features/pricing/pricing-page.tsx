import { Link } from "@tanstack/react-router";
import { FEES_POLICY, REFUND_POLICY } from "@shared/pricing";
import { Check, Crown, Rocket, ShieldCheck, TrendingUp } from "lucide-react";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { PayoutScheduleList } from "@/features/payouts/payout-schedule";
import { AppShell } from "@/features/shell/app-shell";
import { ON_PRO, renewalText, useSubscription } from "@/features/subscription/on-pro";
import { goToLogin, useAuth } from "@/lib/auth";

const CREATOR_FEATURES = [
  "Unlimited paywalled files, links and text",
  "Files up to 5 GB, streamed worldwide",
  "Fixed price or pay-what-you-want",
  "Upsell and downsell funnels",
  "Real-time views, conversions and earnings",
  "Monthly payouts from $25",
];

const BLURBS = [
  {
    icon: Rocket,
    title: "Start in seconds",
    text: "Drop a file, set a price and share your link. Buyers pay by card without creating an account.",
  },
  {
    icon: TrendingUp,
    title: "Earn more per buyer",
    text: "One-click upsells after checkout typically raise revenue by 30-60%.",
  },
  {
    icon: ShieldCheck,
    title: "Safe for buyers",
    text: `Permanent access links and receipts by email. ${REFUND_POLICY.buyers}`,
  },
];

const FAQ = [
  {
    q: "How much does it cost?",
    a: "The Creator plan is free. We keep a 20% platform fee on each sale, so you keep 80%. Pro is $99/month with zero commission.",
  },
  // The one schedule this product runs, in the same words as the settings page (shared/payouts.ts).
  { q: "Who pays card processing and dispute fees?", a: FEES_POLICY },
  { q: "When do I get paid?", a: <PayoutScheduleList className="mt-1" /> },
  {
    q: "Do buyers need an account?",
    a: "No. Buyers pay by card and get a permanent access link on screen and by email.",
  },
  { q: "Can I cancel Pro?", a: `Yes. ${REFUND_POLICY.pro}` },
  { q: "What can I sell?", a: "Any digital file (images, videos, PDFs, documents and more), a private link, or text." },
];

export function PricingPage() {
  const { isAuthenticated } = useAuth();
  const plan = useSubscription();
  const start = isAuthenticated ? (
    <Button className="w-full" size="lg" asChild>
      <Link to="/">Go to Dashboard</Link>
    </Button>
  ) : (
    <Button className="w-full" size="lg" onClick={goToLogin}>
      Get Started Free
    </Button>
  );
  return (
    <AppShell>
      <section className="mx-auto max-w-5xl px-4 py-14 text-center">
        <h1 className="text-4xl font-extrabold tracking-tight sm:text-5xl">Simple, creator-first pricing</h1>
        <p className="mx-auto mt-4 max-w-2xl text-lg text-muted-foreground">Free to start. Pay only when you sell.</p>
      </section>
      <section className="mx-auto grid max-w-4xl gap-6 px-4 md:grid-cols-2">
        <Card className={plan.isPro ? undefined : "border-primary shadow-lg"}>
          <CardHeader>
            <CardTitle className="text-xl">Creator</CardTitle>
            <CardDescription>Everything you need to sell</CardDescription>
            <p className="mt-4 text-4xl font-extrabold">
              Free <span className="text-base font-medium text-muted-foreground">+ 20% platform fee</span>
            </p>
          </CardHeader>
          <CardContent>
            <ul className="space-y-2 text-sm">
              {CREATOR_FEATURES.map((f) => (
                <li key={f} className="flex gap-2">
                  <Check className="size-4 shrink-0 text-emerald-600" /> {f}
                </li>
              ))}
            </ul>
          </CardContent>
          <CardFooter>{start}</CardFooter>
        </Card>
        <Card className={plan.isPro ? "border-emerald-500 shadow-lg" : undefined} data-testid="pro-plan-card">
          <CardHeader>
            <CardTitle className="flex flex-wrap items-center gap-2 text-xl">
              <Crown className="size-5 text-amber-500" /> Pro
              {plan.isPro && (
                <span className="rounded-full bg-emerald-100 px-2.5 py-0.5 text-sm font-semibold text-emerald-800">
                  {ON_PRO}
                </span>
              )}
            </CardTitle>
            <CardDescription>For creators selling every day</CardDescription>
            <p className="mt-4 text-4xl font-extrabold">
              $99 <span className="text-base font-medium text-muted-foreground">/month · zero commission</span>
            </p>
          </CardHeader>
          <CardContent>
            <ul className="space-y-2 text-sm">
              {["Keep 100% of every sale", "Everything in Creator", "Cancel anytime"].map((f) => (
                <li key={f} className="flex gap-2">
                  <Check className="size-4 shrink-0 text-emerald-600" /> {f}
                </li>
              ))}
            </ul>
          </CardContent>
          <CardFooter className="flex-col gap-2">
            {plan.isLoading ? (
              <Spinner className="size-6" />
            ) : plan.isPro && plan.data ? (
              <>
                {renewalText(plan.data) && <p className="text-sm text-muted-foreground">{renewalText(plan.data)}</p>}
                <Button className="w-full" size="lg" variant="outline" asChild>
                  <Link to="/settings">Manage subscription</Link>
                </Button>
              </>
            ) : (
              <Button className="w-full" size="lg" variant="outline" asChild>
                <Link to="/subscribe">Upgrade to Pro</Link>
              </Button>
            )}
          </CardFooter>
        </Card>
      </section>
      <section className="mx-auto grid max-w-5xl gap-8 px-4 py-16 md:grid-cols-3">
        {BLURBS.map(({ icon: Icon, title, text }) => (
          <div key={title} className="space-y-2 text-center">
            <div className="mx-auto flex size-11 items-center justify-center rounded-xl bg-accent text-primary">
              <Icon className="size-5" />
            </div>
            <h3 className="font-semibold">{title}</h3>
            <p className="text-sm text-muted-foreground">{text}</p>
          </div>
        ))}
      </section>
      <section className="mx-auto max-w-3xl px-4 pb-20">
        <h2 className="mb-6 text-center text-2xl font-bold">Frequently asked questions</h2>
        <div className="space-y-3">
          {FAQ.map(({ q, a }) => (
            <details key={q} className="group rounded-lg border bg-card px-4 py-3">
              <summary className="cursor-pointer list-none font-medium">{q}</summary>
              <div className="mt-2 text-sm text-muted-foreground">{a}</div>
            </details>
          ))}
        </div>
      </section>
    </AppShell>
  );
}
