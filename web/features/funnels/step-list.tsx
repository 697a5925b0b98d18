// A funnel's steps with their figures, moves, edit and delete; shared by /funnels and the editor.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { ArrowDown, ArrowUp, Pencil, Trash2 } from "lucide-react";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { TIP_CEILING_MULTIPLE, FUNNEL_MESSAGES, type FunnelStep } from "@shared/funnels";
import { focusFirstInvalid } from "@/components/field-error";
import { Spinner } from "@/components/spinner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
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
import { Textarea } from "@/components/ui/textarea";
import { toast } from "@/hooks/use-toast";
import { dollarsField, formatDollars } from "@shared/money";
import { deleteStep, editStep, fieldErrors, moveStep } from "./api";
import { Field } from "./upsell-step-fields";
import { queryKeys } from "@/lib/query-keys";

/** Edit a step's words, type and tip ceiling (its item and price are chosen when it is added). */
function StepDialog({
  funnelId,
  step,
  open,
  onOpenChange,
}: {
  funnelId: string;
  step: FunnelStep;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const queryClient = useQueryClient();
  const initial = { title: step.title, description: step.description, ctaText: step.ctaText, stepType: step.stepType };
  const [maximumPrice, setMaximumPrice] = useState(step.maximumPrice != null ? dollarsField(step.maximumPrice) : "");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [fields, setFields] = useState(initial);
  const [saving, setSaving] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `errors` is the trigger: the focus moves after new messages render
  useEffect(() => focusFirstInvalid(formRef.current), [errors]);
  const set = (k: keyof typeof fields) => (e: { target: { value: string } }) =>
    setFields((f) => ({ ...f, [k]: e.target.value }));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!fields.title.trim()) return setErrors({ title: FUNNEL_MESSAGES.requiredFields });
    setErrors({});
    setSaving(true);
    try {
      await editStep(funnelId, step.id, { ...fields, maximumPrice: maximumPrice.trim() || null });
      await queryClient.invalidateQueries({ queryKey: queryKeys.funnelSteps(funnelId) });
      onOpenChange(false);
      setFields(initial);
    } catch (err) {
      const byField = fieldErrors(err);
      setErrors(byField);
      toast({ title: "Failed to update upsell step", description: byField._, variant: "destructive" });
    } finally {
      setSaving(false);
    }
  };
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="max-h-[90vh] overflow-y-auto">
        <form ref={formRef} onSubmit={submit} className="space-y-4" noValidate>
          <DialogHeader>
            <DialogTitle>Edit Step</DialogTitle>
            <DialogDescription>Change what buyers see at this step.</DialogDescription>
          </DialogHeader>
          <Field label="Title *" htmlFor="edit-step-title" error={errors.title}>
            <Input id="edit-step-title" value={fields.title} onChange={set("title")} />
          </Field>
          <div className="space-y-1.5">
            <Label htmlFor="edit-step-description">Description</Label>
            <Textarea
              id="edit-step-description"
              rows={2}
              value={fields.description}
              onChange={set("description")}
              className="field-sizing-fixed"
            />
          </div>
          <div className="grid gap-4 sm:grid-cols-2">
            <div className="space-y-1.5">
              <Label htmlFor="edit-step-cta">Button text</Label>
              <Input id="edit-step-cta" value={fields.ctaText} onChange={set("ctaText")} />
            </div>
            <div className="space-y-1.5">
              <Label htmlFor="edit-step-type">Step type</Label>
              <select
                id="edit-step-type"
                value={fields.stepType}
                onChange={set("stepType")}
                className="h-9 w-full rounded-md border bg-background px-3 text-sm"
              >
                <option value="upsell">Upsell</option>
                <option value="downsell">Downsell</option>
              </select>
            </div>
          </div>
          <Field label="Maximum tip (USD, tip steps only)" htmlFor="edit-step-maximum" error={errors.maximumPrice}>
            <Input
              id="edit-step-maximum"
              type="number"
              step="0.01"
              min="0"
              placeholder={`${TIP_CEILING_MULTIPLE}× the minimum`}
              value={maximumPrice}
              onChange={(e) => setMaximumPrice(e.target.value)}
            />
          </Field>
          <DialogFooter>
            <Button type="submit" disabled={saving}>
              {saving && <Spinner className="size-4 text-white" />} Save Step
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

export function StepList({
  funnelId,
  steps,
  detailed = false,
}: {
  funnelId: string;
  steps: FunnelStep[];
  detailed?: boolean;
}) {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<FunnelStep | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.funnelSteps(funnelId) });
  // Spec §8: reorder and delete failures show no message.
  const move = useMutation({
    mutationFn: ({ step, to }: { step: FunnelStep; to: number }) => moveStep(funnelId, step.id, to),
    onSettled: refresh,
  });
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
              <span className="flex size-8 shrink-0 items-center justify-center rounded-full bg-accent text-sm font-bold text-primary">
                {step.stepOrder}
              </span>
              <div className="min-w-0 flex-1 space-y-1">
                <div className="flex flex-wrap items-center gap-2">
                  <p className="font-semibold">{step.title}</p>
                  <Badge variant={step.stepType === "upsell" ? "default" : "secondary"}>{step.stepType}</Badge>
                  {step.price !== null && (
                    <span className="text-sm text-muted-foreground">{formatDollars(step.price)}</span>
                  )}
                </div>
                {step.description && <p className="text-sm text-muted-foreground">{step.description}</p>}
                <p className="text-xs text-muted-foreground">CTA: “{step.ctaText}”</p>
                {detailed && !step.contentId && (
                  <p className="text-xs text-amber-700">
                    No content attached: buyers skip this step until you add one from the funnel editor.
                  </p>
                )}
                <p className="text-xs text-muted-foreground" data-testid="step-figures">
                  Shown {step.figures.shown} · Accepted {step.figures.accepted} · Declined {step.figures.declined} ·
                  Revenue (gross) {formatDollars(step.figures.revenue)} · Your share (net){" "}
                  {formatDollars(step.figures.net)}
                </p>
              </div>
              <div className="flex shrink-0 gap-1">
                <Button
                  variant="ghost"
                  size="icon"
                  aria-label="Move up"
                  disabled={busy || step.stepOrder <= 1}
                  onClick={() => move.mutate({ step, to: step.stepOrder - 1 })}
                >
                  <ArrowUp />
                </Button>
                <Button
                  variant="ghost"
                  size="icon"
                  aria-label="Move down"
                  disabled={busy || step.stepOrder >= steps.length}
                  onClick={() => move.mutate({ step, to: step.stepOrder + 1 })}
                >
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
      {editing && (
        <StepDialog
          key={editing.id}
          funnelId={funnelId}
          step={editing}
          open
          onOpenChange={(o) => !o && setEditing(null)}
        />
      )}
    </>
  );
}
