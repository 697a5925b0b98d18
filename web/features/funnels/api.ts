// The creator's funnel calls (spec §7 Funnels) and the editor's three-call add-step flow.
import { formatDollarsPlain } from "@shared/money";
import type { FunnelStep, StepType } from "@shared/funnels";
import { FUNNEL_MESSAGES } from "@shared/funnels";
import { api, apiRequest } from "@/lib/api";
import { uploadFile } from "@/features/upload/multipart-upload";

export const createFunnel = (name: string) => api("POST /api/funnels", { body: { name } });
export const setTestMode = (funnelId: string, testMode: boolean) =>
  apiRequest("PATCH", `/api/funnels/${funnelId}`, { testMode });
export const attachProducts = (funnelId: string, contentIds: string[]) =>
  apiRequest("POST", `/api/funnels/${funnelId}/products`, { contentIds });
export const detachProduct = (funnelId: string, contentId: string) =>
  apiRequest("DELETE", `/api/funnels/${funnelId}/products/${contentId}`);
export const moveStep = (funnelId: string, stepId: string, stepOrder: number) =>
  apiRequest("PATCH", `/api/funnels/${funnelId}/steps/${stepId}`, { stepOrder });
export const editStep = async (
  funnelId: string,
  stepId: string,
  fields: Partial<Pick<FunnelStep, "title" | "description" | "ctaText" | "offerPriceId" | "stepType">> & {
    maximumPrice?: string | null;
  },
) => api("PATCH /api/funnels/:id/steps/:stepId", { params: { id: funnelId, stepId }, body: fields });
export const deleteStep = (funnelId: string, stepId: string) =>
  apiRequest("DELETE", `/api/funnels/${funnelId}/steps/${stepId}`);
export const createStep = async (
  funnelId: string,
  body: {
    title: string;
    description: string;
    ctaText: string;
    stepOrder: number;
    stepType?: StepType;
    contentId: string;
    price?: string;
    upsellOnly?: boolean;
    maximumPrice?: string | null;
  },
) => api("POST /api/funnels/:id/steps", { params: { id: funnelId }, body });
/** 'Edit funnel' on an item: that item's funnel, made for it if it has none. */
export const funnelForItem = (contentId: string) => api("POST /api/funnels/for-item", { body: { contentId } });

/** A server answer "field: message; …" as messages by field, to show beside each field. */
export function fieldErrors(err: unknown): Record<string, string> {
  const text = err instanceof Error ? err.message.replace(/^\d+: /, "") : "";
  const out: Record<string, string> = {};
  for (const part of text.split("; ")) {
    const named = /^([A-Za-z]+): (.*)$/.exec(part);
    const worded = /^([a-z][A-Za-z]+) (must|is) /.exec(part);
    if (named) out[named[1]] = named[2];
    else if (worded) out[worded[1]] = part;
    else if (part) out._ = part;
  }
  return out;
}

/** An upsell step as the upload modal and the editor draft it (spec §3 Upsell draft). */
export type UpsellDraft = {
  title: string;
  description: string;
  price: string;
  pricingModel: "fixed" | "tip";
  minimumPrice: string;
  /** A tip step's ceiling; empty: TIP_CEILING_MULTIPLE x the minimum. */
  maximumPrice: string;
  category: string;
  accessType: "download" | "view" | "stream" | "link";
  ctaText: string;
  stepType: StepType;
  file: File | null;
  previewImage: string | null;
  linkUrl: string;
  textContent: string;
};

export const emptyDraft = (): UpsellDraft => ({
  title: "",
  description: "",
  price: "",
  pricingModel: "fixed",
  minimumPrice: "",
  maximumPrice: "",
  category: "other",
  accessType: "download",
  ctaText: "Add this to my order",
  stepType: "upsell",
  file: null,
  previewImage: null,
  linkUrl: "",
  textContent: "",
});

/** The draft's problem, by the field it belongs beside (spec §5 words). */
export function draftErrors(d: UpsellDraft): Record<string, string> {
  const problem = draftProblem(d);
  if (!problem) return {};
  const price = d.pricingModel === "tip" ? d.minimumPrice || d.price : d.price;
  if (problem === FUNNEL_MESSAGES.titleAndPrice)
    return { ...(!d.title.trim() ? { title: problem } : {}), ...(!price.trim() ? { price: problem } : {}) };
  if (problem === FUNNEL_MESSAGES.downloadFile) return { file: problem };
  if (problem === FUNNEL_MESSAGES.linkUrl) return { link: problem };
  return { price: problem };
}

/** Spec §5 Upsell step: the first problem, in the spec's words, or null. */
export function draftProblem(d: UpsellDraft): string | null {
  const price = d.pricingModel === "tip" ? d.minimumPrice || d.price : d.price;
  if (!d.title.trim() || !price.trim()) return FUNNEL_MESSAGES.titleAndPrice;
  if (d.accessType === "download" && !d.file) return FUNNEL_MESSAGES.downloadFile;
  if (d.accessType === "link" && !d.linkUrl.trim()) return FUNNEL_MESSAGES.linkUrl;
  if (d.pricingModel === "tip" && d.maximumPrice.trim() && Number(d.maximumPrice) < Number(price))
    return `The maximum tip must be at least the minimum price (${formatDollarsPlain(Number(price))})`;
  return null;
}

/**
 * The add-step flow: (1) the offer's content (the file through the same resumable upload as any
 * item), (2) the step naming it, made upsell-only; the server makes the offer's Stripe price.
 */
export async function addUpsellStep(funnelId: string, d: UpsellDraft, stepOrder: number): Promise<FunnelStep> {
  const price = d.pricingModel === "tip" ? d.minimumPrice || d.price : d.price;
  const form = new FormData();
  form.append("title", d.title.trim());
  form.append("description", d.description);
  form.append("pricingModel", d.pricingModel === "tip" ? "pay_what_you_want" : "fixed");
  form.append("price", price);
  form.append("minimumPrice", d.pricingModel === "tip" ? price : "");
  form.append("category", d.category);
  form.append("accessType", d.accessType);
  if (d.accessType === "link") form.append("linkUrl", d.linkUrl.trim());
  if (d.accessType === "view" && d.textContent.trim()) form.append("textContent", d.textContent);
  if (d.previewImage) form.append("previewImage", d.previewImage);
  if (d.file && d.accessType !== "link") form.append("uploadId", await uploadFile(d.file, {}));
  // Upsell-only from the start: a step that then fails to be made leaves nothing sellable behind.
  form.append("upsellOnly", "true");
  const item = await api("POST /api/content", { body: form });
  return createStep(funnelId, {
    title: d.title.trim(),
    description: d.description,
    price,
    upsellOnly: true,
    ctaText: d.ctaText.trim() || "Add this to my order",
    stepOrder,
    stepType: d.stepType,
    contentId: item.id,
    ...(d.pricingModel === "tip" && d.maximumPrice.trim() ? { maximumPrice: d.maximumPrice.trim() } : {}),
  });
}
