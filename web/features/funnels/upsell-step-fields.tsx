// The fields of one upsell step (spec §3 Upsell draft, §5 Upsell step): used by the upload
// modal's draft list and the editor's 'Add New Funnel Step' form.
import { formatDollarsPlain } from "@shared/money";
import { ImagePlus, X } from "lucide-react";
import { useRef } from "react";
import { ACCESS_BADGES, ACCESS_TYPES, CATEGORIES, categoryLabel } from "@shared/content";
import { MAX_UPLOAD_BYTES } from "@shared/uploads";
import { TIP_CEILING_MULTIPLE } from "@shared/funnels";
import { LabelledField } from "@/components/field-error";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { Textarea } from "@/components/ui/textarea";
import { FileDropZone } from "@/features/upload/file-drop-zone";
import { toast } from "@/hooks/use-toast";
import type { UpsellDraft } from "./api";

/** A funnel form's field: label, control and the message beside it (web/components/field-error.tsx). */
export const Field = LabelledField;

function Pick<T extends string>({
  id,
  label,
  value,
  options,
  onChange,
}: {
  id: string;
  label: string;
  value: T;
  options: { value: T; label: string }[];
  onChange: (v: T) => void;
}) {
  return (
    <Field label={label} htmlFor={id}>
      <Select value={value} onValueChange={(v) => onChange(v as T)}>
        <SelectTrigger id={id} aria-label={label}>
          <SelectValue />
        </SelectTrigger>
        <SelectContent>
          {options.map((o) => (
            <SelectItem key={o.value} value={o.value}>
              {o.label}
            </SelectItem>
          ))}
        </SelectContent>
      </Select>
    </Field>
  );
}

