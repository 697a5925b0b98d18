// Funnels, their steps and their products, for the creator who owns them. Every read and write
// names the owner in its query. Step order stays 1..n without gaps or duplicates: every write
// that changes it renumbers the whole funnel in the same statement or D1 batch.
import { and, asc, desc, eq, inArray, isNull } from "drizzle-orm";
import type Stripe from "stripe";
import { MIN_PRICE_CENTS } from "../../shared/pricing";
import {
  TIP_CEILING_MULTIPLE,
  funnelStatus,
  type Funnel,
  type FunnelStep,
  type UpdateStepFields,
} from "../../shared/funnels";
import type { Db } from "../db/client";
import { content, funnelProducts, funnels, funnelSteps } from "../db/schema";
import { ApiError, notFound } from "../lib/errors";
import { newId, sha256Hex } from "../lib/ids";

export type FunnelDeps = { db: Db; d1: D1Database; stripe: Stripe };
type StepRow = typeof funnelSteps.$inferSelect;
type ItemRow = typeof content.$inferSelect;

/**
 * What a step's buyer may pay: a fixed price, or for a tip (pay-what-you-want) item at least its
 * minimum and at most the ceiling the creator set (TIP_CEILING_MULTIPLE x the minimum unless set).
 */
export function stepAmounts(
  step: Pick<StepRow, "priceCents" | "maxPriceCents">,
  item: Pick<ItemRow, "pricingModel" | "priceCents" | "minimumPriceCents">,
) {
  const priceCents = step.priceCents ?? item.priceCents;
  if (item.pricingModel !== "pay_what_you_want")
    return { tip: false as const, priceCents, minimumCents: priceCents, maximumCents: priceCents };
  const minimumCents = Math.max(item.minimumPriceCents ?? priceCents, MIN_PRICE_CENTS);
  return {
    tip: true as const,
    priceCents,
    minimumCents,
    maximumCents: Math.max(step.maxPriceCents ?? minimumCents * TIP_CEILING_MULTIPLE, minimumCents),
  };
}

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

