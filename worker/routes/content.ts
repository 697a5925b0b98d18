// Content: publish (multipart form), edit and unpublish/republish, the creator's list, the public
// detail, delete, preview image.
import { Hono, type TypedResponse } from "hono";
import type { JSONParsed } from "hono/utils/types";
import { bodyLimit } from "hono/body-limit";
import { z } from "zod";
import { MAX_INLINE_FILE_BYTES, MAX_PREVIEW_IMAGE_BYTES } from "../../shared/uploads";
import {
  MAX_TEXT_CONTENT_CHARS,
  contentFormSchema,
  publicationSchema,
  updateContentSchema,
  creatorContentSchema,
  publicContentSchema,
  creatorContentListSchema,
  type PublicContent,
} from "../../shared/content";
import { readNearby, type Db } from "../db/client";
import { requireUser, type AppEnv } from "../middleware/context";
import { ApiError, describeZodError, notFound } from "../lib/errors";
import { decodeDataUrl, imageAnswer, sniffImageType } from "../lib/images";
import { forgetPaywallPages, purgePaywallPage } from "../lib/paywall-cache";
import {
  answerOf,
  cachedPublicContent,
  forgetPublicContent,
  goneAnswer,
  keepPublicContent,
  publicContentKey,
  replacePublicContent,
} from "../lib/public-content-cache";
import { refuseTooLarge, validate } from "../lib/validate";
import {
  createContent,
  deleteContent,
  listCreatorContent,
  previewImage,
  publicContent,
  setPublished,
  updateContent,
  type FileSource,
  type PreviewImage,
} from "../services/content";
import { itemsOffering } from "../services/funnels/bumps";
import { replacePaywallPage } from "./paywall-page";
import { doc } from "../openapi/describe";

const idParam = z.object({ id: z.string().regex(/^[A-Za-z0-9]{1,32}$/, "invalid content id") });
// Inline file + preview + text + form overhead. Bigger files go through /api/uploads.
const MAX_FORM_BYTES = MAX_INLINE_FILE_BYTES + MAX_PREVIEW_IMAGE_BYTES + MAX_TEXT_CONTENT_CHARS * 4 + 64 * 1024;

const field = (form: FormData, name: string) => {
  const v = form.get(name);
  return typeof v === "string" ? v : undefined;
};

/** What anyone may see of an item (never who its creator is internally, nor the image's size). */
const visibleOf = (item: Awaited<ReturnType<typeof publicContent>>) => {
  if (!item) return null;
  const { creatorId, previewImageSize, ...visible } = item;
  return visible;
};

type Changed = { env: AppEnv["Bindings"]; req: { url: string } };

/** After its creator changed an item: its public answer read from the primary replaces the cached one. */
async function replaceAnswer(c: Changed, db: Db, userId: string, id: string) {
  const visible = visibleOf(await publicContent(db, id));
  await replacePublicContent(publicContentKey(c.env, c.req.url, id), visible ? answerOf(visible) : goneAnswer());
  await forgetItemsOffering(c, db, userId, id);
}

/** The items that offer this one as their order bump show its title and whether it sells: dropped too. */
async function forgetItemsOffering(c: Changed, db: Db, userId: string, id: string) {
  const ids = await itemsOffering(db, userId, id);
  if (ids.length)
    await Promise.all([forgetPaywallPages(c.env, c.req.url, ids), forgetPublicContent(c.env, c.req.url, ids)]);
}

async function readPreview(value: File | string | null): Promise<PreviewImage> {
  if (value === null || value === "") return null;
  const bytes = typeof value === "string" ? decodeDataUrl(value) : new Uint8Array(await value.arrayBuffer());
  if (!bytes || bytes.length === 0) {
    if (typeof value !== "string" && value.size === 0) return null;
    throw new ApiError(400, "Preview image must be a PNG, JPEG, GIF or WebP image");
  }
  if (bytes.length > MAX_PREVIEW_IMAGE_BYTES) throw new ApiError(400, "Preview image must be at most 5 MB");
  const type = sniffImageType(bytes);
  if (!type) throw new ApiError(400, "Preview image must be a PNG, JPEG, GIF or WebP image");
  return { bytes, type };
}

