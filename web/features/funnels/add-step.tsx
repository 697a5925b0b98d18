// Adding a funnel step from ordinary fields, on /funnels and in the item's funnel editor: either one
// of the creator's items (at its price, or at a price set for the offer) or a new item made for the
// step with title, price and file/link/text. The server makes the offer's Stripe price; no price id
// is ever typed. Problems show beside their field. On a funnel in Test, the form and its toast say
// that no buyer sees the step until the funnel is Live.
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState, type FormEvent } from "react";
import type { CreatorContent } from "@shared/content";
import { DEFAULT_CTA, STEP_ITEM_MESSAGE, type Funnel, type StepType } from "@shared/funnels";
import { focusFirstInvalid } from "@/components/field-error";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";
import { toast } from "@/hooks/use-toast";
import { queryKeys } from "@/lib/query-keys";
import { dollarsField, formatDollars } from "@shared/money";
import { cn } from "@/lib/utils";
import { addUpsellStep, createStep, draftErrors, emptyDraft, fieldErrors, type UpsellDraft } from "./api";
import { TestModeNotice, testModeDescription } from "./funnel-status";
import { Field, UpsellStepFields } from "./upsell-step-fields";
import { useMyItems } from "./queries";

type Source = "item" | "new";

function ExistingItemFields({
  items,
  pick,
  onPick,
  errors,
}: {
  items: CreatorContent[];
  pick: { contentId: string; title: string; description: string; price: string; ctaText: string; stepType: StepType };
  onPick: (p: typeof pick) => void;
  errors: Record<string, string>;
}) {
  const set = <K extends keyof typeof pick>(k: K, v: (typeof pick)[K]) => onPick({ ...pick, [k]: v });
  const chosen = items.find((i) => i.id === pick.contentId);
  return (
    <div className="space-y-4">
      <Field label="Item to offer *" htmlFor="step-item" error={errors.contentId}>
        <select
          id="step-item"
          value={pick.contentId}
          onChange={(e) => {
            const item = items.find((i) => i.id === e.target.value);
            onPick({
              ...pick,
              contentId: e.target.value,
              title: item?.title ?? "",
              description: item?.description ?? "",
            });
          }}
          className="h-9 w-full rounded-md border bg-background px-3 text-sm"
        >
          <option value="">Choose one of your items…</option>
          {items.map((i) => (
            <option key={i.id} value={i.id}>
              {i.title} ({formatDollars(i.price)})
            </option>
          ))}
        </select>
      </Field>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="Title buyers see *" htmlFor="step-title" error={errors.title}>
          <Input id="step-title" value={pick.title} maxLength={200} onChange={(e) => set("title", e.target.value)} />
        </Field>
        <Field label="Offer price (USD)" htmlFor="step-offer-price" error={errors.price}>
          <Input
            id="step-offer-price"
            type="number"
            step="0.01"
            min="0"
            placeholder={chosen ? `${dollarsField(chosen.price)} (the item's price)` : "The item's price"}
            value={pick.price}
            onChange={(e) => set("price", e.target.value)}
          />
        </Field>
      </div>
      <Field label="Description" htmlFor="step-description">
        <Textarea
          id="step-description"
          rows={2}
          maxLength={2000}
          value={pick.description}
          onChange={(e) => set("description", e.target.value)}
          className="field-sizing-fixed"
        />
      </Field>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="Button text" htmlFor="step-cta">
          <Input id="step-cta" value={pick.ctaText} maxLength={80} onChange={(e) => set("ctaText", e.target.value)} />
        </Field>
        <Field label="Step type" htmlFor="step-type">
          <select
            id="step-type"
            value={pick.stepType}
            onChange={(e) => set("stepType", e.target.value as StepType)}
            className="h-9 w-full rounded-md border bg-background px-3 text-sm"
          >
            <option value="upsell">Upsell</option>
            <option value="downsell">Downsell</option>
          </select>
        </Field>
      </div>
    </div>
  );
}

const emptyPick = () => ({
  contentId: "",
  title: "",
  description: "",
  price: "",
  ctaText: DEFAULT_CTA,
  stepType: "upsell" as StepType,
});

