// /funnels (spec §2 Funnels page): the creator's funnels, each with its steps (and per-step
// figures), the items it is sold with, and A/B tests (coming soon).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Plus, Workflow } from "lucide-react";
import { useState, type FormEvent } from "react";
import type { CreatorContent } from "@shared/content";
import { FUNNEL_MESSAGES, type Funnel, type FunnelStep } from "@shared/funnels";
import type { CurrentUser } from "@shared/schemas";
import { PageSpinner, Spinner } from "@/components/spinner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { Dialog, DialogContent, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { CreatorTopBar } from "@/features/shell/creator-top-bar";
import { toast } from "@/hooks/use-toast";
import { getQueryFn } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { cn, formatUsd } from "@/lib/utils";
import { attachProducts, createFunnel, createStep, detachProduct, funnelKeys } from "./api";
import { StepDialog, StepList } from "./step-list";

export function CreateFunnelDialog({ open, onOpenChange, onCreated }: { open: boolean; onOpenChange: (o: boolean) => void; onCreated: (f: Funnel) => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const create = useMutation({
    mutationFn: () => createFunnel(name.trim()),
    onSuccess: async (funnel) => {
      toast({ title: "Success", description: "Funnel created successfully!" });
      await queryClient.invalidateQueries({ queryKey: funnelKeys.all });
      setName("");
      onOpenChange(false);
      onCreated(funnel);
    },
    onError: () => toast({ title: "Failed to create funnel", variant: "destructive" }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) return toast({ title: FUNNEL_MESSAGES.funnelName, variant: "destructive" });
    create.mutate();
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
            <Input id="funnel-name" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} autoFocus />
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
  const steps = useQuery<FunnelStep[]>({ queryKey: funnelKeys.steps(funnel.id), queryFn: getQueryFn({ on401: "throw" }) });
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
        <p className="rounded-lg border border-dashed p-6 text-center text-sm text-muted-foreground">No steps yet. Add the first offer buyers see after paying.</p>
      ) : (
        <StepList funnelId={funnel.id} steps={steps.data} detailed />
      )}
      <StepDialog
        funnelId={funnel.id}
        open={adding}
        onOpenChange={setAdding}
        onSave={(fields) => createStep(funnel.id, { ...fields, stepOrder: (steps.data?.length ?? 0) + 1 })}
      />
    </div>
  );
}

function ProductsTab({ funnel }: { funnel: Funnel }) {
  const queryClient = useQueryClient();
  const items = useQuery<CreatorContent[]>({ queryKey: queryKeys.contentList, queryFn: getQueryFn({ on401: "throw" }) });
  // The box follows the click at once; a failure puts it back.
  const [shown, setShown] = useState<Record<string, boolean>>({});
  const toggle = useMutation({
    mutationFn: ({ id, on }: { id: string; on: boolean }) => (on ? attachProducts(funnel.id, [id]) : detachProduct(funnel.id, id)),
    onMutate: ({ id, on }) => setShown((s) => ({ ...s, [id]: on })),
    onError: (_e, { id, on }) => {
      setShown((s) => ({ ...s, [id]: !on }));
      toast({ title: "Failed to attach product to funnel", variant: "destructive" });
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: funnelKeys.all }),
  });
  if (items.isLoading) return <Spinner />;
  if (items.error) return <p className="text-sm text-destructive">Could not load your content. Please refresh.</p>;
  if (!items.data?.length) return <p className="text-sm text-muted-foreground">No content yet. Upload something to sell it with this funnel.</p>;
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
            <span className="text-sm text-muted-foreground">{formatUsd(item.price)}</span>
          </li>
        );
      })}
    </ul>
  );
}

function AbTestsTab({ funnel }: { funnel: Funnel }) {
  // Fetched as the spec says; nothing uses it yet.
  useQuery({ queryKey: funnelKeys.abTests(funnel.id), queryFn: getQueryFn({ on401: "throw" }) });
  return <p className="rounded-lg border border-dashed p-6 text-center text-sm text-muted-foreground">A/B testing is coming soon.</p>;
}

export function FunnelsPage({ user }: { user: CurrentUser }) {
  const funnels = useQuery<Funnel[]>({ queryKey: funnelKeys.all, queryFn: getQueryFn({ on401: "throw" }) });
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
          <div className="grid gap-6 md:grid-cols-[280px_1fr]">
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
                      className={cn("flex w-full items-center justify-between rounded-lg px-3 py-2 text-left text-sm hover:bg-muted", f.id === selectedId && "bg-accent")}
                      data-testid="funnel-item"
                    >
                      <span className="truncate font-medium">{f.name}</span>
                      <Badge variant={f.isActive ? "default" : "secondary"}>{f.isActive ? "Active" : "Inactive"}</Badge>
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
                    <h2 className="text-xl font-semibold">{selected.name}</h2>
                    <Badge variant="outline">{selected.testMode ? "Test" : "Live"}</Badge>
                  </div>
                  <Tabs defaultValue="steps" key={selected.id}>
                    <TabsList>
                      <TabsTrigger value="steps">Upsell Steps</TabsTrigger>
                      <TabsTrigger value="products">Products</TabsTrigger>
                      <TabsTrigger value="ab">A/B Tests</TabsTrigger>
                    </TabsList>
                    <TabsContent value="steps" className="pt-4">
                      <StepsTab funnel={selected} />
                    </TabsContent>
                    <TabsContent value="products" className="pt-4">
                      <ProductsTab funnel={selected} />
                    </TabsContent>
                    <TabsContent value="ab" className="pt-4">
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
