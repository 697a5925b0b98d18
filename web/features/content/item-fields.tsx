// The item's own fields, the same on the publish form and the edit page: the link or text that is
// sold, title, description, pricing, category, a file's access type and the license setting, in the
// same words (shared/content.ts labels). Each caller keeps its own draft and error state and passes
// how an error is shown beside a control.
import { FileUp, Link2, Type } from "lucide-react";
import type { ReactNode } from "react";
import { CATEGORIES, CATEGORY_LABELS, FILE_ACCESS_LABELS } from "@shared/content";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { Textarea } from "@/components/ui/textarea";
import { type LicenseDraft, LicenseFields } from "@/features/licenses/license-fields";

export type ItemKind = "file" | "link" | "text";
/** What is sold, as the publish form offers it and the edit page shows it. */
export const ITEM_KINDS: { value: ItemKind; label: string; icon: typeof FileUp }[] = [
  { value: "file", label: "File", icon: FileUp },
  { value: "link", label: "Link", icon: Link2 },
  { value: "text", label: "Text", icon: Type },
];
type FileAccess = keyof typeof FILE_ACCESS_LABELS;
export type ItemDraft = LicenseDraft & {
  title: string;
  description: string;
  pricingModel: "fixed" | "pay_what_you_want";
  price: string;
  minimumPrice: string;
  category: string;
  linkUrl: string;
  textContent: string;
  /** How buyers get a file (a link's or a text's is fixed by what it is). */
  accessType: FileAccess | "link";
};
type TextKey = "title" | "description" | "price" | "minimumPrice" | "category" | "linkUrl" | "textContent";

/** How the caller shows a field's error: props for the control, and the message under it. */
export type ItemFieldErrors = {
  control: (name: string) => Record<string, unknown>;
  message: (name: string) => ReactNode;
};

function Field({
  label,
  htmlFor,
  hint,
  children,
}: {
  label: string;
  htmlFor: string;
  hint?: string;
  children: ReactNode;
}) {
  return (
    <div className="space-y-2">
      <Label htmlFor={htmlFor}>{label}</Label>
      {children}
      {hint && <p className="text-xs text-muted-foreground">{hint}</p>}
    </div>
  );
}

export function ItemFields({
  kind,
  draft,
  onChange,
  errors,
  priceHint,
  licenseError,
  onLicenseChange,
  disabled,
}: {
  kind: ItemKind;
  draft: ItemDraft;
  onChange: (key: TextKey | "pricingModel" | "accessType", value: string) => void;
  errors: ItemFieldErrors;
  /** Under the fixed price (the edit page says when a new price applies). */
  priceHint?: string;
  licenseError?: string;
  onLicenseChange: (next: LicenseDraft) => void;
  disabled?: boolean;
}) {
  const text = (key: TextKey) => ({
    id: key,
    value: draft[key],
    onChange: (e: { target: { value: string } }) => onChange(key, e.target.value),
    ...errors.control(key),
  });
  return (
    <>
      {kind === "link" && (
        <Field label="Link URL *" htmlFor="linkUrl" hint="Buyers see this link only after paying.">
          <Input type="url" placeholder="https://example.com/private" {...text("linkUrl")} />
          {errors.message("linkUrl")}
        </Field>
      )}
      {kind === "text" && (
        <Field label="Text buyers unlock *" htmlFor="textContent">
          <Textarea rows={6} className="field-sizing-fixed" {...text("textContent")} />
          {errors.message("textContent")}
        </Field>
      )}

      <Field label="Title *" htmlFor="title">
        <Input maxLength={200} placeholder="e.g. Lightroom preset pack" {...text("title")} />
        {errors.message("title")}
      </Field>
      <Field label="Description" htmlFor="description">
        <Textarea
          rows={3}
          maxLength={5000}
          className="field-sizing-fixed"
          placeholder="What buyers get"
          {...text("description")}
        />
        {errors.message("description")}
      </Field>

      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="Pricing" htmlFor="pricingModel">
          <Select value={draft.pricingModel} onValueChange={(v) => onChange("pricingModel", v)}>
            <SelectTrigger id="pricingModel" aria-label="Pricing">
              <SelectValue />
            </SelectTrigger>
            <SelectContent>
              <SelectItem value="fixed">Fixed price</SelectItem>
              <SelectItem value="pay_what_you_want">Pay what you want</SelectItem>
            </SelectContent>
          </Select>
        </Field>
        {draft.pricingModel === "fixed" ? (
          <Field label="Price (USD) *" htmlFor="price" hint={priceHint}>
            <Input type="number" inputMode="decimal" step="0.01" min="0.01" placeholder="9.99" {...text("price")} />
            {errors.message("price")}
          </Field>
        ) : (
          <Field label="Minimum price (USD) *" htmlFor="minimumPrice" hint="Buyers can pay this or more.">
            <Input
              type="number"
              inputMode="decimal"
              step="0.01"
              min="0.01"
              placeholder="5.00"
              {...text("minimumPrice")}
            />
            {errors.message("minimumPrice")}
          </Field>
        )}
      </div>

      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="Category" htmlFor="category">
          <Select value={draft.category} onValueChange={(v) => onChange("category", v)}>
            <SelectTrigger id="category" aria-label="Category">
              <SelectValue />
            </SelectTrigger>
            <SelectContent>
              {CATEGORIES.map((c) => (
                <SelectItem key={c} value={c}>
                  {CATEGORY_LABELS[c]}
                </SelectItem>
              ))}
            </SelectContent>
          </Select>
        </Field>
        {kind === "file" && (
          <Field label="Access type" htmlFor="accessType">
            <Select value={draft.accessType} onValueChange={(v) => onChange("accessType", v)}>
              <SelectTrigger id="accessType" aria-label="Access type">
                <SelectValue />
              </SelectTrigger>
              <SelectContent>
                {Object.entries(FILE_ACCESS_LABELS).map(([value, label]) => (
                  <SelectItem key={value} value={value}>
                    {label}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
          </Field>
        )}
      </div>

      <LicenseFields value={draft} error={licenseError} disabled={disabled} onChange={onLicenseChange} />
    </>
  );
}
