import { Link, useNavigate } from "@tanstack/react-router";
import { Plus } from "lucide-react";
import { useEffect, useState } from "react";
import type { CurrentUser } from "@shared/auth";
import { Button } from "@/components/ui/button";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { AnalyticsPanel } from "@/features/analytics/analytics-panel";
import { CreatorTopBar } from "@/features/shell/creator-top-bar";
import { ContentList } from "@/features/content/content-list";
import { useAuth } from "@/lib/auth";
import { peekPendingUpload } from "@/lib/pending-upload";
import { PayoutBanner } from "./payout-banner";
import { SalesTable } from "./sales-table";
import { StatCards } from "./stat-cards";
import { useSubscriptionReturn } from "./use-subscription-return";

export function DashboardPage({ user }: { user: CurrentUser }) {
  const navigate = useNavigate();
  const [tab, setTab] = useState<"content" | "sales">("content");
  // The server decides: only the session whose sign-in made the account is a first visit.
  const { firstSignIn } = useAuth();

  useSubscriptionReturn();

  // A visitor who picked something on the landing continues to the upload page after signing in.
  useEffect(() => {
    if (peekPendingUpload()) navigate({ to: "/upload", replace: true });
  }, [navigate]);

  return (
    <div className="min-h-screen bg-muted/30">
      <CreatorTopBar user={user} />
      <main className="mx-auto max-w-6xl space-y-6 px-4 py-8">
        <div className="flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
          <div>
            <h1 className="text-3xl font-bold tracking-tight">
              {firstSignIn ? "Welcome" : "Welcome back"}
              {user.firstName ? `, ${user.firstName}` : ""}
            </h1>
            <p className="text-muted-foreground">Your content, sales and earnings at a glance.</p>
          </div>
          <Button variant="brand" asChild>
            <Link to="/upload">
              <Plus /> New content
            </Link>
          </Button>
        </div>
        <PayoutBanner user={user} />
        <StatCards />
        <AnalyticsPanel />
        <Tabs value={tab} onValueChange={(v) => setTab(v as "content" | "sales")}>
          <TabsList>
            <TabsTrigger value="content">Content & Uploads</TabsTrigger>
            <TabsTrigger value="sales">Sales & Buyers</TabsTrigger>
          </TabsList>
          <TabsContent value="content" className="mt-4">
            <ContentList />
          </TabsContent>
          <TabsContent value="sales" className="mt-4">
            {tab === "sales" && <SalesTable />}
          </TabsContent>
        </Tabs>
      </main>
    </div>
  );
}
