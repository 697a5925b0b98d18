// The publish form of spec §2/§5: what is sold (file, link or text), its details and price, then
// the upload with progress and the POST /api/content call.
import { useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { ImagePlus, X } from "lucide-react";
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from "react";
import { CONTENT_MESSAGES, contentFormSchema } from "@shared/content";
import { formatFileSize, MAX_UPLOAD_BYTES } from "@shared/uploads";
import { FieldError, FORM, useFieldErrors } from "@/components/field-error";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Label } from "@/components/ui/label";
import { showUnauthorizedAndRelogin } from "@/features/dashboard/use-unauthorized-redirect";
import { FileDropZone } from "@/features/upload/file-drop-zone";
import { toast } from "@/hooks/use-toast";
import { api, isUnauthorizedError } from "@/lib/api";
import { clearPendingUpload, type PendingUpload } from "@/lib/pending-upload";
import { queryKeys } from "@/lib/query-keys";
import { cn } from "@/lib/utils";
import { discardUpload, uploadFile, type UploadProgress } from "./multipart-upload";
import { UploadProgressPanel } from "./upload-progress";
import { licenseError } from "@/features/licenses/license-fields";
import { ITEM_KINDS, type ItemDraft, ItemFields, type ItemKind } from "@/features/content/item-fields";

type Kind = ItemKind;
type Draft = ItemDraft & { kind: Kind };

const DRAFT_KEY = "apewall.uploadDraft";
/** The fields an error can be shown beside (the API's names; the file's issue is `file`). */
const FIELDS = [
  "title",
  "description",
  "price",
  "minimumPrice",
  "category",
  "accessType",
  "linkUrl",
  "textContent",
  "file",
  "previewImage",
] as const;
/** "File" chosen and nothing dropped: the message names what is missing (the file picked before sign-in, if any). */
const missingFile = (intent: PendingUpload | null) =>
  intent?.kind === "file"
    ? `Choose ${intent.uploadFile.name} again: drop it here or click to pick it`
    : "Choose a file to sell: drop it here or click to pick one";

function initialDraft(intent: PendingUpload | null): Draft {
  const base: Draft = {
    kind: "file",
    title: "",
    description: "",
    pricingModel: "fixed",
    price: "",
    minimumPrice: "",
    category: "other",
    accessType: "download",
    linkUrl: "",
    textContent: "",
    issueLicenseKeys: false,
    activationLimit: "",
  };
  try {
    const saved = sessionStorage.getItem(DRAFT_KEY);
    if (saved) return { ...base, ...(JSON.parse(saved) as Partial<Draft>) };
  } catch {
    // No saved draft.
  }
  if (intent?.kind === "link") return { ...base, kind: "link", accessType: "link", linkUrl: intent.uploadLink };
  if (intent?.kind === "text") return { ...base, kind: "text", accessType: "view", textContent: intent.uploadText };
  if (intent?.kind === "file") return { ...base, title: intent.uploadFile.name.replace(/\.[^.]+$/, "") };
  return base;
}

