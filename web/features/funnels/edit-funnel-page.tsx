// /content/{contentId}/edit-funnel (spec §2 Edit funnel page, §4, §7 add-step flow): the item's
// funnel, its Test/Live switch, preview, steps, and 'Add New Funnel Step'.
import { Link } from "@tanstack/react-router";
import { ArrowLeft, Eye, Workflow } from "lucide-react";
import type { Funnel } from "@shared/funnels";
import type { CurrentUser } from "@shared/auth";
import { PageSpinner, Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { CreatorTopBar } from "@/features/shell/creator-top-bar";
import { MessageScreen } from "@/features/shell/guard-screens";
import { AddStep } from "./add-step";
import { FunnelStatusBadge, TestLiveToggle } from "./funnel-status";
import { StepList } from "./step-list";
import { useFunnelForItem, useFunnels, useFunnelSteps, useMyItems } from "./queries";

function AddStepForm({ funnel, count }: { funnel: Funnel; count: number }) {
  return (
    <Card>
      <CardHeader>
        <CardTitle>Add New Funnel Step</CardTitle>
        <CardDescription>
          Buyers see it right after paying, and take it with one click on the card they just used.
        </CardDescription>
      </CardHeader>
      <CardContent>
        <AddStep funnel={funnel} count={count} failureTitle="Failed to add upsell step" />
      </CardContent>
    </Card>
  );
}

export function EditFunnelPage({ user, contentId }: { user: CurrentUser; contentId: string }) {
  const items = useMyItems();
  // 'Edit funnel' on any item opens its funnel, made for it (in Test) if it has none; asking twice is one funnel.
  const item = items.data?.find((i) => i.id === contentId);
  // Only for an item the creator has (a wrong or deleted id makes nothing).
  const opened = useFunnelForItem(contentId, !!item);
  const funnels = useFunnels({ enabled: opened.isSuccess });
  // The list is the live copy (the Test/Live switch refreshes it); the opened funnel until it has loaded.
  const funnel = funnels.data?.find((f) => f.id === opened.data?.id) ?? opened.data;
  const steps = useFunnelSteps(funnel?.id ?? "", { enabled: !!funnel });

  if (items.isLoading || (item && opened.isLoading)) return <PageSpinner />;
  if (items.error || (opened.error && !/^404: /.test(opened.error.message)))
    return (
      <MessageScreen
        icon={<Workflow className="size-7" />}
        title="Something went wrong"
        message="Could not load this funnel. Please refresh the page."
      />
    );
  if (!item || !funnel)
    return (
      <MessageScreen
        icon={<Workflow className="size-7" />}
        title="No Funnel Found"
        message="This content has no funnel: it may have been deleted."
        action={
          <Button asChild>
            <Link to="/funnels">Go to Funnels</Link>
          </Button>
        }
      />
    );

  return (
    <div className="min-h-screen bg-muted/30">
      <CreatorTopBar user={user} />
      <main className="mx-auto max-w-4xl space-y-6 px-4 py-8">
        <Link to="/" className="inline-flex items-center gap-1 text-sm text-muted-foreground hover:text-foreground">
          <ArrowLeft className="size-4" /> Back to dashboard
        </Link>
        <div className="space-y-1">
          <h1 className="text-2xl font-bold">Edit Sales Funnel</h1>
          <p className="text-muted-foreground [overflow-wrap:anywhere]">Managing funnel for "{item.title}"</p>
        </div>
        <Card>
          {/* The name takes its own line when it needs it: the switch and Preview wrap below, never over it. */}
          <CardContent className="flex flex-wrap items-center gap-x-4 gap-y-3">
            <div className="min-w-0 grow basis-56">
              <p className="text-sm text-muted-foreground">Funnel</p>
              <div className="flex flex-wrap items-center gap-2">
                <p className="min-w-0 font-semibold [overflow-wrap:anywhere]" data-testid="funnel-name">
                  {funnel.name}
                </p>
                <FunnelStatusBadge funnel={funnel} />
              </div>
            </div>
            <div className="flex flex-wrap items-center gap-2">
              <TestLiveToggle funnel={funnel} />
              <Button variant="outline" onClick={() => window.open(`/paywall/${contentId}?preview=1`, "_blank")}>
                <Eye /> Preview Funnel
              </Button>
            </div>
          </CardContent>
        </Card>
        <section className="space-y-3">
          <h2 className="text-lg font-semibold">Funnel Steps</h2>
          {steps.isLoading ? (
            <Spinner />
          ) : steps.error ? (
            <p className="text-sm text-destructive">Could not load the steps. Please refresh.</p>
          ) : !steps.data?.length ? (
            <p className="rounded-lg border border-dashed p-6 text-center text-sm text-muted-foreground">
              No steps yet. Add the first offer below.
            </p>
          ) : (
            <StepList funnelId={funnel.id} steps={steps.data} />
          )}
        </section>
        <AddStepForm funnel={funnel} count={steps.data?.length ?? 0} />
      </main>
    </div>
  );
}
