// The purchased file: a short-lived signed download URL for the caller's purchase, the download it
// signs, and the file opened with an access link. Behaviour: docs/payments.md, docs/uploads.md.
import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import type { DownloadLink } from "../../shared/payments";
import { content, purchases } from "../db/schema";
import type { AppEnv } from "../middleware/context";
import { ApiError, notFound } from "../lib/errors";
import { optionalJson, validate } from "../lib/validate";
import { downloadSignatureValid, signedDownloadPath } from "../services/download-links";
import { serveFile } from "../services/files";
import { purchaseIdFromToken } from "../services/purchases/access-tokens";
import { assertPaid, currentPurchaseOfContent } from "../services/purchases/buyer-access";
import { doc } from "../openapi/describe";
import { claimOf, purchaseDeps } from "./purchase-context";
import { downloadLinkSchema } from "../../shared/payments";

const idParam = z.object({ id: z.string().regex(/^[A-Za-z0-9]{1,32}$/, "invalid id") });
/** The download call's body: the access link's token when the caller holds one; a bare POST is `{}`. */
const downloadBodySchema = z.object({ access: z.string().max(500).optional() });

export const downloadRoutes = new Hono<AppEnv>()
  // A short-lived URL signed for the caller's purchase: navigating to it streams the file to disk.
  .post(
    "/content/:id/download",
    doc({
      tag: "Checkout and access",
      summary: "A short-lived download URL for the purchased file",
      access: "buyer",
      ok: downloadLinkSchema,
      errors: {
        403: "Access to this purchase was revoked after a refund or dispute",
        404: "No purchase, or the item has no file",
        409: "Payment is still processing",
      },
    }),
    validate("param", idParam),
    async (c) => {
      const deps = purchaseDeps(c);
      const { access } = await optionalJson(c, downloadBodySchema);
      const purchase = await currentPurchaseOfContent(deps, claimOf(c, access), c.req.valid("param").id);
      assertPaid(purchase);
      const item = await c.var.db
        .select({ fileKey: content.fileKey })
        .from(content)
        .where(eq(content.id, purchase.contentId))
        .get();
      if (!item?.fileKey) throw notFound("This item has no file to download");
      return c.json((await signedDownloadPath(deps.accessSecret, purchase.id)) satisfies DownloadLink);
    },
  )
  .on(
    ["GET", "HEAD"],
    "/purchases/:id/download",
    doc({
      tag: "Checkout and access",
      summary: "Download the purchased file (a signed URL)",
      access: "public",
      ok: { file: "The file, as an attachment; Range requests are answered 206" },
      also: {
        206: { description: "Part of the file (a Range request)", answer: { file: "The requested range" } },
        304: { description: "Not modified (If-None-Match)", answer: { empty: "Not modified" } },
      },
      errors: {
        416: "The requested range is outside the file",
        403: "The link has expired or is not valid, or access was revoked after a refund or dispute",
        404: "No such file",
        409: "Payment is still processing",
      },
    }),
    validate("param", idParam),
    async (c) => {
      const id = c.req.valid("param").id;
      const secret = c.env.ACCESS_TOKEN_SECRET;
      if (!secret || !(await downloadSignatureValid(secret, id, c.req.query("expires"), c.req.query("sig")))) {
        throw new ApiError(
          403,
          "This download link has expired or is not valid. Open your access link to download again.",
        );
      }
      const purchase = await c.var.db.select().from(purchases).where(eq(purchases.id, id)).get();
      assertPaid(purchase ?? null);
      const item = await c.var.db.select().from(content).where(eq(content.id, purchase!.contentId)).get();
      if (!item?.fileKey) throw notFound("This item has no file");
      return serveFile(
        c.env.FILES,
        item.fileKey,
        { name: item.fileName ?? "download", type: item.fileContentType },
        c.req.raw,
        "attachment",
      );
    },
  )
  .on(
    ["GET", "HEAD"],
    "/purchases/:id/file",
    doc({
      tag: "Checkout and access",
      summary: "Open the purchased file with an access link",
      access: "buyer",
      ok: { file: "The file, inline (download=1: as an attachment)" },
      also: {
        206: { description: "Part of the file (a Range request)", answer: { file: "The requested range" } },
        304: { description: "Not modified (If-None-Match)", answer: { empty: "Not modified" } },
      },
      errors: {
        416: "The requested range is outside the file",
        403: "This link does not grant access to the file, or access was revoked after a refund or dispute",
        404: "No such file",
        409: "Payment is still processing",
      },
    }),
    validate("param", idParam),
    async (c) => {
      const secret = c.env.ACCESS_TOKEN_SECRET;
      const purchaseId = secret ? await purchaseIdFromToken(secret, c.req.query("access")) : null;
      if (!purchaseId || purchaseId !== c.req.valid("param").id)
        throw new ApiError(403, "This link does not grant access to the file");
      const purchase = await c.var.db.select().from(purchases).where(eq(purchases.id, purchaseId)).get();
      assertPaid(purchase ?? null);
      const item = await c.var.db.select().from(content).where(eq(content.id, purchase!.contentId)).get();
      if (!item?.fileKey) throw notFound("This item has no file");
      const disposition = c.req.query("download") === "1" ? "attachment" : "inline";
      return serveFile(
        c.env.FILES,
        item.fileKey,
        { name: item.fileName ?? "file", type: item.fileContentType },
        c.req.raw,
        disposition,
      );
    },
  );
