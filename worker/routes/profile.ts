// The creator's public profile (worker/services/profile.ts): GET/PUT /api/profile, PUT/DELETE
// /api/profile/avatar (the image as the raw body), and GET /api/avatars/{id} for everyone.
import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { z } from "zod";
import { MAX_AVATAR_BYTES, PROFILE_MESSAGES, profileSchema, creatorProfileSchema } from "../../shared/profile";
import { readNearby, type Db } from "../db/client";
import { requireUser, type AppEnv } from "../middleware/context";
import { ApiError, notFound } from "../lib/errors";
import { imageAnswer } from "../lib/images";
import { forgetPaywallPages } from "../lib/paywall-cache";
import { forgetPublicContent } from "../lib/public-content-cache";
import { refuseTooLarge, validate } from "../lib/validate";
import { avatarImage, getProfile, liveItemIds, removeAvatar, saveAvatar, saveProfile } from "../services/profile";
import { doc } from "../openapi/describe";

const avatarParam = z.object({ id: z.string().regex(/^[a-f0-9]{32}$/, "invalid avatar id") });

/** Every paywall page and public answer of the creator's items shows the profile: drop the cached copies. */
async function refreshPaywalls(c: Pick<Context<AppEnv>, "env" | "req">, db: Db, userId: string): Promise<void> {
  const ids = await liveItemIds(db, userId);
  await Promise.all([forgetPaywallPages(c.env, c.req.url, ids), forgetPublicContent(c.env, c.req.url, ids)]);
}

export const profileRoutes = new Hono<AppEnv>()
  .get(
    "/profile",
    doc({ tag: "Profile", summary: "The creator's profile", access: "creator", ok: creatorProfileSchema }),
    requireUser,
    async (c) => c.json(await getProfile(c.var.db, c.var.userId)),
  )
  .put(
    "/profile",
    doc({
      tag: "Profile",
      summary: "Save the profile",
      description: "Fields left out stay as they are.",
      access: "session",
      ok: creatorProfileSchema,
    }),
    requireUser,
    validate("json", profileSchema),
    async (c) => {
      const profile = await saveProfile(c.var.db, c.var.userId, c.req.valid("json"));
      await refreshPaywalls(c, c.var.db, c.var.userId);
      return c.json(profile);
    },
  )
  .put(
    "/profile/avatar",
    doc({
      tag: "Profile",
      summary: "Upload an avatar",
      access: "session",
      ok: creatorProfileSchema,
      body: { media: "image/png", description: "The image's bytes: PNG, JPEG, GIF or WebP, at most 2 MB" },
    }),
    requireUser,
    bodyLimit({
      maxSize: MAX_AVATAR_BYTES,
      onError: (c) => refuseTooLarge(c.req.raw, PROFILE_MESSAGES.avatarSize),
    }),
    async (c) => {
      // The declared type must be an image; the bytes decide which (services/profile.ts checkAvatar).
      const declared = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
      if (!declared.startsWith("image/")) throw new ApiError(415, PROFILE_MESSAGES.avatarType);
      const bytes = new Uint8Array(await c.req.arrayBuffer());
      const profile = await saveAvatar(c.var.db, c.env.FILES, c.var.userId, bytes);
      await refreshPaywalls(c, c.var.db, c.var.userId);
      return c.json(profile);
    },
  )
  .delete(
    "/profile/avatar",
    doc({ tag: "Profile", summary: "Remove the avatar", access: "session", ok: creatorProfileSchema }),
    requireUser,
    async (c) => {
      const profile = await removeAvatar(c.var.db, c.env.FILES, c.var.userId);
      await refreshPaywalls(c, c.var.db, c.var.userId);
      return c.json(profile);
    },
  )
  .get(
    "/avatars/:id",
    doc({
      tag: "Profile",
      summary: "A creator's avatar image",
      access: "public",
      ok: { file: "The image" },
      also: { 304: { description: "Not modified (If-None-Match)", answer: { empty: "Not modified" } } },
      errors: { 404: "No such avatar" },
    }),
    validate("param", avatarParam),
    async (c) => {
      const id = c.req.valid("param").id;
      const object = await readNearby(c.env.DB, (db) => avatarImage(db, c.env.FILES, id));
      if (!object) throw notFound("No avatar");
      // A new image is a new id: this one never changes.
      return imageAnswer(c, object, "public, max-age=31536000, immutable");
    },
  );
