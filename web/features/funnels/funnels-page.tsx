// /funnels (spec §2 Funnels page), the funnels' one home: the creator's funnels, each with its
// status, Test/Live switch and preview, its steps (and per-step figures), the items it is shown
// after buying, and the A/B tests of its offers (./ab-tests-tab.tsx). Behaviour: docs/funnels.md.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Eye, Plus, Workflow } from "lucide-react";
import { useState, type FormEvent } from "react";
import { createFunnelSchema, type Funnel } from "@shared/funnels";
import type { CurrentUser } from "@shared/auth";
import { FieldError, FORM, useFieldErrors } from "@/components/field-error";
import { EmptyState } from "@/components/empty-state";
import { PageSpinner, Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/components/ui/dialog";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { CreatorTopBar } from "@/features/shell/creator-top-bar";
import { toast } from "@/hooks/use-toast";
import { queryKeys } from "@/lib/query-keys";
import { formatDollars } from "@shared/money";
import { cn } from "@/lib/utils";
import { AbTestsTab } from "./ab-tests-tab";
import { AddStep } from "./add-step";
import { attachProducts, createFunnel, detachProduct } from "./api";
import { FunnelStatusBadge, TestLiveToggle } from "./funnel-status";
import { StepList } from "./step-list";
import { useFunnels, useFunnelSteps, useMyItems } from "./queries";

/** What a funnel is, in the creator's words; the empty page says it. */
const FUNNEL_IS =
  "A funnel says: “After someone buys one of these items, show them these offers.” Create one, choose the items it is shown after, add its offers, then switch it to Live.";

function CreateFunnelDialog({
  open,
  onOpenChange,
  onCreated,
}: {
  open: boolean;
  onOpenChange: (o: boolean) => void;
  onCreated: (f: Funnel) => void;
}) {
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const fe = useFieldErrors("funnel");
  const create = useMutation({
    mutationFn: (input: { name: string }) => createFunnel(input.name),
    onSuccess: async (funnel) => {
      toast({ title: "Success", description: "Funnel created successfully!" });
      await queryClient.invalidateQueries({ queryKey: queryKeys.funnels });
      setName("");
      onOpenChange(false);
      onCreated(funnel);
    },
    onError: (err) => {
      if (!fe.fromServer(err, ["name"])) toast({ title: "Failed to create funnel", variant: "destructive" });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    // Beside the field, in the spec's words (the route's schema).
    const parsed = fe.check(createFunnelSchema, { name });
    if (parsed) create.mutate(parsed);
  };
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <form onSubmit={submit} className="space-y-4" noValidate>
          <DialogHeader>
            <DialogTitle>Create Funnel</DialogTitle>
          </DialogHeader>
          <div className="space-y-1.5">
            <Label htmlFor="funnel-name">Funnel name</Label>
            <Input
              id="funnel-name"
              value={name}
              onChange={(e) => {
                setName(e.target.value);
                fe.clear("name", FORM);
              }}
              maxLength={200}
              autoFocus
              {...fe.field("name")}
            />
            <FieldError of={fe} name="name" />
            <FieldError of={fe} name={FORM} />
          </div>
          <DialogFooter>
            <Button type="submit" disabled={create.isPending}>
              {create.isPending && <Spinner className="size-4 text-white" />} Create Funnel
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

function StepsTab({ funnel }: { funnel: Funnel }) {
  const steps = useFunnelSteps(funnel.id);
  const [adding, setAdding] = useState(false);
  return (
    <div className="space-y-4">
      <div className="flex items-center justify-between">
        <h3 className="font-semibold">Upsell Steps</h3>
        <Button size="sm" onClick={() => setAdding(true)}>
          <Plus /> Add Step
        </Button>
      </div>
      {steps.isLoading ? (
        <Spinner />
      ) : steps.error ? (
        <p className="text-sm text-destructive">Could not load the steps. Please refresh.</p>
      ) : !steps.data?.length ? (
        <p className="rounded-lg border border-dashed p-6 text-center text-sm text-muted-foreground">
          No steps yet. Add the first offer buyers see after paying.
        </p>
      ) : (
        <StepList funnelId={funnel.id} steps={steps.data} detailed />
      )}
      <Dialog open={adding} onOpenChange={setAdding}>
        <DialogContent className="max-h-[90vh] overflow-y-auto">
          <DialogHeader>
            <DialogTitle>Add Step</DialogTitle>
            <DialogDescription>
              Offer one of your items, or make a new one for this step. Buyers take it with one click after paying.
            </DialogDescription>
          </DialogHeader>
          <AddStep
            funnel={funnel}
            count={steps.data?.length ?? 0}
            onAdded={() => setAdding(false)}
            failureTitle="Failed to create upsell step"
          />
        </DialogContent>
      </Dialog>
    </div>
  );
}

/** The items the funnel is shown after buying; an item one of its steps offers cannot be one of them. */
function ShowAfterTab({ funnel }: { funnel: Funnel }) {
  const queryClient = useQueryClient();
  const items = useMyItems();
  const steps = useFunnelSteps(funnel.id);
  const offeredIn = new Map((steps.data ?? []).flatMap((s) => (s.contentId ? [[s.contentId, s.stepOrder]] : [])));
  // The box follows the click at once; a failure puts it back.
  const [shown, setShown] = useState<Record<string, boolean>>({});
  const toggle = useMutation({
    mutationFn: ({ id, on }: { id: string; on: boolean }) =>
      on ? attachProducts(funnel.id, [id]) : detachProduct(funnel.id, id),
    onMutate: ({ id, on }) => setShown((s) => ({ ...s, [id]: on })),
    onError: (err, { id, on }) => {
      setShown((s) => ({ ...s, [id]: !on }));
      const reason = err instanceof Error && /^400: /.test(err.message) ? err.message.slice(5) : undefined;
      toast({ title: "Failed to attach product to funnel", description: reason, variant: "destructive" });
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.funnels }),
  });
  if (items.isLoading || steps.isLoading) return <Spinner />;
  if (items.error) return <p className="text-sm text-destructive">Could not load your content. Please refresh.</p>;
  if (!items.data?.length)
    return (
      <p className="text-sm text-muted-foreground">No content yet. Upload something to sell it with this funnel.</p>
    );
  return (
    <div className="space-y-3">
      <p className="text-sm text-muted-foreground">
        After someone buys one of the items ticked here, they are shown this funnel's offers.
      </p>
      <ul className="divide-y rounded-xl border bg-card">
        {items.data.map((item) => {
          const on = shown[item.id] ?? funnel.contentIds.includes(item.id);
          const step = offeredIn.get(item.id);
          return (
            <li
              key={item.id}
              className="flex flex-wrap items-center gap-x-3 gap-y-1 px-4 py-3"
              data-testid={`product-${item.id}`}
            >
              <input
                type="checkbox"
                id={`product-${item.id}`}
                className="size-4 accent-primary"
                checked={on}
                disabled={toggle.isPending || (step !== undefined && !on)}
                aria-describedby={step !== undefined ? `product-${item.id}-offered` : undefined}
                onChange={(e) => toggle.mutate({ id: item.id, on: e.target.checked })}
              />
              <label
                htmlFor={`product-${item.id}`}
                className={cn("min-w-0 flex-1 font-medium break-words", step !== undefined && "text-muted-foreground")}
              >
                {item.title}
              </label>
              {step !== undefined && (
                <span id={`product-${item.id}-offered`} className="text-xs text-muted-foreground">
                  Offered in step {step}
                </span>
              )}
              <span className="text-sm text-muted-foreground">{formatDollars(item.price)}</span>
            </li>
          );
        })}
      </ul>
    </div>
  );
}

export function FunnelsPage({ user }: { user: CurrentUser }) {
  const funnels = useFunnels();
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const selected = funnels.data?.find((f) => f.id === selectedId);
  return (
    <div className="min-h-screen bg-muted/30">
      <CreatorTopBar user={user} />
      <main className="mx-auto max-w-6xl px-4 py-8">
        <div className="mb-6 flex items-center justify-between">
          <h1 className="text-2xl font-bold">Sales Funnels</h1>
          {/* With no funnels yet, the empty state's own Create Funnel is the one button. */}
          {!!funnels.data?.length && (
            <Button onClick={() => setCreating(true)}>
              <Plus /> Create Funnel
            </Button>
          )}
        </div>
        {funnels.isLoading ? (
          <PageSpinner />
        ) : funnels.error ? (
          <p className="text-destructive">Could not load your funnels. Please refresh the page.</p>
        ) : !funnels.data?.length ? (
          <div data-testid="funnels-empty">
            <EmptyState
              icon={Workflow}
              title="No funnels yet"
              text={FUNNEL_IS}
              action={
                <Button onClick={() => setCreating(true)}>
                  <Plus /> Create Funnel
                </Button>
              }
            />
          </div>
        ) : (
          <div className="grid grid-cols-1 gap-6 md:grid-cols-[280px_minmax(0,1fr)]">
            <Card>
              <CardContent className="space-y-1 p-2">
                {funnels.data.map((f) => (
                  <button
                    key={f.id}
                    type="button"
                    onClick={() => setSelectedId(f.id)}
                    className={cn(
                      "flex w-full items-center justify-between rounded-lg px-3 py-2 text-left text-sm hover:bg-muted",
                      f.id === selectedId && "bg-accent",
                    )}
                    data-testid="funnel-item"
                  >
                    <span className="truncate font-medium">{f.name}</span>
                    <FunnelStatusBadge funnel={f} />
                  </button>
                ))}
              </CardContent>
            </Card>
            {!selected ? (
              <Card>
                <CardContent className="flex flex-col items-center gap-3 py-16 text-center text-muted-foreground">
                  <Workflow className="size-10" />
                  <p>Select a funnel to get started</p>
                </CardContent>
              </Card>
            ) : (
              <Card>
                <CardContent className="space-y-4">
                  <div className="flex flex-wrap items-center gap-x-3 gap-y-2" data-testid="funnel-header">
                    <h2 className="min-w-0 text-xl font-semibold [overflow-wrap:anywhere]">{selected.name}</h2>
                    <FunnelStatusBadge funnel={selected} />
                    <div className="flex flex-wrap items-center gap-2">
                      <TestLiveToggle funnel={selected} />
                      <Button variant="outline" size="sm" asChild>
                        <a href={`/checkout/upsell?preview=${selected.id}`} target="_blank" rel="noopener">
                          <Eye /> Preview
                        </a>
                      </Button>
                    </div>
                  </div>
                  <Tabs defaultValue="steps" key={selected.id}>
                    <TabsList className="h-auto max-w-full flex-wrap justify-start">
                      <TabsTrigger value="steps" className="h-8">
                        Upsell Steps
                      </TabsTrigger>
                      <TabsTrigger value="products" className="h-8">
                        Show after buying
                      </TabsTrigger>
                      <TabsTrigger value="ab-tests" className="h-8">
                        A/B Tests
                      </TabsTrigger>
                    </TabsList>
                    <TabsContent value="steps" className="pt-4">
                      <StepsTab funnel={selected} />
                    </TabsContent>
                    <TabsContent value="products" className="pt-4">
                      <ShowAfterTab funnel={selected} />
                    </TabsContent>
                    <TabsContent value="ab-tests" className="pt-4">
                      <AbTestsTab funnel={selected} />
                    </TabsContent>
                  </Tabs>
                </CardContent>
              </Card>
            )}
          </div>
        )}
      </main>
      <CreateFunnelDialog open={creating} onOpenChange={setCreating} onCreated={(f) => setSelectedId(f.id)} />
    </div>
  );
}
