// A funnel's steps with their figures, moves, edit and delete; shared by /funnels and the editor.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { ArrowDown, ArrowUp, Pencil, Trash2 } from "lucide-react";
import { useState, type FormEvent } from "react";
import { TIP_CEILING_MULTIPLE } from "@shared/constants";
import { FUNNEL_MESSAGES, type FunnelStep, type StepType } from "@shared/funnels";
import { Spinner } from "@/components/spinner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Textarea } from "@/components/ui/textarea";
import { toast } from "@/hooks/use-toast";
import { formatUsd } from "@/lib/utils";
import { deleteStep, editStep, funnelKeys, moveStep } from "./api";

/** Add (no `step`) or edit a step by its fields; the price id comes from a product made earlier. */
export function StepDialog({
  funnelId,
  step,
  open,
  onOpenChange,
  onSave,
}: {
  funnelId: string;
  step?: FunnelStep;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onSave?: (fields: { title: string; description: string; offerPriceId: string; ctaText: string; stepType: StepType }) => Promise<unknown>;
}) {
  const queryClient = useQueryClient();
  const initial = { title: step?.title ?? "", description: step?.description ?? "", offerPriceId: step?.offerPriceId ?? "", ctaText: step?.ctaText ?? "Add this to my order", stepType: step?.stepType ?? ("upsell" as StepType) };
  const [maximumPrice, setMaximumPrice] = useState(step?.maximumPrice != null ? step.maximumPrice.toFixed(2) : "");
  const [fields, setFields] = useState(initial);
  const [saving, setSaving] = useState(false);
  const set = (k: keyof typeof fields) => (e: { target: { value: string } }) => setFields((f) => ({ ...f, [k]: e.target.value }));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!fields.title.trim() || !fields.offerPriceId.trim()) return toast({ title: FUNNEL_MESSAGES.requiredFields, variant: "destructive" });
    setSaving(true);
    try {
      if (step) await editStep(funnelId, step.id, { ...fields, offerPriceId: fields.offerPriceId.trim(), maximumPrice: maximumPrice.trim() || null });
      else await onSave?.({ ...fields, offerPriceId: fields.offerPriceId.trim() });
      await queryClient.invalidateQueries({ queryKey: funnelKeys.steps(funnelId) });
      if (!step) toast({ title: "Upsell step added successfully!" });
      onOpenChange(false);
      setFields(initial);
    } catch (err) {
      const problem = err instanceof Error ? err.message.replace(/^\d+: /, "") : undefined;
      toast({ title: step ? "Failed to update upsell step" : "Failed to create upsell step", description: step ? problem : undefined, variant: "destructive" });
    } finally {
      setSaving(false);
    }
  };
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="max-h-[90vh] overflow-y-auto">
        <form onSubmit={submit} className="space-y-4" noValidate>
          <DialogHeader>
            <DialogTitle>{step ? "Edit Step" : "Add Step"}</DialogTitle>
            <DialogDescription>{step ? "Change what buyers see at this step." : "A step sells a product made with a price id (price_…)."}</DialogDescription>
          </DialogHeader>
          <div className="space-y-1.5">
            <Label htmlFor="step-title">Title *</Label>
            <Input id="step-title" value={fields.title} onChange={set("title")} />
          </div>
          <div className="space-y-1.5">
            <Label htmlFor="step-description">Description</Label>
            <Textarea id="step-description" rows={2} value={fields.description} onChange={set("description")} className="field-sizing-fixed" />
          </div>
          <div className="space-y-1.5">
            <Label htmlFor="step-price">Offer price id *</Label>
            <Input id="step-price" placeholder="price_..." value={fields.offerPriceId} onChange={set("offerPriceId")} />
          </div>
          <div className="grid gap-4 sm:grid-cols-2">
            <div className="space-y-1.5">
              <Label htmlFor="step-cta">Button text</Label>
              <Input id="step-cta" value={fields.ctaText} onChange={set("ctaText")} />
            </div>
            <div className="space-y-1.5">
              <Label htmlFor="step-type">Step type</Label>
              <select id="step-type" value={fields.stepType} onChange={set("stepType")} className="h-9 w-full rounded-md border bg-background px-3 text-sm">
                <option value="upsell">Upsell</option>
                <option value="downsell">Downsell</option>
              </select>
            </div>
          </div>
          {step && (
            <div className="space-y-1.5">
              <Label htmlFor="step-maximum">Maximum tip (USD, tip steps only)</Label>
              <Input id="step-maximum" type="number" step="0.01" min="0" placeholder={`${TIP_CEILING_MULTIPLE}× the minimum`} value={maximumPrice} onChange={(e) => setMaximumPrice(e.target.value)} />
            </div>
          )}
          <DialogFooter>
            <Button type="submit" disabled={saving}>
              {saving && <Spinner className="size-4 text-white" />} {step ? "Save Step" : "Add Step"}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