/** Attaches the creator's own items to the funnel: all of them, or none if any is not theirs. */
export async function attachProducts(deps: FunnelDeps, userId: string, funnelId: string, contentIds: string[]) {
  await ownedFunnel(deps, userId, funnelId);
  const ids = [...new Set(contentIds)];
  const owned = await deps.db
    .select({ id: content.id })
    .from(content)
    .where(and(inArray(content.id, ids), eq(content.userId, userId), isNull(content.deletedAt)));
  if (owned.length !== ids.length) throw notFound("Content not found");
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

// ---- steps ----

/**
 * Per-step figures: offers shown, accepted (their purchase paid), declined, and revenue from the
 * ledger: gross (every row of the step's purchases: what buyers paid, less refunds and disputes)
 * and net (the creator's rows only: their share after the platform fee).
 */
async function stepFigures(d1: D1Database, funnelId: string) {
  const { results } = await d1
    .prepare(
      `select s.id as step_id,
              (select count(*) from funnel_offers o where o.step_id = s.id) as shown,
              (select count(*) from funnel_offers o join purchases p on p.id = o.purchase_id
                 where o.step_id = s.id and p.status in ('paid', 'refunded', 'disputed')) as accepted,
              (select count(*) from funnel_offers o where o.step_id = s.id and o.status = 'declined') as declined,
              (select coalesce(sum(l.amount_cents), 0) from ledger_entries l join purchases p on p.id = l.purchase_id
                 where p.funnel_step_id = s.id and l.kind in ('sale', 'platform_fee', 'refund', 'dispute', 'fee_adjustment')) as revenue_cents,
              (select coalesce(sum(l.amount_cents), 0) from ledger_entries l join purchases p on p.id = l.purchase_id
                 where p.funnel_step_id = s.id and l.account = 'creator' and l.kind in ('sale', 'refund', 'dispute', 'fee_adjustment')) as net_cents
       from funnel_steps s where s.funnel_id = ?`,
    )
    .bind(funnelId)
    .all<{
      step_id: string;
      shown: number;
      accepted: number;
      declined: number;
      revenue_cents: number;
      net_cents: number;
    }>();
  return new Map(
    results.map((r) => [
      r.step_id,
      {
        shown: r.shown,
        accepted: r.accepted,
        declined: r.declined,
        revenue: r.revenue_cents / 100,
        net: r.net_cents / 100,
      },
    ]),
  );
}

const toStep = (s: StepRow, figures = { shown: 0, accepted: 0, declined: 0, revenue: 0, net: 0 }): FunnelStep => ({
  id: s.id,
  title: s.title,
  description: s.description,
  offerPriceId: s.offerPriceId,
  price: s.priceCents === null ? null : s.priceCents / 100,
  maximumPrice: s.maxPriceCents === null ? null : s.maxPriceCents / 100,
  ctaText: s.ctaText,
  stepType: s.stepType,
  stepOrder: s.stepOrder,
  contentId: s.contentId,
  figures,
});

export async function listSteps(deps: FunnelDeps, userId: string, funnelId: string): Promise<FunnelStep[]> {
  await ownedFunnel(deps, userId, funnelId);
  const rows = await deps.db
    .select()
    .from(funnelSteps)
    .where(eq(funnelSteps.funnelId, funnelId))
    .orderBy(asc(funnelSteps.stepOrder));
  const figures = await stepFigures(deps.d1, funnelId);
  return rows.map((s) => toStep(s, figures.get(s.id)));
}

/**
 * One statement that renumbers the funnel's steps 1..n. With `move`, that step lands at position
 * `to` (clamped to 1..n) and the others shift by one around it. Computed inside SQLite from the
 * rows as they are when it runs, so two moves at once each leave a clean 1..n.
 */
function renumber(d1: D1Database, funnelId: string, userId: string, move?: { stepId: string; to: number }) {
  return d1
    .prepare(
      `update funnel_steps set step_order = r.rn
       from (
         select id, row_number() over (
           order by case when id = ?3 then min(?4, (select count(*) from funnel_steps where funnel_id = ?1)) * 2
                          + (case when min(?4, (select count(*) from funnel_steps where funnel_id = ?1)) > step_order then 1 else -1 end)
                         else step_order * 2 end,
                    created_at, id) as rn
         from funnel_steps where funnel_id = ?1
       ) as r
       where funnel_steps.id = r.id and funnel_steps.funnel_id = ?1
         and exists (select 1 from funnels where id = ?1 and user_id = ?2)`,
    )
    .bind(funnelId, userId, move?.stepId ?? "", move?.to ?? 0);
}

/** The offer's price, read from Stripe: it must be a one-time price of a product this creator made. */
async function ownedPrice(deps: FunnelDeps, userId: string, priceId: string): Promise<number> {
  let price: Stripe.Price;
  try {
    price = await deps.stripe.prices.retrieve(priceId);
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) throw new ApiError(400, "offerPriceId: no such price");
    throw err;
  }
  const productId = typeof price.product === "string" ? price.product : price.product.id;
  const product = await deps.stripe.products.retrieve(productId);
  if (product.metadata?.userId !== userId || price.type !== "one_time" || price.unit_amount === null)
    throw new ApiError(400, "offerPriceId: no such price");
  return price.unit_amount;
}

/** A ceiling below the tip item's minimum would refuse every amount: 400. */
async function checkCeiling(
  deps: FunnelDeps,
  contentId: string | null,
  priceCents: number | null,
  maxPriceCents: number | null | undefined,
) {
  if (!contentId || maxPriceCents === null || maxPriceCents === undefined) return;
  const item = await deps.db.select().from(content).where(eq(content.id, contentId)).get();
  if (item?.pricingModel !== "pay_what_you_want") return;
  const { minimumCents } = stepAmounts({ priceCents, maxPriceCents: null }, item);
  if (maxPriceCents < minimumCents)
    throw new ApiError(400, `The maximum tip must be at least the minimum price ($${(minimumCents / 100).toFixed(2)})`);
}

async function ownedContentId(
  deps: FunnelDeps,
  userId: string,
  contentId: string | null | undefined,
): Promise<string | null> {
  if (!contentId) return null;
  const item = await deps.db
    .select({ id: content.id })
    .from(content)
    .where(and(eq(content.id, contentId), eq(content.userId, userId), isNull(content.deletedAt)))
    .get();
  if (!item) throw notFound("Content not found");
  return item.id;
}

