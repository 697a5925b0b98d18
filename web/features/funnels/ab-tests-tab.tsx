// The funnel page's "A/B Tests" tab: start a test of a step's offer (variant B's title,
// description, button text and price), see each variant's figures side by side with bars, the
// plain-language readout of how sure the result is, and end it: 'Make B the step' or keep A.
// Variant B's fields start empty, their hints (muted, italic) naming what variant A says.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { FlaskConical } from "lucide-react";
import { useState, type FormEvent } from "react";
import { createAbTestSchema, type AbTest, type AbVariantFigures } from "@shared/ab-tests";
import type { Funnel, FunnelStep } from "@shared/funnels";
import { FieldError, FORM, useFieldErrors } from "@/components/field-error";
import { SectionSpinner, Spinner } from "@/components/spinner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Textarea } from "@/components/ui/textarea";
import { toast } from "@/hooks/use-toast";
import { api, withoutStatus } from "@/lib/api";
import { formatDollars } from "@shared/money";
import { LoadFailed } from "@/components/load-failed";
import { queryKeys } from "@/lib/query-keys";
import { TestModeNotice, testModeDescription } from "./funnel-status";
import { useAbTests, useFunnelSteps } from "./queries";

const SELECT =
  "h-9 w-full rounded-md border border-input bg-transparent px-3 text-sm shadow-xs outline-none focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50";
type Form = { stepId: string; title: string; description: string; ctaText: string; price: string };
/** A hint, not a value: lighter and slanted, so an empty field never reads as filled in. */
const HINT = "placeholder:italic placeholder:text-muted-foreground/70";
const saysA = (text: string) => `Variant A says “${text}”`;

function StartTest({ funnel, steps, busySteps }: { funnel: Funnel; steps: FunnelStep[]; busySteps: Set<string> }) {
  const queryClient = useQueryClient();
  const free = steps.filter((s) => !busySteps.has(s.id));
  const [form, setForm] = useState<Form>({
    stepId: free[0]?.id ?? "",
    title: "",
    description: "",
    ctaText: "",
    price: "",
  });
  const fe = useFieldErrors("ab");
  const set = (k: keyof Form) => (v: string) => {
    setForm((f) => ({ ...f, [k]: v }));
    fe.clear(k);
  };
  const start = useMutation({
    mutationFn: async (body: Form) => api("POST /api/funnels/:id/ab-tests", { params: { id: funnel.id }, body }),
    onSuccess: async () => {
      toast({ title: "Test started", description: testModeDescription(funnel, "Half the buyers now see variant B.") });
      setForm((f) => ({ ...f, title: "", description: "", ctaText: "", price: "" }));
      await queryClient.invalidateQueries({ queryKey: queryKeys.funnelAbTests(funnel.id) });
    },
    onError: (err) => {
      if (!fe.fromServer(err, ["stepId", "title", "description", "ctaText", "price"]))
        fe.set(FORM, withoutStatus((err as Error).message));
    },
  });
  if (free.length === 0)
    return <p className="text-sm text-muted-foreground">Every step has a test running. End one to start another.</p>;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (fe.check(createAbTestSchema, form)) start.mutate(form);
  };
  const step = steps.find((s) => s.id === form.stepId);
  return (
    <form
      onSubmit={submit}
      noValidate
      className="grid gap-3 rounded-lg border p-4 sm:grid-cols-2"
      aria-label="Start an A/B test"
    >
      <div className="space-y-1.5 sm:col-span-2">
        <Label htmlFor="ab-step">Step to test</Label>
        <select id="ab-step" className={SELECT} value={form.stepId} onChange={(e) => set("stepId")(e.target.value)}>
          {free.map((s) => (
            <option key={s.id} value={s.id}>
              {s.stepOrder}. {s.title}
            </option>
          ))}
        </select>
        {step && (
          <p className="text-xs text-muted-foreground">
            Variant A is the step as it is: “{step.title}”{step.price !== null ? `, ${formatDollars(step.price)}` : ""}.
          </p>
        )}
      </div>
      <div className="space-y-1.5">
        <Label htmlFor="ab-title">Variant B title</Label>
        <Input
          id="ab-title"
          value={form.title}
          onChange={(e) => set("title")(e.target.value)}
          placeholder={step ? saysA(step.title) : undefined}
          className={HINT}
          {...fe.field("title")}
        />
        <FieldError of={fe} name="title" />
      </div>
      <div className="space-y-1.5">
        <Label htmlFor="ab-cta">Variant B button text</Label>
        <Input
          id="ab-cta"
          value={form.ctaText}
          onChange={(e) => set("ctaText")(e.target.value)}
          placeholder={step ? saysA(step.ctaText) : undefined}
          className={HINT}
          {...fe.field("ctaText")}
        />
        <FieldError of={fe} name="ctaText" />
      </div>
      <div className="space-y-1.5 sm:col-span-2">
        <Label htmlFor="ab-description">Variant B description</Label>
        <Textarea
          id="ab-description"
          rows={2}
          value={form.description}
          onChange={(e) => set("description")(e.target.value)}
          placeholder={step ? (step.description ? saysA(step.description) : "Variant A has no description") : undefined}
          className={HINT}
          {...fe.field("description")}
        />
        <FieldError of={fe} name="description" />
      </div>
      <div className="space-y-1.5">
        <Label htmlFor="ab-price">Variant B price (optional)</Label>
        <Input
          id="ab-price"
          inputMode="decimal"
          value={form.price}
          onChange={(e) => set("price")(e.target.value)}
          placeholder={step?.price != null ? `Same as A (${formatDollars(step.price)})` : "Same as A"}
          className={HINT}
          {...fe.field("price")}
        />
        <FieldError of={fe} name="price" />
      </div>
      <div className="flex items-end gap-3">
        <Button type="submit" variant="brand" disabled={start.isPending}>
          {start.isPending ? <Spinner className="size-4 text-white" /> : <FlaskConical />}
          Start test
        </Button>
        <FieldError of={fe} name={FORM} />
      </div>
    </form>
  );
}

