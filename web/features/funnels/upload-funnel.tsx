// /upload's funnel option and the upsell funnel modal (spec §2 Upload page, §4 Upload, §5, §8):
// after publishing with the option and a name, step 0 creates the funnel (or skips), step 1
// attaches the new item to it and adds the drafted steps, in order.
import { useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { Plus, Trash2 } from "lucide-react";
import { useState } from "react";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { toast } from "@/hooks/use-toast";
import { FUNNEL_TEST_NOTICE } from "@shared/funnels";
import { addUpsellStep, attachProducts, createFunnel, draftProblem, emptyDraft, type UpsellDraft } from "./api";
import { UpsellStepFields } from "./upsell-step-fields";
import { queryKeys } from "@/lib/query-keys";

export type FunnelChoice = { wanted: boolean; name: string };

export function FunnelOption({ value, onChange }: { value: FunnelChoice; onChange: (v: FunnelChoice) => void }) {
  return (
    <div className="space-y-3 rounded-xl border bg-muted/30 p-4">
      <label className="flex items-center gap-2 text-sm font-medium">
        <input
          type="checkbox"
          className="size-4 accent-primary"
          checked={value.wanted}
          onChange={(e) => onChange({ ...value, wanted: e.target.checked })}
        />
        Add an upsell funnel (one-click offers right after purchase)
      </label>
      {value.wanted && (
        <div className="space-y-1.5">
          <Label htmlFor="funnel-option-name">Funnel name</Label>
          <Input
            id="funnel-option-name"
            value={value.name}
            maxLength={200}
            placeholder="e.g. Course upsells"
            onChange={(e) => onChange({ ...value, name: e.target.value })}
          />
        </div>
      )}
    </div>
  );
}

export function UpsellFunnelModal({ item, funnelName }: { item: { id: string; title: string }; funnelName: string }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [step, setStep] = useState<0 | 1>(0);
  const [name, setName] = useState(funnelName);
  const [funnelId, setFunnelId] = useState<string | null>(null);
  const [drafts, setDrafts] = useState<UpsellDraft[]>([emptyDraft()]);
  const [busy, setBusy] = useState(false);

  // Done or skipped: on to the dashboard, as a publish without a funnel does.
  const finish = () => void navigate({ to: "/" });

  const create = async () => {
    if (!name.trim()) return toast({ title: "Please enter a funnel name", variant: "destructive" });
    setBusy(true);
    try {
      const funnel = await createFunnel(name.trim());
      setFunnelId(funnel.id);
      await queryClient.invalidateQueries({ queryKey: queryKeys.funnels });
      try {
        await attachProducts(funnel.id, [item.id]);
      } catch {
        return toast({ title: "Failed to attach product to funnel", variant: "destructive" });
      }
      // Said in the dialog, not in a toast: a toast would sit over the dialog's Save button.
      setStep(1);
    } catch {
      toast({ title: "Failed to create funnel", variant: "destructive" });
    } finally {
      setBusy(false);
    }
  };

  const saveSteps = async () => {
    if (!funnelId) return;
    const problem = drafts.map(draftProblem).find(Boolean);
    if (problem) return toast({ title: problem, variant: "destructive" });
    setBusy(true);
    try {
      // Step order is the position in the draft list plus 1.
      for (const [i, d] of drafts.entries()) await addUpsellStep(funnelId, d, i + 1);
      // A new funnel starts in Test.
      toast({ title: "Upsell step added successfully!", description: FUNNEL_TEST_NOTICE });
      await queryClient.invalidateQueries({ queryKey: queryKeys.funnels });
      finish();
    } catch {
      toast({ title: "Failed to add upsell step", variant: "destructive" });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open onOpenChange={(open) => !open && !busy && finish()}>
      <DialogContent className="max-h-[90vh] overflow-y-auto sm:max-w-2xl" data-testid="upsell-funnel-modal">
        <DialogHeader>
          <DialogTitle>{step === 0 ? "Create your upsell funnel" : "Add upsell steps"}</DialogTitle>
          <DialogDescription>
            {step === 0
              ? `Offer buyers of "${item.title}" more, with one click, right after they pay.`
              : "Each step is a product buyers can add in one click; a downsell shows when they say no to the upsell before it."}
          </DialogDescription>
          {step === 1 && (
            <p role="status" className="text-sm font-medium text-emerald-700">
              Funnel created successfully!
            </p>
          )}
        </DialogHeader>
        {step === 0 ? (
          <div className="space-y-4">
            <div className="space-y-1.5">
              <Label htmlFor="modal-funnel-name">Funnel name</Label>
              <Input id="modal-funnel-name" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} />
            </div>
            <div className="flex justify-end gap-2">
              <Button variant="ghost" onClick={finish} disabled={busy}>
                Skip
              </Button>
              <Button onClick={create} disabled={busy}>
                {busy && <Spinner className="size-4 text-white" />} Create Funnel
              </Button>
            </div>
          </div>
        ) : (
          <div className="space-y-4">
            {drafts.map((d, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: drafts have no id; every field is controlled from `drafts`, so a removed step takes nothing with it
              <div key={i} className="space-y-3 rounded-xl border p-4" data-testid="draft-step">
                <div className="flex items-center justify-between">
                  <p className="font-semibold">Step {i + 1}</p>
                  {drafts.length > 1 && (
                    <Button
                      variant="ghost"
                      size="sm"
                      onClick={() => setDrafts((all) => all.filter((_, j) => j !== i))}
                      disabled={busy}
                    >
                      <Trash2 /> Remove
                    </Button>
                  )}
                </div>
                <fieldset disabled={busy}>
                  <UpsellStepFields
                    draft={d}
                    onChange={(next) => setDrafts((all) => all.map((x, j) => (j === i ? next : x)))}
                    idPrefix={`draft-${i}`}
                  />
                </fieldset>
              </div>
            ))}
            <Button
              variant="outline"
              onClick={() => setDrafts((all) => [...all, { ...emptyDraft(), stepType: "downsell" }])}
              disabled={busy}
            >
              <Plus /> Add another step
            </Button>
            <div className="flex justify-end gap-2">
              <Button variant="ghost" onClick={finish} disabled={busy}>
                Skip
              </Button>
              <Button onClick={saveSteps} disabled={busy}>
                {busy && <Spinner className="size-4 text-white" />} Save Funnel
              </Button>
            </div>
          </div>
        )}
      </DialogContent>
    </Dialog>
  );
}