/**
 * The step's price, decided here: a price id the client names must be one of this creator's own;
 * otherwise the offer is the chosen item at `price` (or the item's own price), and its Stripe price
 * is made here, keyed by creator, item and amount, so a repeat makes no second product.
 */
async function stepPrice(
  deps: FunnelDeps,
  userId: string,
  input: { offerPriceId?: string; price?: number; contentId: string | null; title: string; description: string },
) {
  if (input.offerPriceId)
    return { offerPriceId: input.offerPriceId, priceCents: await ownedPrice(deps, userId, input.offerPriceId) };
  const item = input.contentId
    ? await deps.db
        .select()
        .from(content)
        .where(and(eq(content.id, input.contentId), eq(content.userId, userId)))
        .get()
    : undefined;
  if (!item) throw new ApiError(400, "contentId: Choose one of your items, or create one for this step");
  const priceCents =
    input.price ??
    (item.pricingModel === "pay_what_you_want"
      ? Math.max(item.minimumPriceCents ?? item.priceCents, MIN_PRICE_CENTS)
      : item.priceCents);
  const { priceId } = await stripePriceFor(deps, userId, {
    key: `item:${item.id}`,
    name: input.title,
    description: input.description,
    priceCents,
  });
  return { offerPriceId: priceId, priceCents };
}

/** Marks the step's content as an upsell: it is sold only through the funnel from now on. */
const markUpsell = (d1: D1Database, userId: string, contentId: string | null) =>
  contentId
    ? [d1.prepare("update content set is_upsell = 1 where id = ? and user_id = ?").bind(contentId, userId)]
    : [];

export async function createStep(
  deps: FunnelDeps,
  userId: string,
  funnelId: string,
  input: {
    title: string;
    description: string;
    offerPriceId?: string;
    price?: number;
    upsellOnly?: boolean;
    ctaText: string;
    stepType: "upsell" | "downsell";
    contentId?: string | null;
    stepOrder?: number;
    maximumPrice?: number | null;
  },
): Promise<FunnelStep> {
  await ownedFunnel(deps, userId, funnelId);
  const contentId = await ownedContentId(deps, userId, input.contentId);
  const { offerPriceId, priceCents } = await stepPrice(deps, userId, { ...input, contentId });
  await checkCeiling(deps, contentId, priceCents, input.maximumPrice);
  const id = newId();
  // Appended as count + 1 inside the insert itself; then moved to the asked position, if any.
  await deps.d1.batch([
    deps.d1
      .prepare(
        `insert into funnel_steps (id, funnel_id, title, description, offer_price_id, price_cents, cta_text, step_type, step_order, content_id, max_price_cents)
         select ?, ?, ?, ?, ?, ?, ?, ?, (select count(*) + 1 from funnel_steps where funnel_id = ?), ?, ?
         where exists (select 1 from funnels where id = ? and user_id = ?)`,
      )
      .bind(
        id,
        funnelId,
        input.title,
        input.description,
        offerPriceId,
        priceCents,
        input.ctaText,
        input.stepType,
        funnelId,
        contentId,
        input.maximumPrice ?? null,
        funnelId,
        userId,
      ),
    renumber(deps.d1, funnelId, userId, input.stepOrder ? { stepId: id, to: input.stepOrder } : undefined),
    // An existing item chosen for a step stays on sale on its own; only one made for the step is upsell-only.
    ...(input.upsellOnly ? markUpsell(deps.d1, userId, contentId) : []),
  ]);
  const step = await deps.db.select().from(funnelSteps).where(eq(funnelSteps.id, id)).get();
  if (!step) throw funnelNotFound();
  return toStep(step);
}

export async function ownedStep(deps: FunnelDeps, userId: string, funnelId: string, stepId: string) {
  await ownedFunnel(deps, userId, funnelId);
  const step = await deps.db
    .select()
    .from(funnelSteps)
    .where(and(eq(funnelSteps.id, stepId), eq(funnelSteps.funnelId, funnelId)))
    .get();
  if (!step) throw notFound("Step not found");
  return step;
}