/** The add-step form's body and its button; `onAdded` after the step is saved. */
export function AddStep({
  funnel,
  count,
  onAdded,
  failureTitle,
}: {
  funnel: Funnel;
  count: number;
  onAdded?: () => void;
  failureTitle: string;
}) {
  const queryClient = useQueryClient();
  const items = useMyItems();
  // The items the funnel is sold with are not offered to their own buyers.
  const offerable = (items.data ?? []).filter((i) => !funnel.contentIds.includes(i.id));
  // Until the creator picks, one of their items when they have one to offer, else a new item.
  const [picked, setSource] = useState<Source | null>(null);
  const source: Source = picked ?? (items.isSuccess && !offerable.length ? "new" : "item");
  const [pick, setPick] = useState(emptyPick);
  const [draft, setDraft] = useState<UpsellDraft>(emptyDraft);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);
  const [formKey, setFormKey] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);
  // Shown errors put the focus on the first field they name.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `errors` is the trigger: the focus moves after new messages render
  useEffect(() => focusFirstInvalid(formRef.current), [errors]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const problems =
      source === "item"
        ? {
            ...(!pick.contentId ? { contentId: STEP_ITEM_MESSAGE } : {}),
            ...(pick.contentId && !pick.title.trim() ? { title: "Please fill in required fields" } : {}),
          }
        : draftErrors(draft);
    setErrors(problems);
    if (Object.keys(problems).length) return;
    setSaving(true);
    try {
      if (source === "item")
        await createStep(funnel.id, {
          contentId: pick.contentId,
          title: pick.title.trim(),
          description: pick.description,
          ctaText: pick.ctaText.trim() || DEFAULT_CTA,
          stepType: pick.stepType,
          stepOrder: count + 1,
          ...(pick.price.trim() ? { price: pick.price.trim() } : {}),
        });
      else await addUpsellStep(funnel.id, draft, count + 1);
      toast({
        title: "Upsell step added successfully!",
        description: testModeDescription(funnel, "Buyers see it right after paying."),
      });
      setPick(emptyPick());
      setDraft(emptyDraft());
      setFormKey((k) => k + 1);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.funnelSteps(funnel.id) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.contentList }),
      ]);
      onAdded?.();
    } catch (err) {
      const byField = fieldErrors(err);
      setErrors(byField);
      // What names a field is shown beside it; the rest (a 5xx, the network) is announced too.
      if (!Object.keys(byField).some((k) => k !== "_") || !/^4\d\d: /.test(err instanceof Error ? err.message : ""))
        toast({ title: failureTitle, description: byField._, variant: "destructive" });
    } finally {
      setSaving(false);
    }
  };

  return (
    <form ref={formRef} onSubmit={submit} className="space-y-4" noValidate data-testid="add-step-form">
      <TestModeNotice funnel={funnel} />
      <div className="inline-flex rounded-lg border p-0.5" role="radiogroup" aria-label="What this step sells">
        {(
          [
            { value: "item", label: "One of my items" },
            { value: "new", label: "A new item" },
          ] as const
        ).map((o) => (
          // biome-ignore lint/a11y/useSemanticElements: a segmented control of buttons; role=radio with aria-checked gives it the radios' semantics
          <button
            key={o.value}
            type="button"
            role="radio"
            aria-checked={source === o.value}
            onClick={() => {
              setSource(o.value);
              setErrors({});
            }}
            className={cn(
              "rounded-md px-3 py-1 text-sm font-medium",
              source === o.value ? "bg-primary text-primary-foreground" : "text-muted-foreground hover:bg-muted",
            )}
          >
            {o.label}
          </button>
        ))}
      </div>
      <fieldset disabled={saving}>
        {source === "item" ? (
          items.isLoading ? (
            <Spinner />
          ) : items.error ? (
            <p className="text-sm text-destructive">Could not load your content. Please refresh.</p>
          ) : !offerable.length ? (
            <p className="rounded-lg border border-dashed p-4 text-center text-sm text-muted-foreground">
              No other items yet: create a new item for this step.
            </p>
          ) : (
            <ExistingItemFields items={offerable} pick={pick} onPick={setPick} errors={errors} />
          )
        ) : (
          <UpsellStepFields key={formKey} draft={draft} onChange={setDraft} idPrefix="new-step" errors={errors} />
        )}
      </fieldset>
      {errors._ && (
        <p className="text-sm text-destructive" role="alert">
          {errors._}
        </p>
      )}
      <Button type="submit" variant="brand" disabled={saving}>
        {saving && <Spinner className="size-4 text-white" />} Add Step
      </Button>
    </form>
  );
}
