// Editing a live item (PATCH /api/content/{id}): the same /p/{id} link, what it sells (File, Link or
// Text, as the publish form words it), the publish rules checked beside each field (the shared
// contentFormSchema), a replacement file through the resumable upload, a new or removed preview
// image, and taking the item off sale or putting it back. See docs/uploads.md.
import { dollarsField } from "@shared/money";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { ArrowLeft, ExternalLink, EyeOff, ImagePlus, Rocket, X } from "lucide-react";
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from "react";
import { CONTENT_MESSAGES, contentFormSchema, type CreatorContent, type UpdateContentInput } from "@shared/content";
import { MAX_UPLOAD_BYTES } from "@shared/uploads";
import type { CurrentUser } from "@shared/auth";
import { focusFirstInvalid } from "@/components/field-error";
import { SectionSpinner, Spinner } from "@/components/spinner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Label } from "@/components/ui/label";
import { showUnauthorizedAndRelogin } from "@/features/dashboard/use-unauthorized-redirect";
import { FileDropZone } from "@/features/upload/file-drop-zone";
import { CreatorTopBar } from "@/features/shell/creator-top-bar";
import { NotFoundScreen } from "@/features/shell/guard-screens";
import { UploadProgressPanel } from "@/features/upload/upload-progress";
import { uploadFile, type UploadProgress } from "@/features/upload/multipart-upload";
import { toast } from "@/hooks/use-toast";
import { api, isUnauthorizedError, withoutStatus } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { useMyItem } from "./use-my-item";
import { licenseError } from "@/features/licenses/license-fields";
import { ITEM_KINDS, type ItemDraft, type ItemFieldErrors, ItemFields, type ItemKind } from "./item-fields";
import { OrderBumpCard } from "@/features/bumps/order-bump-card";
import { CheckoutReminderSwitch } from "./checkout-reminder-switch";

type Draft = ItemDraft;
type Errors = Partial<Record<keyof Draft | "file" | "previewImage" | "form", string>>;

const money = (dollars: number | null) => (dollars === null ? "" : dollarsField(dollars));
const kindOf = (item: CreatorContent) =>
  item.accessType === "link" ? "link" : item.accessType === "view" && item.textContent ? "text" : "file";

const readDataUrl = (file: File) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });

/** Where the server's refusal belongs on the form (the same rules as the form's own check). */
function fieldOf(message: string, pricingModel: Draft["pricingModel"]): keyof Errors {
  const price = pricingModel === "pay_what_you_want" ? "minimumPrice" : "price";
  if (message === CONTENT_MESSAGES.titleAndPrice || message === CONTENT_MESSAGES.priceRange) return price;
  if (message === CONTENT_MESSAGES.minimumPrice) return "minimumPrice";
  if (message === CONTENT_MESSAGES.linkUrl || message.startsWith("Link URL")) return "linkUrl";
  if (message === CONTENT_MESSAGES.text) return "textContent";
  if (message.startsWith("Preview image")) return "previewImage";
  if (message.startsWith("Activation limit")) return "activationLimit";
  if (message === CONTENT_MESSAGES.file || /upload/i.test(message)) return "file";
  return "form";
}

/** The edit page's errors beside its fields: `{field}-error`, the control aria-invalid and described by it. */
function errorView(errors: Errors, pricingModel: Draft["pricingModel"]): ItemFieldErrors {
  const of = (name: string) =>
    name === "minimumPrice" && pricingModel === "pay_what_you_want"
      ? (errors.minimumPrice ?? errors.price)
      : errors[name as keyof Errors];
  return {
    control: (name) => (of(name) ? { "aria-invalid": true, "aria-describedby": `${name}-error` } : {}),
    message: (name) =>
      of(name) && (
        <p id={`${name}-error`} className="text-sm text-destructive" role="alert" data-testid={`${name}-error`}>
          {of(name)}
        </p>
      ),
  };
}

/** What the item sells, in the publish form's words; it stays what it was published as. */
function SellingKind({ kind }: { kind: ItemKind }) {
  const { label, icon: Icon } = ITEM_KINDS.find((k) => k.value === kind) ?? ITEM_KINDS[0];
  return (
    <div className="space-y-2">
      <p className="text-sm font-medium leading-none">What you're selling</p>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm">
        <span
          className="inline-flex items-center gap-2 rounded-lg border border-primary bg-accent px-3 py-1.5 font-medium text-accent-foreground"
          data-testid="item-kind"
        >
          <Icon className="size-4" />
          {label}
        </span>
        <span className="text-muted-foreground">Chosen when it was published.</span>
      </div>
    </div>
  );
}

