// A funnel's steps, for the creator who owns the funnel: list (with per-step figures), create,
// edit, delete. Step order stays 1..n without gaps or duplicates: every write that changes it
// renumbers the whole funnel in the same statement or D1 batch. Behaviour: docs/funnels.md.
import { formatCentsPlain } from "../../../shared/money";
import { and, asc, eq, isNull } from "drizzle-orm";
import { FUNNEL_ITEM_MESSAGES, type FunnelStep, type UpdateStepFields } from "../../../shared/funnels";
import { content, funnelProducts, funnelSteps } from "../../db/schema";
import { ApiError, notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { type FunnelDeps, ownedFunnel } from "./funnels";
import { ownedPrice, stepAmounts, stepPrice } from "./prices";

type StepRow = typeof funnelSteps.$inferSelect;

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
                 where p.funnel_step_id = s.id and l.account <> 'tax' and l.kind in ('sale', 'platform_fee', 'refund', 'dispute', 'fee_adjustment')) as revenue_cents,
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
    throw new ApiError(400, `The maximum tip must be at least the minimum price (${formatCentsPlain(minimumCents)})`);
}

/** The creator's item a step of `funnelId` is to offer: 404 if not theirs, 400 if the funnel is shown after it. */
async function ownedContentId(
  deps: FunnelDeps,
  userId: string,
  funnelId: string,
  contentId: string | null | undefined,
): Promise<string | null> {
  if (!contentId) return null;
  const item = await deps.db
    .select({ id: content.id, title: content.title })
    .from(content)
    .where(and(eq(content.id, contentId), eq(content.userId, userId), isNull(content.deletedAt)))
    .get();
  if (!item) throw notFound("Content not found");
  const shownAfter = await deps.db
    .select({ id: funnelProducts.contentId })
    .from(funnelProducts)
    .where(and(eq(funnelProducts.funnelId, funnelId), eq(funnelProducts.contentId, item.id)))
    .get();
  if (shownAfter) throw new ApiError(400, FUNNEL_ITEM_MESSAGES.shownAfter(item.title));
  return item.id;
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
  const contentId = await ownedContentId(deps, userId, funnelId, input.contentId);
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
  if (!step) throw notFound("Funnel not found");
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
  if (input.contentId !== undefined) fields.contentId = await ownedContentId(deps, userId, funnelId, input.contentId);
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
