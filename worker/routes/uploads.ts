// Multipart uploads of a creator's file to R2: create, send parts (any order, any retries), read
// back what arrived (to resume), complete or abort.
import { Hono } from "hono";
import { z } from "zod";
import { createUploadSchema, uploadStateSchema, uploadedPartSchema } from "../../shared/uploads";
import { requireUser, type AppEnv } from "../middleware/context";
import { ApiError } from "../lib/errors";
import { validate } from "../lib/validate";
import { abortUpload, completeUpload, createUpload, ownUpload, uploadPart, uploadState } from "../services/uploads";
import { doc } from "../openapi/describe";

const idParam = z.object({ id: z.string().regex(/^[A-Za-z0-9]{1,32}$/, "invalid upload id") });
const partParam = idParam.extend({
  partNumber: z
    .string()
    .regex(/^\d{1,6}$/, "partNumber must be a positive whole number")
    .transform(Number),
});

export const uploadRoutes = new Hono<AppEnv>()
  .use("/uploads/*", requireUser)
  .use("/uploads", requireUser)
  .post(
    "/uploads",
    doc({
      tag: "Uploads",
      summary: "Start a multipart upload",
      access: "creator",
      status: 201,
      ok: uploadStateSchema,
      errors: { 409: "Too many uploads in progress: finish or cancel one" },
    }),
    validate("json", createUploadSchema),
    async (c) => c.json(await createUpload(c.var.db, c.env.DB, c.env.FILES, c.var.userId!, c.req.valid("json")), 201),
  )
  .get(
    "/uploads/:id",
    doc({
      tag: "Uploads",
      summary: "An upload's state, to resume it",
      access: "creator",
      ok: uploadStateSchema,
      errors: { 404: "No such upload of yours" },
    }),
    validate("param", idParam),
    async (c) => c.json(await uploadState(c.var.db, c.var.userId!, c.req.valid("param").id)),
  )
  .put(
    "/uploads/:id/parts/:partNumber",
    doc({
      tag: "Uploads",
      summary: "Send one part",
      description: "Parts may arrive in any order and be sent again.",
      access: "creator",
      ok: uploadedPartSchema,
      body: { media: "application/octet-stream", description: "The part's bytes: partSize bytes, the last part fewer" },
      errors: {
        404: "No such upload of yours",
        409: "The upload is no longer open",
        411: "Content-Length is required",
      },
    }),
    validate("param", partParam),
    async (c) => {
      const { id, partNumber } = c.req.valid("param");
      const length = Number(c.req.header("content-length") ?? NaN);
      return c.json(await uploadPart(c.var.db, c.env.FILES, c.var.userId!, id, partNumber, length, c.req.raw.body));
    },
  )
  .post(
    "/uploads/:id/complete",
    doc({
      tag: "Uploads",
      summary: "Complete an upload",
      access: "creator",
      ok: uploadStateSchema,
      errors: { 404: "No such upload of yours", 409: "Parts are missing" },
    }),
    validate("param", idParam),
    async (c) => c.json(await completeUpload(c.var.db, c.env.FILES, c.var.userId!, c.req.valid("param").id)),
  )
  .delete(
    "/uploads/:id",
    doc({
      tag: "Uploads",
      summary: "Abort an upload",
      access: "creator",
      status: 204,
      ok: { empty: "Aborted" },
      errors: { 404: "No such upload of yours", 409: "The upload belongs to an item" },
    }),
    validate("param", idParam),
    async (c) => {
      const row = await ownUpload(c.var.db, c.var.userId!, c.req.valid("param").id);
      // Already aborted: done. Finished (or finishing) first: it stays, and is removed after 7 days unless published.
      if (!(await abortUpload(c.var.db, c.env.FILES, row)) && row.status !== "aborted") {
        const now = await ownUpload(c.var.db, c.var.userId!, row.id);
        if (now.status !== "aborted") throw new ApiError(409, `Upload is ${now.status}`);
      }
      return c.body(null, 204);
    },
  );
