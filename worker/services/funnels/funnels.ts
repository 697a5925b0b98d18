// Funnels and the items attached to them, for the creator who owns them (every query names the
// owner), and the live funnel an item is sold with. Behaviour: docs/funnels.md.
import { and, asc, desc, eq, inArray, isNull } from "drizzle-orm";
import type Stripe from "stripe";
import { FUNNEL_ITEM_MESSAGES, funnelStatus, type Funnel } from "../../../shared/funnels";
import type { Db } from "../../db/client";
import { content, funnelProducts, funnelSteps, funnels } from "../../db/schema";
import { ApiError, notFound } from "../../lib/errors";
import { newId, sha256Hex } from "../../lib/ids";

export type FunnelDeps = { db: Db; d1: D1Database; stripe: Stripe };

const funnelNotFound = () => notFound("Funnel not found");

export async function listFunnels(deps: FunnelDeps, userId: string): Promise<Funnel[]> {
  const rows = await deps.db.select().from(funnels).where(eq(funnels.userId, userId)).orderBy(asc(funnels.createdAt));
  if (!rows.length) return [];
  const products = await deps.db
    .select({ funnelId: funnelProducts.funnelId, contentId: funnelProducts.contentId })
    .from(funnelProducts)
    .where(
      inArray(
        funnelProducts.funnelId,
        rows.map((r) => r.id),
      ),
    );
  return rows.map((f) => ({
    id: f.id,
    name: f.name,
    isActive: f.isActive,
    testMode: f.testMode,
    status: funnelStatus(f),
    createdAt: f.createdAt.toISOString(),
    contentIds: products.filter((p) => p.funnelId === f.id).map((p) => p.contentId),
  }));
}

export async function ownedFunnel(deps: Pick<FunnelDeps, "db">, userId: string, funnelId: string) {
  const f = await deps.db
    .select()
    .from(funnels)
    .where(and(eq(funnels.id, funnelId), eq(funnels.userId, userId)))
    .get();
  if (!f) throw funnelNotFound();
  return f;
}

export async function createFunnel(deps: FunnelDeps, userId: string, name: string): Promise<Funnel> {
  const id = newId();
  // New funnels start in test mode: nothing is shown to buyers until the creator goes Live.
  const [f] = await deps.db.insert(funnels).values({ id, userId, name, isActive: true, testMode: true }).returning();
  return {
    id: f.id,
    name: f.name,
    isActive: f.isActive,
    testMode: f.testMode,
    status: funnelStatus(f),
    createdAt: f.createdAt.toISOString(),
    contentIds: [],
  };
}

/**
 * 'Edit funnel' on any item: the funnel the item is attached to (the oldest, as the list shows
 * them), or a new one named after it with the item attached. The new funnel's id is derived from
 * the creator and the item, and funnel and attachment are written in one batch, each `on conflict
 * do nothing`: two presses at once make one funnel.
 */
export async function funnelForItem(deps: FunnelDeps, userId: string, contentId: string): Promise<Funnel> {
  const item = await deps.db
    .select({ id: content.id, title: content.title })
    .from(content)
    .where(and(eq(content.id, contentId), eq(content.userId, userId), isNull(content.deletedAt)))
    .get();
  if (!item) throw notFound("Content not found");
  const attached = (await listFunnels(deps, userId)).find((f) => f.contentIds.includes(item.id));
  if (attached) return attached;
  const id = (await sha256Hex(`item-funnel\n${userId}\n${item.id}`)).slice(0, 32);
  await deps.d1.batch([
    deps.d1
      .prepare(
        "insert into funnels (id, user_id, name, is_active, test_mode, created_at) values (?, ?, ?, 1, 1, ?) on conflict (id) do nothing",
      )
      .bind(id, userId, `${item.title} funnel`.slice(0, 200), Date.now()),
    deps.d1
      .prepare(
        "insert into funnel_products (funnel_id, content_id) select ?1, ?2 where exists (select 1 from funnels where id = ?1 and user_id = ?3) on conflict do nothing",
      )
      .bind(id, item.id, userId),
  ]);
  const made = (await listFunnels(deps, userId)).find((f) => f.id === id);
  if (!made) throw funnelNotFound();
  return made;
}

export async function setTestMode(deps: FunnelDeps, userId: string, funnelId: string, testMode: boolean) {
  const [f] = await deps.db
    .update(funnels)
    .set({ testMode })
    .where(and(eq(funnels.id, funnelId), eq(funnels.userId, userId)))
    .returning();
  if (!f) throw funnelNotFound();
  return { id: f.id, name: f.name, isActive: f.isActive, testMode: f.testMode, status: funnelStatus(f) };
}

/**
 * Attaches the creator's own items to the funnel: all of them, or none if any is not theirs (404)
 * or is offered by one of the funnel's steps (400: its buyers would be offered what they just bought).
 */
export async function attachProducts(deps: FunnelDeps, userId: string, funnelId: string, contentIds: string[]) {
  await ownedFunnel(deps, userId, funnelId);
  const ids = [...new Set(contentIds)];
  const owned = await deps.db
    .select({ id: content.id })
    .from(content)
    .where(and(inArray(content.id, ids), eq(content.userId, userId), isNull(content.deletedAt)));
  if (owned.length !== ids.length) throw notFound("Content not found");
  const offered = await deps.db
    .select({ title: content.title, stepOrder: funnelSteps.stepOrder })
    .from(funnelSteps)
    .innerJoin(content, eq(content.id, funnelSteps.contentId))
    .where(and(eq(funnelSteps.funnelId, funnelId), inArray(funnelSteps.contentId, ids)))
    .orderBy(asc(funnelSteps.stepOrder))
    .get();
  if (offered) throw new ApiError(400, FUNNEL_ITEM_MESSAGES.offeredInStep(offered.title, offered.stepOrder));
  await deps.db
    .insert(funnelProducts)
    .values(ids.map((contentId) => ({ funnelId, contentId })))
    .onConflictDoNothing();
  return { funnelId, contentIds: ids };
}

export async function detachProduct(deps: FunnelDeps, userId: string, funnelId: string, contentId: string) {
  await ownedFunnel(deps, userId, funnelId);
  const removed = await deps.db
    .delete(funnelProducts)
    .where(and(eq(funnelProducts.funnelId, funnelId), eq(funnelProducts.contentId, contentId)))
    .returning({ contentId: funnelProducts.contentId });
  // Only the owner's funnel gets here, and only items attached to it can be: anything else (another
  // creator's item, one never attached) is a 404 like every call naming what the caller does not own.
  if (removed.length === 0) throw notFound("Content not found in this funnel");
  return { funnelId, contentId };
}

// ---- what buyers see ----

/**
 * The live funnel an item is sold with: the newest active, live (not test mode) funnel of the
 * item's own creator that has the item attached. Test-mode funnels are shown only in previews.
 */
export async function liveFunnelFor(db: Db, contentId: string) {
  return db
    .select({ id: funnels.id, userId: funnels.userId })
    .from(funnelProducts)
    .innerJoin(funnels, eq(funnels.id, funnelProducts.funnelId))
    .innerJoin(content, and(eq(content.id, funnelProducts.contentId), eq(content.userId, funnels.userId)))
    .where(and(eq(funnelProducts.contentId, contentId), eq(funnels.testMode, false), eq(funnels.isActive, true)))
    .orderBy(desc(funnels.createdAt))
    .get();
}