/** errors: by field (title, price, file, link), shown beside it. */
export function UpsellStepFields({
  draft,
  onChange,
  idPrefix,
  errors = {},
}: {
  draft: UpsellDraft;
  onChange: (d: UpsellDraft) => void;
  idPrefix: string;
  errors?: Record<string, string>;
}) {
  const set = <K extends keyof UpsellDraft>(key: K, value: UpsellDraft[K]) => onChange({ ...draft, [key]: value });
  const previewInput = useRef<HTMLInputElement>(null);
  const id = (name: string) => `${idPrefix}-${name}`;
  const takesFile = draft.accessType === "download" || draft.accessType === "view" || draft.accessType === "stream";
  return (
    <div className="space-y-4">
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="Title *" htmlFor={id("title")} error={errors.title}>
          <Input id={id("title")} value={draft.title} maxLength={200} onChange={(e) => set("title", e.target.value)} />
        </Field>
        <Field label="Button text" htmlFor={id("cta")}>
          <Input id={id("cta")} value={draft.ctaText} maxLength={80} onChange={(e) => set("ctaText", e.target.value)} />
        </Field>
      </div>
      <Field label="Description" htmlFor={id("description")}>
        <Textarea
          id={id("description")}
          rows={2}
          value={draft.description}
          maxLength={2000}
          onChange={(e) => set("description", e.target.value)}
          className="field-sizing-fixed"
        />
      </Field>
      <div className="grid gap-4 sm:grid-cols-3">
        <Pick
          id={id("type")}
          label="Step type"
          value={draft.stepType}
          onChange={(v) => set("stepType", v)}
          options={[
            { value: "upsell", label: "Upsell" },
            { value: "downsell", label: "Downsell" },
          ]}
        />
        <Pick
          id={id("pricing")}
          label="Pricing"
          value={draft.pricingModel}
          onChange={(v) => set("pricingModel", v)}
          options={[
            { value: "fixed", label: "Fixed price" },
            { value: "tip", label: "Tip (pay what you want)" },
          ]}
        />
        {draft.pricingModel === "fixed" ? (
          <Field label="Price (USD) *" htmlFor={id("price")} error={errors.price}>
            <Input
              id={id("price")}
              type="number"
              step="0.01"
              min="0"
              value={draft.price}
              onChange={(e) => set("price", e.target.value)}
            />
          </Field>
        ) : (
          <Field label="Minimum price (USD) *" htmlFor={id("minimum")} error={errors.price}>
            <Input
              id={id("minimum")}
              type="number"
              step="0.01"
              min="0"
              value={draft.minimumPrice}
              onChange={(e) => set("minimumPrice", e.target.value)}
            />
          </Field>
        )}
      </div>
      {draft.pricingModel === "tip" && (
        // The saved card is charged in one click: a tip has a ceiling, so a slip cannot charge thousands.
        <Field label="Maximum tip (USD)" htmlFor={id("maximum")}>
          <Input
            id={id("maximum")}
            type="number"
            step="0.01"
            min={draft.minimumPrice || "0"}
            placeholder={`${TIP_CEILING_MULTIPLE}× the minimum${Number(draft.minimumPrice) > 0 ? ` (${formatDollarsPlain(Number(draft.minimumPrice) * TIP_CEILING_MULTIPLE)})` : ""}`}
            value={draft.maximumPrice}
            onChange={(e) => set("maximumPrice", e.target.value)}
          />
        </Field>
      )}
      <div className="grid gap-4 sm:grid-cols-2">
        <Pick
          id={id("access")}
          label="Access type"
          value={draft.accessType}
          onChange={(v) => set("accessType", v)}
          options={ACCESS_TYPES.map((a) => ({ value: a, label: ACCESS_BADGES[a] }))}
        />
        <Pick
          id={id("category")}
          label="Category"
          value={draft.category}
          onChange={(v) => set("category", v)}
          options={CATEGORIES.map((c) => ({ value: c, label: categoryLabel(c) }))}
        />
      </div>
      {takesFile && (
        <div
          className="space-y-1.5 outline-none"
          tabIndex={-1}
          aria-invalid={errors.file ? true : undefined}
          aria-describedby={errors.file ? id("file-error") : undefined}
        >
          <FileDropZone
            selected={draft.file}
            onSelect={(f) => set("file", f)}
            onClear={() => set("file", null)}
            onSubmit={() => undefined}
            maxSize={MAX_UPLOAD_BYTES}
            hideSubmit
          />
          {errors.file && (
            <p id={id("file-error")} className="text-sm text-destructive" role="alert">
              {errors.file}
            </p>
          )}
        </div>
      )}
      {draft.accessType === "view" && (
        <Field label="Text content" htmlFor={id("text")}>
          <Textarea
            id={id("text")}
            rows={3}
            value={draft.textContent}
            onChange={(e) => set("textContent", e.target.value)}
            className="field-sizing-fixed"
          />
        </Field>
      )}
      {draft.accessType === "link" && (
        <Field label="Link URL *" htmlFor={id("link")} error={errors.link}>
          <Input
            id={id("link")}
            type="url"
            placeholder="https://"
            value={draft.linkUrl}
            onChange={(e) => set("linkUrl", e.target.value)}
          />
        </Field>
      )}
      <div className="flex items-center gap-3">
        <input
          ref={previewInput}
          type="file"
          accept="image/*"
          className="hidden"
          aria-label="Preview image"
          onChange={(e) => {
            const picked = e.target.files?.[0];
            e.target.value = "";
            if (!picked) return;
            if (!picked.type.startsWith("image/"))
              return void toast({ title: "Preview image must be an image", variant: "destructive" });
            const reader = new FileReader();
            reader.onload = () => set("previewImage", String(reader.result));
            reader.readAsDataURL(picked);
          }}
        />
        {draft.previewImage ? (
          <>
            <img src={draft.previewImage} alt="Preview" className="size-12 rounded-md object-cover" />
            <Button type="button" variant="ghost" size="sm" onClick={() => set("previewImage", null)}>
              <X /> Remove image
            </Button>
          </>
        ) : (
          <Button type="button" variant="outline" size="sm" onClick={() => previewInput.current?.click()}>
            <ImagePlus /> Preview image (optional)
          </Button>
        )}
      </div>
    </div>
  );
}