export function UploadForm({
  intent,
  onStepChange,
  extra,
  onPublished,
}: {
  intent: PendingUpload | null;
  onStepChange: (step: number) => void;
  /** More fields before Publish (the funnel option). */
  extra?: ReactNode;
  /** Called after publishing; returning true keeps the page (the funnel modal opens) instead of going home. */
  onPublished?: (created: { id: string; title: string }) => boolean;
}) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>(() => initialDraft(intent));
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<File | null>(null);
  const [previewUrl, setPreviewUrl] = useState<string | null>(null);
  const [phase, setPhase] = useState<"editing" | "uploading" | "publishing">("editing");
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const [licenseErr, setLicenseErr] = useState<string | undefined>(undefined);
  const abortRef = useRef<AbortController | null>(null);
  const previewInput = useRef<HTMLInputElement>(null);
  const fe = useFieldErrors("upload");

  // Nothing typed is lost on a reload: the draft lives in this tab's session until published.
  useEffect(() => {
    sessionStorage.setItem(DRAFT_KEY, JSON.stringify(draft));
  }, [draft]);
  useEffect(() => {
    if (!preview) return setPreviewUrl(null);
    const url = URL.createObjectURL(preview);
    setPreviewUrl(url);
    return () => URL.revokeObjectURL(url);
  }, [preview]);
  const hasSource =
    draft.kind === "file" ? !!file : draft.kind === "link" ? !!draft.linkUrl.trim() : !!draft.textContent.trim();
  useEffect(() => onStepChange(phase !== "editing" ? 2 : hasSource ? 1 : 0), [phase, hasSource, onStepChange]);

  const set =
    <K extends keyof Draft>(key: K) =>
    (value: Draft[K]) => {
      setDraft((d) => ({ ...d, [key]: value }));
      fe.clear(key, FORM);
    };
  const setKind = (kind: Kind) =>
    setDraft((d) => ({
      ...d,
      kind,
      accessType:
        kind === "link" ? "link" : kind === "text" ? "view" : d.accessType === "link" ? "download" : d.accessType,
    }));

  const fail = (title: string, description?: string) => toast({ title, description, variant: "destructive" });

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const parsed = fe.check(
      contentFormSchema,
      {
        title: draft.title,
        description: draft.description,
        price: draft.pricingModel === "fixed" ? draft.price : draft.minimumPrice,
        pricingModel: draft.pricingModel,
        minimumPrice: draft.pricingModel === "pay_what_you_want" ? draft.minimumPrice : undefined,
        category: draft.category,
        accessType: draft.accessType,
        linkUrl: draft.kind === "link" ? draft.linkUrl : undefined,
        textContent: draft.kind === "text" ? draft.textContent : undefined,
        hasFile: draft.kind === "file" && !!file,
      },
      {
        alias: { hasFile: "file" },
        place: (field, message) => {
          // "Please fill in title and price" belongs beside whichever of the two is empty.
          if (message === CONTENT_MESSAGES.titleAndPrice)
            return [...(draft.title.trim() ? [] : ["title"]), ...(draft.price.trim() ? [] : ["price"])];
          // A text item's missing text is the schema's "no file".
          if (field === "file" && draft.kind === "text") return [["textContent", CONTENT_MESSAGES.text]];
          if (field === "file" && draft.kind === "file") return [["file", missingFile(intent)]];
          return [field];
        },
      },
    );
    const limitError = licenseError(draft);
    setLicenseErr(limitError);
    if (!parsed || limitError) return;
    if (preview && !preview.type.startsWith("image/")) return fe.set("previewImage", "Preview image must be an image");

    const controller = new AbortController();
    abortRef.current = controller;
    try {
      const form = new FormData();
      form.append("title", draft.title);
      form.append("description", draft.description);
      form.append("pricingModel", draft.pricingModel);
      // Spec §5: for pay-what-you-want the price sent equals the minimum.
      form.append("price", draft.pricingModel === "fixed" ? draft.price : draft.minimumPrice);
      form.append("minimumPrice", draft.pricingModel === "pay_what_you_want" ? draft.minimumPrice : "");
      form.append("category", draft.category);
      form.append("accessType", draft.accessType);
      if (draft.kind === "link") form.append("linkUrl", draft.linkUrl.trim());
      if (draft.kind === "text") form.append("textContent", draft.textContent);
      if (draft.issueLicenseKeys) {
        form.append("issueLicenseKeys", "true");
        form.append("activationLimit", draft.activationLimit.trim());
      }
      if (preview) form.append("previewImage", preview);
      if (draft.kind === "file" && file) {
        setPhase("uploading");
        form.append("uploadId", await uploadFile(file, { onProgress: setProgress, signal: controller.signal }));
      }
      setPhase("publishing");
      const created = await api("POST /api/content", { body: form });
      sessionStorage.removeItem(DRAFT_KEY);
      clearPendingUpload();
      await queryClient.invalidateQueries({ queryKey: queryKeys.contentList });
      await queryClient.invalidateQueries({ queryKey: queryKeys.earningsStats });
      toast({
        title: "Content published",
        description: `"${created.title}" is live at ${location.origin}/p/${created.id}`,
      });
      // Spec §4 says home; the "You're live" screen comes first, with the way home on it.
      if (!onPublished?.(created)) navigate({ to: "/content/$contentId/live", params: { contentId: created.id } });
    } catch (err) {
      setPhase("editing");
      setProgress(null);
      if (err instanceof DOMException && err.name === "AbortError") return;
      if (isUnauthorizedError(err)) return showUnauthorizedAndRelogin();
      if (fe.fromServer(err, FIELDS, { hasFile: "file", uploadId: "file" })) return;
      fail("Upload failed", err instanceof Error ? err.message : String(err));
    }
  };

  const cancelUpload = async () => {
    abortRef.current?.abort();
    if (file) await discardUpload(file);
    toast({ title: "Upload cancelled" });
  };

  const busy = phase !== "editing";

  return (
    <form onSubmit={onSubmit} className="space-y-6" noValidate>
      <fieldset disabled={busy} className="space-y-6">
        <div className="space-y-2">
          <Label>What are you selling?</Label>
          <div className="grid grid-cols-3 gap-2" role="radiogroup" aria-label="What are you selling?">
            {ITEM_KINDS.map(({ value, label, icon: Icon }) => (
              // biome-ignore lint/a11y/useSemanticElements: a segmented control of buttons; role=radio with aria-checked gives it the radios' semantics
              <button
                key={value}
                type="button"
                role="radio"
                aria-checked={draft.kind === value}
                onClick={() => setKind(value)}
                className={cn(
                  "flex items-center justify-center gap-2 rounded-lg border px-3 py-2.5 text-sm font-medium transition-colors",
                  draft.kind === value ? "border-primary bg-accent text-accent-foreground" : "hover:bg-muted",
                )}
              >
                <Icon className="size-4" /> {label}
              </button>
            ))}
          </div>
        </div>

        {draft.kind === "file" && (
          <div className="space-y-2 rounded-lg outline-none" tabIndex={-1} {...fe.field("file")}>
            <FileDropZone
              selected={file}
              onSelect={(f) => {
                setFile(f);
                fe.clear("file", FORM);
              }}
              onClear={() => setFile(null)}
              onSubmit={() => undefined}
              maxSize={MAX_UPLOAD_BYTES}
              hideSubmit
            />
            <FieldError of={fe} name="file" />
          </div>
        )}
        <ItemFields
          kind={draft.kind}
          draft={draft}
          onChange={(key, value) => set(key)(value as never)}
          errors={{ control: (name) => fe.field(name), message: (name) => <FieldError of={fe} name={name} /> }}
          licenseError={licenseErr}
          disabled={busy}
          onLicenseChange={(next) => {
            setLicenseErr(undefined);
            setDraft((d) => ({ ...d, issueLicenseKeys: next.issueLicenseKeys, activationLimit: next.activationLimit }));
          }}
        />

        <div className="space-y-2">
          <Label htmlFor="previewImage">Preview image (optional)</Label>
          <input
            ref={previewInput}
            id="previewImage"
            type="file"
            accept="image/*"
            className="hidden"
            data-testid="preview-input"
            onChange={(e) => {
              const picked = e.target.files?.[0];
              e.target.value = "";
              if (!picked) return;
              if (!picked.type.startsWith("image/")) return fe.set("previewImage", "Preview image must be an image");
              fe.clear("previewImage");
              setPreview(picked);
            }}
          />
          {preview && previewUrl ? (
            <div className="flex items-center gap-3 rounded-lg border p-2">
              <img src={previewUrl} alt="Preview" className="size-16 rounded-md object-cover" />
              <div className="min-w-0 flex-1 text-sm">
                <p className="truncate font-medium">{preview.name}</p>
                <p className="text-muted-foreground">{formatFileSize(preview.size)}</p>
              </div>
              <Button
                type="button"
                variant="ghost"
                size="icon"
                onClick={() => setPreview(null)}
                aria-label="Remove preview image"
              >
                <X />
              </Button>
            </div>
          ) : (
            <Button
              type="button"
              variant="outline"
              onClick={() => previewInput.current?.click()}
              {...fe.field("previewImage")}
            >
              <ImagePlus /> Add a preview image
            </Button>
          )}
          <FieldError of={fe} name="previewImage" />
        </div>
      </fieldset>

      {extra}
      {phase === "uploading" && progress && file && (
        <UploadProgressPanel fileName={file.name} progress={progress} onCancel={cancelUpload} />
      )}

      <FieldError of={fe} name={FORM} />
      <Button type="submit" variant="brand" size="lg" className="w-full" disabled={busy}>
        {busy && <Spinner className="size-4 text-white" />}
        {phase === "uploading" ? "Uploading…" : phase === "publishing" ? "Publishing…" : "Publish"}
      </Button>
    </form>
  );
}