function EditForm({ item }: { item: CreatorContent }) {
  const queryClient = useQueryClient();
  const kind = kindOf(item);
  const [draft, setDraft] = useState<Draft>({
    title: item.title,
    description: item.description,
    pricingModel: item.pricingModel,
    price: money(item.pricingModel === "fixed" ? item.price : null),
    minimumPrice: money(item.minimumPrice),
    category: item.category,
    linkUrl: item.linkUrl ?? "",
    textContent: item.textContent ?? "",
    accessType: item.accessType,
    issueLicenseKeys: item.issueLicenseKeys,
    activationLimit: item.activationLimit === null ? "" : String(item.activationLimit),
  });
  const [file, setFile] = useState<File | null>(null);
  // undefined: keep the image; null: remove it; a File: replace it.
  const [preview, setPreview] = useState<File | null | undefined>(undefined);
  const [errors, setErrors] = useState<Errors>({});
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const previewInput = useRef<HTMLInputElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  // Shown errors put the focus on the first field they name.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `errors` is the trigger: the focus moves after new messages render
  useEffect(() => focusFirstInvalid(formRef.current), [errors]);
  const [pickedUrl, setPickedUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!preview) return setPickedUrl(null);
    const url = URL.createObjectURL(preview);
    setPickedUrl(url);
    return () => URL.revokeObjectURL(url);
  }, [preview]);
  const set =
    <K extends keyof Draft>(key: K) =>
    (value: Draft[K]) =>
      setDraft((d) => ({ ...d, [key]: value }));

  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.contentList });
  const save = useMutation({
    mutationFn: async () => {
      const body: UpdateContentInput = {
        title: draft.title,
        description: draft.description,
        pricingModel: draft.pricingModel,
        // As at publish (spec §5): for pay-what-you-want the price sent equals the minimum.
        price: draft.pricingModel === "fixed" ? draft.price : draft.minimumPrice,
        minimumPrice: draft.pricingModel === "pay_what_you_want" ? draft.minimumPrice : "",
        category: draft.category,
        ...(kind === "file" ? { accessType: draft.accessType } : {}),
        ...(kind === "link" ? { linkUrl: draft.linkUrl.trim() } : {}),
        ...(kind === "text" ? { textContent: draft.textContent } : {}),
        issueLicenseKeys: draft.issueLicenseKeys,
        activationLimit: draft.activationLimit.trim(),
      };
      if (preview === null) body.previewImage = null;
      else if (preview) body.previewImage = await readDataUrl(preview);
      if (file) body.uploadId = await uploadFile(file, { onProgress: setProgress });
      return api("PATCH /api/content/:id", { params: { id: item.id }, body });
    },
    onSuccess: async (saved) => {
      setFile(null);
      setPreview(undefined);
      setProgress(null);
      await refresh();
      toast({ title: "Changes saved", description: `"${saved.title}" is updated at ${location.origin}/p/${saved.id}` });
    },
    onError: (err) => {
      setProgress(null);
      if (isUnauthorizedError(err)) return showUnauthorizedAndRelogin();
      const message = withoutStatus(String((err as Error).message));
      setErrors({ [fieldOf(message, draft.pricingModel)]: message });
      toast({ title: "Could not save", description: message, variant: "destructive" });
    },
  });
  const publication = useMutation({
    mutationFn: async (published: boolean) =>
      api("PUT /api/content/:id/published", { params: { id: item.id }, body: { published } }),
    onSuccess: async (saved) => {
      await refresh();
      toast({
        title: saved.published ? "Back on sale" : "Unpublished",
        description: saved.published
          ? "Buyers can buy it again."
          : "Buyers see it is no longer for sale; owners keep access.",
      });
    },
    onError: (err) => {
      if (isUnauthorizedError(err)) return showUnauthorizedAndRelogin();
      toast({ title: "Could not change it", description: String((err as Error).message), variant: "destructive" });
    },
  });

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = contentFormSchema.safeParse({
      title: draft.title,
      description: draft.description,
      price: draft.pricingModel === "fixed" ? draft.price : draft.minimumPrice,
      pricingModel: draft.pricingModel,
      minimumPrice: draft.pricingModel === "pay_what_you_want" ? draft.minimumPrice : undefined,
      category: draft.category,
      accessType: kind === "file" ? draft.accessType : item.accessType,
      linkUrl: kind === "link" ? draft.linkUrl : undefined,
      textContent: kind === "text" ? draft.textContent : undefined,
      hasFile: !!file || !!item.fileName,
    });
    const limitError = licenseError(draft);
    if (!parsed.success || limitError) {
      const next: Errors = limitError ? { activationLimit: limitError } : {};
      for (const issue of parsed.success ? [] : parsed.error.issues) {
        let field = String(issue.path[0] ?? "form") as keyof Errors;
        // "Please fill in title and price" belongs to whichever of the two is missing.
        if (field === "title" && draft.title.trim()) field = "price";
        if (field === "price" && draft.pricingModel === "pay_what_you_want") field = "minimumPrice";
        if (field === "textContent" && kind !== "text") field = "form";
        next[field] ??= issue.message;
      }
      return setErrors(next);
    }
    setErrors({});
    save.mutate();
  };

  const busy = save.isPending;
  const fieldErrors = errorView(errors, draft.pricingModel);
  const previewShown = preview === undefined ? item.previewImage : pickedUrl;
  return (
    <div className="space-y-6">
      <Card>
        <CardHeader className="gap-3 sm:flex-row sm:items-start sm:justify-between">
          <div className="min-w-0 space-y-1">
            <CardTitle className="break-words text-2xl">Edit item</CardTitle>
            <CardDescription className="break-all">
              Same link: {location.origin}/p/{item.id}
            </CardDescription>
            <div className="flex flex-wrap gap-1.5">
              {item.published ? (
                <Badge variant="secondary">On sale</Badge>
              ) : (
                <Badge variant="destructive" data-testid="unpublished-badge">
                  Unpublished
                </Badge>
              )}
              {item.upsellOnly && <Badge variant="outline">Upsell only</Badge>}
            </div>
          </div>
          <div className="flex flex-wrap gap-2">
            <Button asChild variant="outline" size="sm">
              <a href={`/p/${item.id}`} target="_blank" rel="noreferrer">
                <ExternalLink /> View as a buyer
              </a>
            </Button>
            <Button
              variant={item.published ? "outline" : "brand"}
              size="sm"
              disabled={publication.isPending}
              onClick={() => publication.mutate(!item.published)}
            >
              {publication.isPending ? <Spinner className="size-4" /> : item.published ? <EyeOff /> : <Rocket />}
              {item.published ? "Unpublish" : "Republish"}
            </Button>
          </div>
        </CardHeader>
        <CardContent>
          <form ref={formRef} onSubmit={onSubmit} className="space-y-6" noValidate>
            <fieldset disabled={busy} className="space-y-6">
              <SellingKind kind={kind} />
              {kind === "file" && (
                <div className="space-y-2">
                  <Label>File</Label>
                  <p className="text-sm text-muted-foreground" data-testid="current-file">
                    Now: {item.fileName ?? "none"}. A new file replaces it for every buyer's next download.
                  </p>
                  <FileDropZone
                    selected={file}
                    onSelect={setFile}
                    onClear={() => setFile(null)}
                    onSubmit={() => undefined}
                    maxSize={MAX_UPLOAD_BYTES}
                    hideSubmit
                  />
                  {errors.file && (
                    <p className="text-sm text-destructive" role="alert">
                      {errors.file}
                    </p>
                  )}
                </div>
              )}
              <ItemFields
                kind={kind}
                draft={draft}
                onChange={(key, value) => set(key)(value as never)}
                errors={fieldErrors}
                priceHint="Applies to checkouts started from now on."
                licenseError={errors.activationLimit}
                disabled={busy}
                onLicenseChange={(next) => {
                  setErrors((e) => ({ ...e, activationLimit: undefined }));
                  setDraft((d) => ({
                    ...d,
                    issueLicenseKeys: next.issueLicenseKeys,
                    activationLimit: next.activationLimit,
                  }));
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
                    if (!picked.type.startsWith("image/"))
                      return toast({ title: "Preview image must be an image", variant: "destructive" });
                    setPreview(picked);
                  }}
                />
                <div className="flex flex-wrap items-center gap-3">
                  {previewShown && (
                    <img src={previewShown} alt="Preview" className="size-16 rounded-md border object-cover" />
                  )}
                  <Button type="button" variant="outline" onClick={() => previewInput.current?.click()}>
                    <ImagePlus /> {previewShown ? "Replace image" : "Add a preview image"}
                  </Button>
                  {previewShown && (
                    <Button type="button" variant="ghost" onClick={() => setPreview(null)}>
                      <X /> Remove
                    </Button>
                  )}
                </div>
                {errors.previewImage && (
                  <p className="text-sm text-destructive" role="alert">
                    {errors.previewImage}
                  </p>
                )}
              </div>
            </fieldset>
            {progress && file && (
              <UploadProgressPanel fileName={file.name} progress={progress} onCancel={() => undefined} />
            )}
            {errors.form && (
              <p className="text-sm text-destructive" role="alert">
                {errors.form}
              </p>
            )}
            <Button type="submit" variant="brand" size="lg" className="w-full" disabled={busy}>
              {busy && <Spinner className="size-4 text-white" />}
              {busy ? "Saving…" : "Save changes"}
            </Button>
          </form>
        </CardContent>
      </Card>
      <CheckoutReminderSwitch item={item} />
      <OrderBumpCard item={item} />
    </div>
  );
}

export function EditItemPage({ user, contentId }: { user: CurrentUser; contentId: string }) {
  const { item, isPending, isError, refetch } = useMyItem(contentId);
  let body: ReactNode;
  if (isPending) body = <SectionSpinner className="py-24" />;
  else if (isError)
    body = (
      <div className="space-y-3 py-16 text-center" role="alert">
        <p className="font-semibold">Could not load your item.</p>
        <Button variant="outline" onClick={() => refetch()}>
          Try again
        </Button>
      </div>
    );
  else if (!item) return <NotFoundScreen />;
  // Keyed by the saved values, so the form starts from what was saved.
  else body = <EditForm key={item.id} item={item} />;
  return (
    <div className="min-h-screen bg-muted/30">
      <CreatorTopBar user={user} />
      <main className="mx-auto max-w-3xl space-y-6 px-4 py-8">
        <Link to="/" className="inline-flex items-center gap-1 text-sm text-muted-foreground hover:text-foreground">
          <ArrowLeft className="size-4" /> Back to dashboard
        </Link>
        {body}
      </main>
    </div>
  );
}