export const contentRoutes = new Hono<AppEnv>()
  .post(
    "/content",
    doc({
      tag: "Items",
      summary: "Publish an item",
      description:
        "A multipart form: title, description, price (dollars), pricingModel (fixed | pay_what_you_want), minimumPrice, category, accessType (download | view | stream | link), linkUrl, textContent, previewImage, and either file (up to 8 MB) or uploadId (a completed upload).",
      access: "creator",
      status: 201,
      ok: creatorContentSchema,
      body: { media: "multipart/form-data", description: "The item's fields; see the description" },
      errors: {
        404: "The upload named by uploadId is not yours",
        409: "The upload has not finished, or is already published",
        410: "The upload was removed",
      },
    }),
    requireUser,
    bodyLimit({
      maxSize: MAX_FORM_BYTES,
      onError: (c) => refuseTooLarge(c.req.raw, "The form is too large: send files over 8 MB as an upload"),
    }),
    async (c) => {
      let form: FormData;
      try {
        form = await c.req.formData();
      } catch {
        throw new ApiError(400, "Expected a multipart form");
      }
      const file = form.get("file");
      const uploadId = field(form, "uploadId");
      if (uploadId !== undefined && !/^[A-Za-z0-9]{1,32}$/.test(uploadId)) throw new ApiError(400, "invalid uploadId");
      const hasInlineFile = file instanceof File && file.size > 0;
      if (hasInlineFile && uploadId) throw new ApiError(400, "Send either a file or an uploadId, not both");
      if (hasInlineFile && file.size > MAX_INLINE_FILE_BYTES)
        throw new ApiError(413, "Files over 8 MB must be sent as an upload");

      const parsed = contentFormSchema.safeParse({
        title: field(form, "title"),
        description: field(form, "description"),
        price: field(form, "price"),
        pricingModel: field(form, "pricingModel") || undefined,
        minimumPrice: field(form, "minimumPrice"),
        category: field(form, "category") || undefined,
        accessType: field(form, "accessType") || undefined,
        linkUrl: field(form, "linkUrl"),
        textContent: field(form, "textContent"),
        hasFile: hasInlineFile || !!uploadId,
        issueLicenseKeys: field(form, "issueLicenseKeys"),
        activationLimit: field(form, "activationLimit"),
      });
      if (!parsed.success) throw new ApiError(400, describeZodError(parsed.error).replace(/^\w+: /, ""));
      const values = parsed.data;
      // A link or a text item carries no file, even if one was sent along.
      const keepsFile = values.accessType !== "link" && !(values.accessType === "view" && values.textContent);
      const source: FileSource = !keepsFile
        ? { kind: "none" }
        : uploadId
          ? { kind: "upload", uploadId }
          : hasInlineFile
            ? { kind: "inline", file: file as File }
            : { kind: "none" };
      const preview = await readPreview(form.get("previewImage"));
      // An offer made for a funnel step is upsell-only from its first moment: if the step is never
      // made, no item that sells on its own is left behind.
      const upsellOnly = field(form, "upsellOnly") === "true";
      const created = await createContent(c.var.db, c.env.FILES, c.var.userId!, values, source, preview, {
        upsellOnly,
      });
      return c.json(created, 201);
    },
  )
  .get(
    "/content",
    doc({ tag: "Items", summary: "The creator's items", access: "creator", ok: creatorContentListSchema }),
    requireUser,
    async (c) => c.json(await listCreatorContent(c.var.db, c.var.userId!)),
  )
  // The body's size is capped by the API's body guard (MAX_CONTENT_EDIT_BYTES: room for the image).
  .patch(
    "/content/:id",
    doc({
      tag: "Items",
      summary: "Edit an item",
      description: "Fields left out stay as they are. A price change applies to checkouts started after it.",
      access: "creator",
      ok: creatorContentSchema,
      errors: {
        404: "No such item of yours",
        409: "The upload has not finished or is already published, or the item changed meanwhile",
        410: "The upload was removed",
      },
    }),
    requireUser,
    validate("param", idParam),
    validate("json", updateContentSchema),
    async (c) => {
      const id = c.req.valid("param").id;
      const body = c.req.valid("json");
      const preview = body.previewImage === undefined ? undefined : await readPreview(body.previewImage);
      const edited = await updateContent(c.var.db, c.env.FILES, c.var.userId!, id, body, preview);
      await replacePaywallPage(c, id);
      await replaceAnswer(c, c.var.db, c.var.userId!, id);
      return c.json(edited);
    },
  )
  .put(
    "/content/:id/published",
    doc({
      tag: "Items",
      summary: "Take an item off sale, or put it back",
      description: "Buyers keep their access either way.",
      access: "creator",
      ok: creatorContentSchema,
      errors: { 404: "No such item of yours" },
    }),
    requireUser,
    validate("param", idParam),
    validate("json", publicationSchema),
    async (c) => {
      const id = c.req.valid("param").id;
      const item = await setPublished(c.var.db, c.var.userId!, id, c.req.valid("json").published);
      await replacePaywallPage(c, id);
      await replaceAnswer(c, c.var.db, c.var.userId!, id);
      return c.json(item);
    },
  )
  .get(
    "/content/:id",
    doc({
      tag: "Items",
      summary: "What anyone may see of an item before paying",
      description: "Never its file, link or text.",
      access: "public",
      ok: publicContentSchema,
      errors: { 404: "No such item" },
    }),
    validate("param", idParam),
    async (c) => {
      const id = c.req.valid("param").id;
      // The same for every caller, so answered from the caches (worker/lib/public-content-cache.ts);
      // a 404 comes from the primary (readNearby asks it), so the id was never made: remembered briefly.
      const key = publicContentKey(c.env, c.req.url, id);
      let answer = await cachedPublicContent(key);
      if (!answer) {
        answer = answerOf(visibleOf(await readNearby(c.env.DB, (db) => publicContent(db, id))));
        keepPublicContent(c.executionCtx, key, answer);
      }
      if (!answer.body) throw notFound("Content Not Found");
      // A view is a visit to the paywall page (which counts it); this call is data, read again by
      // checkout, so it counts nothing.
      // The kept bytes are c.json's of the same object: typed as that answer.
      return c.body(answer.body, 200, { "content-type": "application/json" }) as unknown as Response &
        TypedResponse<JSONParsed<PublicContent>, 200, "json">;
    },
  )
  .delete(
    "/content/:id",
    doc({
      tag: "Items",
      summary: "Delete an item",
      access: "creator",
      status: 204,
      ok: { empty: "Deleted" },
      errors: { 404: "No such item of yours", 409: "The item has sales: take it off sale instead" },
    }),
    requireUser,
    validate("param", idParam),
    async (c) => {
      const id = c.req.valid("param").id;
      await deleteContent(c.var.db, c.var.userId!, id);
      await purgePaywallPage(c.env, c.req.url, id);
      await replacePublicContent(publicContentKey(c.env, c.req.url, id), goneAnswer());
      await forgetItemsOffering(c, c.var.db, c.var.userId!, id);
      return c.body(null, 204);
    },
  )
  .get(
    "/content/:id/preview-image",
    doc({
      tag: "Items",
      summary: "An item's preview image",
      access: "public",
      ok: { file: "The image (PNG, JPEG, GIF or WebP)" },
      also: { 304: { description: "Not modified (If-None-Match)", answer: { empty: "Not modified" } } },
      errors: { 404: "No such item, or it has no preview image" },
    }),
    validate("param", idParam),
    async (c) => {
      const id = c.req.valid("param").id;
      const object = await readNearby(c.env.DB, (db) => previewImage(db, c.env.FILES, id));
      if (!object) throw notFound("No preview image");
      return imageAnswer(c, object, "public, max-age=86400, stale-while-revalidate=604800");
    },
  );