export async function updateStep(
  deps: FunnelDeps,
  userId: string,
  funnelId: string,
  stepId: string,
  input: UpdateStepFields,
): Promise<FunnelStep> {
  const step = await ownedStep(deps, userId, funnelId, stepId);
  const fields: Partial<StepRow> = {};
  if (input.title !== undefined) fields.title = input.title;
  if (input.description !== undefined) fields.description = input.description;
  if (input.ctaText !== undefined) fields.ctaText = input.ctaText || "Add this to my order";
  if (input.stepType !== undefined) fields.stepType = input.stepType;
  if (input.contentId !== undefined) fields.contentId = await ownedContentId(deps, userId, input.contentId);
  if (input.offerPriceId !== undefined && input.offerPriceId !== step.offerPriceId) {
    fields.priceCents = await ownedPrice(deps, userId, input.offerPriceId);
    fields.offerPriceId = input.offerPriceId;
  }
  if (input.maximumPrice !== undefined) fields.maxPriceCents = input.maximumPrice;
  const ceiling = fields.maxPriceCents !== undefined ? fields.maxPriceCents : step.maxPriceCents;
  await checkCeiling(
    deps,
    fields.contentId !== undefined ? fields.contentId : step.contentId,
    fields.priceCents ?? step.priceCents,
    ceiling,
  );
  const statements: D1PreparedStatement[] = [];
  const entries = Object.entries(fields);
  if (entries.length) {
    const columns: Record<string, string> = {
      title: "title",
      description: "description",
      ctaText: "cta_text",
      stepType: "step_type",
      contentId: "content_id",
      priceCents: "price_cents",
      offerPriceId: "offer_price_id",
      maxPriceCents: "max_price_cents",
    };
    statements.push(
      deps.d1
        .prepare(
          `update funnel_steps set ${entries.map(([k]) => `${columns[k]} = ?`).join(", ")} where id = ? and funnel_id in (select id from funnels where id = ? and user_id = ?)`,
        )
        .bind(...entries.map(([, v]) => v ?? null), stepId, funnelId, userId),
    );
    // Pointing a step at another of the creator's items leaves that item on sale on its own.
  }
  if (input.stepOrder !== undefined)
    statements.push(renumber(deps.d1, funnelId, userId, { stepId, to: input.stepOrder }));
  if (statements.length) await deps.d1.batch(statements);
  const updated = await deps.db.select().from(funnelSteps).where(eq(funnelSteps.id, stepId)).get();
  if (!updated) throw notFound("Step not found");
  return toStep(updated);
}

export async function deleteStep(deps: FunnelDeps, userId: string, funnelId: string, stepId: string) {
  await ownedStep(deps, userId, funnelId, stepId);
  await deps.d1.batch([
    deps.d1
      .prepare(
        "delete from funnel_steps where id = ? and funnel_id in (select id from funnels where id = ? and user_id = ?)",
      )
      .bind(stepId, funnelId, userId),
    renumber(deps.d1, funnelId, userId),
  ]);
  return { deleted: true as const };
}

// ---- the offer's product at the payment provider ----

/**
 * A Stripe Product with its one-time Price, for an upsell offer. The idempotency key is derived
 * from the creator and the request, so a retried (or double-submitted) request makes one product.
 */
export async function createUpsellProduct(
  deps: FunnelDeps,
  userId: string,
  input: { name: string; description: string; price: number },
) {
  return stripePriceFor(deps, userId, {
    key: "",
    name: input.name,
    description: input.description,
    priceCents: input.price,
  });
}

async function stripePriceFor(
  deps: FunnelDeps,
  userId: string,
  input: { key: string; name: string; description: string; priceCents: number },
) {
  const key = await sha256Hex(
    `${userId}\n${input.name}\n${input.description}\n${input.priceCents}${input.key ? `\n${input.key}` : ""}`,
  );
  const product = await deps.stripe.products.create(
    {
      name: input.name,
      ...(input.description ? { description: input.description } : {}),
      default_price_data: { currency: "usd", unit_amount: input.priceCents },
      metadata: { userId, kind: "upsell" },
    },
    { idempotencyKey: `upsell-product:${key}` },
  );
  const priceId = typeof product.default_price === "string" ? product.default_price : product.default_price?.id;
  if (!priceId) throw new Error("Stripe returned a product without a default price");
  return { priceId, productId: product.id };
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
