// The creator's public profile (display name, avatar, bio, support email) and how buyers see the
// creator they pay. Saving is one upsert; an avatar is stored under an id from the creator and its
// bytes, then the profile points at it, then the old image is deleted, so each step is safe to repeat.
// Behaviour: docs/security.md ("The creator's public profile").
import { and, eq, isNull } from "drizzle-orm";
import {
  AVATAR_TYPES,
  MAX_AVATAR_BYTES,
  PROFILE_MESSAGES,
  publicName,
  type CreatorProfile,
  type ProfileValues,
  type PublicCreator,
} from "../../shared/profile";
import type { Db } from "../db/client";
import { content, creatorProfiles, users } from "../db/schema";
import { ApiError } from "../lib/errors";
import { sha256Hex } from "../lib/ids";
import { sniffImageType } from "../lib/images";
import type { MailCreator } from "./mail/templates";

const avatarKey = (avatarId: string) => `avatars/${avatarId}`;
const avatarPath = (avatarId: string) => `/api/avatars/${avatarId}`;

type ProfileRow = typeof creatorProfiles.$inferSelect;

function toProfile(
  row: ProfileRow | undefined,
  user: { firstName: string | null; lastName: string | null },
): CreatorProfile {
  return {
    displayName: row?.displayName ?? null,
    bio: row?.bio ?? null,
    supportEmail: row?.supportEmail ?? null,
    avatarUrl: row?.avatarId ? avatarPath(row.avatarId) : null,
    accountName: publicName(null, user.firstName, user.lastName),
    emailOnSale: row?.emailOnSale ?? true,
  };
}

/** The signed-in creator's own profile (an empty one when never saved). */
export async function getProfile(db: Db, userId: string): Promise<CreatorProfile> {
  const found = await db
    .select({ firstName: users.firstName, lastName: users.lastName, row: creatorProfiles })
    .from(users)
    .leftJoin(creatorProfiles, eq(creatorProfiles.userId, users.id))
    .where(eq(users.id, userId))
    .get();
  if (!found) throw new ApiError(401, "Unauthorized");
  return toProfile(found.row ?? undefined, found);
}

/** Replaces the text fields of the creator's profile (the avatar stays; `emailOnSale` only when given). */
export async function saveProfile(db: Db, userId: string, values: ProfileValues): Promise<CreatorProfile> {
  const now = new Date();
  await db
    .insert(creatorProfiles)
    .values({ userId, ...values, updatedAt: now })
    .onConflictDoUpdate({ target: creatorProfiles.userId, set: { ...values, updatedAt: now } });
  return getProfile(db, userId);
}

/** The image's type, from its bytes, or a 400 naming what is accepted. */
function checkAvatar(bytes: Uint8Array): (typeof AVATAR_TYPES)[number] {
  if (bytes.byteLength > MAX_AVATAR_BYTES) throw new ApiError(413, PROFILE_MESSAGES.avatarSize);
  const type = sniffImageType(bytes);
  const allowed = AVATAR_TYPES.find((t) => t === type);
  if (!allowed) throw new ApiError(400, PROFILE_MESSAGES.avatarType);
  return allowed;
}

/** Sets the creator's avatar (steps 2 above). */
export async function saveAvatar(db: Db, bucket: R2Bucket, userId: string, bytes: Uint8Array): Promise<CreatorProfile> {
  const type = checkAvatar(bytes);
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  const bytesHash = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  const avatarId = (await sha256Hex(`${userId}:${bytesHash}`)).slice(0, 32);
  const before = await db
    .select({ avatarId: creatorProfiles.avatarId })
    .from(creatorProfiles)
    .where(eq(creatorProfiles.userId, userId))
    .get();
  if (before?.avatarId !== avatarId) {
    await bucket.put(avatarKey(avatarId), bytes, { httpMetadata: { contentType: type } });
    const now = new Date();
    await db
      .insert(creatorProfiles)
      .values({ userId, avatarId, avatarType: type, updatedAt: now })
      .onConflictDoUpdate({ target: creatorProfiles.userId, set: { avatarId, avatarType: type, updatedAt: now } });
    if (before?.avatarId) await bucket.delete(avatarKey(before.avatarId));
  }
  return getProfile(db, userId);
}

/** Removes the creator's avatar; removing none is a no-op. */
export async function removeAvatar(db: Db, bucket: R2Bucket, userId: string): Promise<CreatorProfile> {
  const before = await db
    .select({ avatarId: creatorProfiles.avatarId })
    .from(creatorProfiles)
    .where(eq(creatorProfiles.userId, userId))
    .get();
  if (before?.avatarId) {
    await db
      .update(creatorProfiles)
      .set({ avatarId: null, avatarType: null, updatedAt: new Date() })
      .where(eq(creatorProfiles.userId, userId));
    await bucket.delete(avatarKey(before.avatarId));
  }
  return getProfile(db, userId);
}

/** The current avatar with this id (an old, replaced id is gone: 404). */
export async function avatarImage(db: Db, bucket: R2Bucket, avatarId: string): Promise<R2ObjectBody | null> {
  const row = await db
    .select({ avatarId: creatorProfiles.avatarId })
    .from(creatorProfiles)
    .where(eq(creatorProfiles.avatarId, avatarId))
    .get();
  if (!row?.avatarId) return null;
  return bucket.get(avatarKey(row.avatarId));
}

/** The ids of the creator's live items: their paywall pages show the profile. */
export async function liveItemIds(db: Db, userId: string): Promise<string[]> {
  const rows = await db
    .select({ id: content.id })
    .from(content)
    .where(and(eq(content.userId, userId), isNull(content.deletedAt)));
  return rows.map((r) => r.id);
}

/** The columns a query joins to say who the buyer pays (left join creator_profiles, inner join users). */
export const creatorColumns = {
  firstName: users.firstName,
  lastName: users.lastName,
  displayName: creatorProfiles.displayName,
  bio: creatorProfiles.bio,
  supportEmail: creatorProfiles.supportEmail,
  avatarId: creatorProfiles.avatarId,
};
type CreatorColumns = {
  firstName: string | null;
  lastName: string | null;
  displayName: string | null;
  bio: string | null;
  supportEmail: string | null;
  avatarId: string | null;
};

export function toPublicCreator(c: CreatorColumns): PublicCreator {
  return {
    name: publicName(c.displayName, c.firstName, c.lastName),
    avatarUrl: c.avatarId ? avatarPath(c.avatarId) : null,
    bio: c.bio,
    supportEmail: c.supportEmail,
  };
}

/** Who the buyer pays, for one creator (receipts, the success page). */
export async function publicCreator(db: Db, userId: string): Promise<PublicCreator> {
  const found = await db
    .select(creatorColumns)
    .from(users)
    .leftJoin(creatorProfiles, eq(creatorProfiles.userId, users.id))
    .where(eq(users.id, userId))
    .get();
  return toPublicCreator(
    found ?? { firstName: null, lastName: null, displayName: null, bio: null, supportEmail: null, avatarId: null },
  );
}

/** The creator as an email names them: the avatar's address is absolute (mail clients load it from us). */
export const mailCreator = (appUrl: string, creator: PublicCreator): MailCreator => ({
  name: creator.name,
  supportEmail: creator.supportEmail,
  avatarUrl: creator.avatarUrl ? new URL(creator.avatarUrl, appUrl).href : null,
});