export function StepList({ funnelId, steps, detailed = false }: { funnelId: string; steps: FunnelStep[]; detailed?: boolean }) {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<FunnelStep | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: funnelKeys.steps(funnelId) });
  // Spec §8: reorder and delete failures show no message.
  const move = useMutation({ mutationFn: ({ step, to }: { step: FunnelStep; to: number }) => moveStep(funnelId, step.id, to), onSettled: refresh });
  const remove = useMutation({
    mutationFn: (step: FunnelStep) => deleteStep(funnelId, step.id),
    onSuccess: () => toast({ title: "Upsell step deleted successfully!" }),
    onSettled: refresh,
  });
  const busy = move.isPending || remove.isPending;
  return (
    <>
      <ol className="space-y-3" data-testid="step-list">
        {steps.map((step) => (
          <li key={step.id} className="rounded-xl border bg-card p-4" data-testid="step-row">
            <div className="flex items-start gap-3">
              <span className="flex size-8 shrink-0 items-center justify-center rounded-full bg-accent text-sm font-bold text-primary">{step.stepOrder}</span>
              <div className="min-w-0 flex-1 space-y-1">
                <div className="flex flex-wrap items-center gap-2">
                  <p className="font-semibold">{step.title}</p>
                  <Badge variant={step.stepType === "upsell" ? "default" : "secondary"}>{step.stepType}</Badge>
                  {step.price !== null && <span className="text-sm text-muted-foreground">{formatUsd(step.price)}</span>}
                </div>
                {step.description && <p className="text-sm text-muted-foreground">{step.description}</p>}
                <p className="text-xs text-muted-foreground">
                  CTA: “{step.ctaText}” · Price id: <code>{step.offerPriceId}</code>
                </p>
                {detailed && !step.contentId && <p className="text-xs text-amber-700">No content attached: buyers skip this step until you add one from the funnel editor.</p>}
                <p className="text-xs text-muted-foreground" data-testid="step-figures">
                  Shown {step.figures.shown} · Accepted {step.figures.accepted} · Declined {step.figures.declined} · Revenue {formatUsd(step.figures.revenue)}
                </p>
              </div>
              <div className="flex shrink-0 gap-1">
                <Button variant="ghost" size="icon" aria-label="Move up" disabled={busy || step.stepOrder <= 1} onClick={() => move.mutate({ step, to: step.stepOrder - 1 })}>
                  <ArrowUp />
                </Button>
                <Button variant="ghost" size="icon" aria-label="Move down" disabled={busy || step.stepOrder >= steps.length} onClick={() => move.mutate({ step, to: step.stepOrder + 1 })}>
                  <ArrowDown />
                </Button>
                <Button variant="ghost" size="icon" aria-label="Edit step" onClick={() => setEditing(step)}>
                  <Pencil />
                </Button>
                <Button
                  variant="ghost"
                  size="icon"
                  aria-label="Delete step"
                  disabled={busy}
                  onClick={() => {
                    if (window.confirm(`Delete "${step.title}"?`)) remove.mutate(step);
                  }}
                >
                  <Trash2 />
                </Button>
              </div>
            </div>
          </li>
        ))}
      </ol>
      {editing && <StepDialog key={editing.id} funnelId={funnelId} step={editing} open onOpenChange={(o) => !o && setEditing(null)} />}
    </>
  );
}
