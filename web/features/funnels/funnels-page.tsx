// /funnels (spec §2 Funnels page): the creator's funnels, each with its steps (and per-step
// figures), the items it is sold with, and the A/B tests of its offers (./ab-tests-tab.tsx).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Plus, Workflow } from "lucide-react";
import { useState, type FormEvent } from "react";
import { createFunnelSchema, FUNNEL_STATUS_LABEL, type Funnel } from "@shared/funnels";
import type { CurrentUser } from "@shared/auth";
import { FieldError, FORM, useFieldErrors } from "@/components/field-error";
import { PageSpinner, Spinner } from "@/components/spinner";
import { Badge } from "@/components/ui/badge";
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
import { StepList } from "./step-list";
import { useFunnels, useFunnelSteps, useMyItems } from "./queries";

/** The one status a funnel shows, here and in its editor: Test (previews only) or Live (buyers see it). */
export function FunnelStatusBadge({ funnel }: { funnel: Funnel }) {
  return (
    <Badge
      variant={funnel.status === "live" ? "default" : "outline"}
      className={funnel.status === "live" ? "bg-emerald-600 text-white" : "border-amber-400 text-amber-800"}
      data-testid="funnel-status"
    >
      {FUNNEL_STATUS_LABEL[funnel.status]}
    </Badge>
  );
}

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

function ProductsTab({ funnel }: { funnel: Funnel }) {
  const queryClient = useQueryClient();
  const items = useMyItems();
  // The box follows the click at once; a failure puts it back.
  const [shown, setShown] = useState<Record<string, boolean>>({});
  const toggle = useMutation({
    mutationFn: ({ id, on }: { id: string; on: boolean }) =>
      on ? attachProducts(funnel.id, [id]) : detachProduct(funnel.id, id),
    onMutate: ({ id, on }) => setShown((s) => ({ ...s, [id]: on })),
    onError: (_e, { id, on }) => {
      setShown((s) => ({ ...s, [id]: !on }));
      toast({ title: "Failed to attach product to funnel", variant: "destructive" });
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.funnels }),
  });
  if (items.isLoading) return <Spinner />;
  if (items.error) return <p className="text-sm text-destructive">Could not load your content. Please refresh.</p>;
  if (!items.data?.length)
    return (
      <p className="text-sm text-muted-foreground">No content yet. Upload something to sell it with this funnel.</p>
    );
  return (
    <ul className="divide-y rounded-xl border bg-card">
      {items.data.map((item) => {
        const on = shown[item.id] ?? funnel.contentIds.includes(item.id);
        return (
          <li key={item.id} className="flex items-center gap-3 px-4 py-3">
            <input
              type="checkbox"
              id={`product-${item.id}`}
              className="size-4 accent-primary"
              checked={on}
              disabled={toggle.isPending}
              onChange={(e) => toggle.mutate({ id: item.id, on: e.target.checked })}
            />
            <label htmlFor={`product-${item.id}`} className="flex-1 font-medium">
              {item.title}
            </label>
            <span className="text-sm text-muted-foreground">{formatDollars(item.price)}</span>
          </li>
        );
      })}
    </ul>
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
          <Button onClick={() => setCreating(true)}>
            <Plus /> Create Funnel
          </Button>
        </div>
        {funnels.isLoading ? (
          <PageSpinner />
        ) : funnels.error ? (
          <p className="text-destructive">Could not load your funnels. Please refresh the page.</p>
        ) : (
          <div className="grid grid-cols-1 gap-6 md:grid-cols-[280px_minmax(0,1fr)]">
            <Card>
              <CardContent className="space-y-1 p-2">
                {!funnels.data?.length ? (
                  <p className="p-4 text-center text-sm text-muted-foreground">No funnels yet</p>
                ) : (
                  funnels.data.map((f) => (
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
                  ))
                )}
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
                  <div className="flex items-center gap-2">
                    <h2 className="min-w-0 break-words text-xl font-semibold">{selected.name}</h2>
                    <FunnelStatusBadge funnel={selected} />
                  </div>
                  <Tabs defaultValue="steps" key={selected.id}>
                    <TabsList>
                      <TabsTrigger value="steps">Upsell Steps</TabsTrigger>
                      <TabsTrigger value="products">Products</TabsTrigger>
                      <TabsTrigger value="ab-tests">A/B Tests</TabsTrigger>
                    </TabsList>
                    <TabsContent value="steps" className="pt-4">
                      <StepsTab funnel={selected} />
                    </TabsContent>
                    <TabsContent value="products" className="pt-4">
                      <ProductsTab funnel={selected} />
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
