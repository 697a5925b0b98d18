// What GET /api/content/{id} answers for an item, read from the primary database, and the changes'
// side of its cache (./public-content-cache.ts): a change replaces the cached answers it touches with
// ones read from the primary, rather than dropping them, so the next visitor's read (from a replica
// that may not have the change yet) cannot bring the old answer back for a minute (docs/payments.md).
import type { Db } from "../db/client";
import { publicContent } from "../services/content";
import { liveItemIds } from "../services/profile";
import type { Bindings } from "./env";
import { forgetPaywallPages } from "./paywall-cache";
import {
  answerOf,
  forgetPublicContent,
  goneAnswer,
  publicContentKey,
  replacePublicContent,
} from "./public-content-cache";

/** Items whose answers one change replaces from the primary; more (a profile change) are dropped. */
const REPLACED_AT_MOST = 20;

/** What anyone may see of an item (never who its creator is internally, nor the image's size). */
export const visibleOf = (item: Awaited<ReturnType<typeof publicContent>>) => {
  if (!item) return null;
  const { creatorId, previewImageSize, ...visible } = item;
  return visible;
};

type Changed = { env: Pick<Bindings, "ASSETS" | "CF_VERSION_METADATA">; req: { url: string } };

/**
 * After a change to what items show: each one's answer read from the primary (`db`, the request's own
 * database) replaces the cached one in this isolate and data center; a deleted item gets the 404 mark.
 */
export async function refreshPublicContent(c: Changed, db: Db, ids: string[]): Promise<void> {
  const replaced = ids.slice(0, REPLACED_AT_MOST);
  await Promise.all([
    ...replaced.map(async (id) => {
      const visible = visibleOf(await publicContent(db, id));
      await replacePublicContent(publicContentKey(c.env, c.req.url, id), visible ? answerOf(visible) : goneAnswer());
    }),
    forgetPublicContent(c.env, c.req.url, ids.slice(REPLACED_AT_MOST)),
  ]);
}

/**
 * After a change to how the creator is shown (profile, avatar, the name a sign-in filled in): every
 * paywall page and public answer of their items shows it.
 */
export async function refreshCreatorItems(c: Changed, db: Db, userId: string): Promise<void> {
  const ids = await liveItemIds(db, userId);
  await Promise.all([forgetPaywallPages(c.env, c.req.url, ids), refreshPublicContent(c, db, ids)]);
}