function VariantColumn({ v, best }: { v: AbVariantFigures; best: number }) {
  const width = best > 0 ? Math.max(2, Math.round((v.acceptanceRate / best) * 100)) : 2;
  return (
    <div className="min-w-0 space-y-2 rounded-lg border p-3" data-testid={`ab-variant-${v.variant}`}>
      <p className="flex items-center gap-2 font-semibold">
        <span className="flex size-6 items-center justify-center rounded-full bg-muted text-xs">{v.variant}</span>
        <span className="truncate">{v.title}</span>
      </p>
      <p className="text-sm text-muted-foreground">
        {formatDollars(v.price)} · “{v.ctaText}”
      </p>
      <div className="h-3 w-full rounded bg-muted" aria-hidden>
        <div
          className={`h-3 rounded ${v.variant === "A" ? "bg-slate-500" : "bg-violet-600"}`}
          style={{ width: `${width}%` }}
        />
      </div>
      <dl className="grid grid-cols-2 gap-x-3 gap-y-1 text-sm">
        <dt className="text-muted-foreground">Shown</dt>
        <dd data-testid={`ab-shown-${v.variant}`}>{v.shown}</dd>
        <dt className="text-muted-foreground">Accepted</dt>
        <dd>
          {v.accepted} ({Math.round(v.acceptanceRate * 1000) / 10}%)
        </dd>
        <dt className="text-muted-foreground">Revenue</dt>
        <dd>{formatDollars(v.revenue)}</dd>
        <dt className="text-muted-foreground">Per buyer shown</dt>
        <dd>{formatDollars(v.revenuePerBuyer)}</dd>
      </dl>
    </div>
  );
}

function TestCard({ funnel, test }: { funnel: Funnel; test: AbTest }) {
  const queryClient = useQueryClient();
  const end = useMutation({
    mutationFn: async (keep: "A" | "B") =>
      api("POST /api/funnels/:id/ab-tests/:testId/end", { params: { id: funnel.id, testId: test.id }, body: { keep } }),
    onSuccess: async (t) => {
      toast({
        title: "Test ended",
        description: t.winner === "B" ? "Variant B is now the step." : "The step stays as it was.",
      });
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.funnelAbTests(funnel.id) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.funnelSteps(funnel.id) }),
      ]);
    },
    onError: (err) =>
      toast({
        title: "Could not end the test",
        description: withoutStatus((err as Error).message),
        variant: "destructive",
      }),
  });
  const best = Math.max(...test.variants.map((v) => v.acceptanceRate));
  return (
    <li className="space-y-3 rounded-xl border bg-card p-4" data-testid="ab-test">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="min-w-0 font-medium">Step: {test.stepTitle}</p>
        <Badge
          variant="outline"
          className={test.status === "running" ? "border-violet-400 text-violet-800" : "text-muted-foreground"}
        >
          {test.status === "running" ? "Running" : `Ended · ${test.winner === "B" ? "B won" : "A kept"}`}
        </Badge>
      </div>
      <div className="grid gap-3 sm:grid-cols-2">
        {test.variants.map((v) => (
          <VariantColumn key={v.variant} v={v} best={best} />
        ))}
      </div>
      <p className="text-sm" role="status" data-testid="ab-readout">
        {test.readout}
      </p>
      {test.status === "running" && (
        <div className="flex flex-wrap gap-2">
          <Button variant="brand" size="sm" onClick={() => end.mutate("B")} disabled={end.isPending}>
            Make B the step
          </Button>
          <Button variant="outline" size="sm" onClick={() => end.mutate("A")} disabled={end.isPending}>
            End test, keep A
          </Button>
        </div>
      )}
    </li>
  );
}

export function AbTestsTab({ funnel }: { funnel: Funnel }) {
  const steps = useFunnelSteps(funnel.id);
  const tests = useAbTests(funnel.id);
  if (steps.isLoading || tests.isLoading) return <SectionSpinner />;
  if (steps.error || tests.error) {
    return (
      <LoadFailed
        what="the A/B tests"
        detail={withoutStatus((steps.error ?? tests.error)!.message)}
        onRetry={() => Promise.all([steps.refetch(), tests.refetch()])}
      />
    );
  }
  const running = new Set((tests.data ?? []).filter((t) => t.status === "running").map((t) => t.stepId));
  return (
    <div className="space-y-4">
      <TestModeNotice funnel={funnel} />
      <p className="text-sm text-muted-foreground">
        Test a second version of a step's offer. Buyers are split evenly and keep their version; each buyer is charged
        the price they were shown.
      </p>
      {(steps.data ?? []).length === 0 ? (
        <p className="text-sm text-muted-foreground">Add a step first, then test a second version of it here.</p>
      ) : (
        <StartTest key={[...running].join()} funnel={funnel} steps={steps.data!} busySteps={running} />
      )}
      {(tests.data ?? []).length === 0 ? (
        <p className="py-6 text-center text-muted-foreground">No A/B tests yet.</p>
      ) : (
        <ul className="space-y-3">
          {tests.data!.map((t) => (
            <TestCard key={t.id} funnel={funnel} test={t} />
          ))}
        </ul>
      )}
    </div>
  );
}
