// A/B tests of funnel offers: a variant B of one step, each order assigned once to A or B by a hash
// (`applyVariant`, which both the offer shown and the accept's terms go through), figures read from
// the offers' rows, and ending a test (keep A, or write B onto the step). Behaviour: docs/funnels.md.
import { and, desc, eq } from "drizzle-orm";
import { abReadout, type AbTest, type AbVariantFigures } from "../../../shared/ab-tests";
import { funnelAbTests, funnelSteps } from "../../db/schema";
import { ApiError, notFound } from "../../lib/errors";
import { newId, sha256Hex } from "../../lib/ids";
import type { FunnelDeps } from "./funnels";
import { createUpsellProduct } from "./prices";
import { ownedStep, updateStep } from "./steps";

type StepRow = typeof funnelSteps.$inferSelect;
type TestRow = typeof funnelAbTests.$inferSelect;

type RunningTest = { id: string; title: string; description: string; cta_text: string; price_cents: number | null };

const runningTestOf = (d1: D1Database, stepId: string) =>
  d1
    .prepare("select * from funnel_ab_tests where step_id = ? and status = 'running'")
    .bind(stepId)
    .first<RunningTest>();

/** The step with variant B's texts and price. */
const asVariantB = (step: StepRow, test: RunningTest): StepRow => ({
  ...step,
  title: test.title,
  description: test.description,
  ctaText: test.cta_text,
  priceCents: test.price_cents ?? step.priceCents,
});

/** The step as this order sees it, and the test and variant it was assigned (null when no test runs). */
export async function applyVariant(
  d1: D1Database,
  step: StepRow,
  rootPurchaseId: string,
): Promise<{ step: StepRow; test: { id: string; variant: "A" | "B" } | null }> {
  const test = await runningTestOf(d1, step.id);
  if (!test) return { step, test: null };
  const even = parseInt((await sha256Hex(`${test.id}:${rootPurchaseId}`)).slice(0, 8), 16) % 2 === 0;
  await d1
    .prepare(
      "insert or ignore into funnel_ab_assignments (test_id, root_purchase_id, variant, created_at) values (?, ?, ?, ?)",
    )
    .bind(test.id, rootPurchaseId, even ? "A" : "B", Date.now())
    .run();
  const assigned = await d1
    .prepare("select variant from funnel_ab_assignments where test_id = ? and root_purchase_id = ?")
    .bind(test.id, rootPurchaseId)
    .first<{ variant: "A" | "B" }>();
  const variant = assigned?.variant ?? (even ? "A" : "B");
  if (variant === "A") return { step, test: { id: test.id, variant } };
  return { step: asVariantB(step, test), test: { id: test.id, variant } };
}

/** The step as the creator previews it: variant B of its running test when asked for B; assigns nothing. */
export async function previewVariant(d1: D1Database, step: StepRow, variant: "A" | "B"): Promise<StepRow> {
  if (variant === "A") return step;
  const test = await runningTestOf(d1, step.id);
  return test ? asVariantB(step, test) : step;
}

type Figures = { variant: "A" | "B"; shown: number; accepted: number; revenue_cents: number | null };

async function figuresOf(d1: D1Database, testId: string): Promise<Map<string, Figures>> {
  const { results } = await d1
    .prepare(
      `select variant, count(*) as shown, sum(case when status = 'paid' then 1 else 0 end) as accepted,
              sum(case when status = 'paid' then amount_cents else 0 end) as revenue_cents
       from funnel_offers where ab_test_id = ? group by variant`,
    )
    .bind(testId)
    .all<Figures>();
  return new Map(results.map((r) => [r.variant, r]));
}

async function toTest(d1: D1Database, t: TestRow, step: StepRow): Promise<AbTest> {
  const figures = await figuresOf(d1, t.id);
  const variant = (v: "A" | "B"): AbVariantFigures => {
    const f = figures.get(v);
    const shown = Number(f?.shown ?? 0);
    const accepted = Number(f?.accepted ?? 0);
    const revenue = Number(f?.revenue_cents ?? 0) / 100;
    // A is the step: as it was when the test ended (kept on the test), or as it is while it runs.
    const a =
      t.aTitle !== null
        ? {
            title: t.aTitle,
            description: t.aDescription ?? "",
            ctaText: t.aCtaText ?? step.ctaText,
            priceCents: t.aPriceCents,
          }
        : step;
    return {
      variant: v,
      title: v === "B" ? t.title : a.title,
      description: v === "B" ? t.description : a.description,
      ctaText: v === "B" ? t.ctaText : a.ctaText,
      price: ((v === "B" ? (t.priceCents ?? a.priceCents) : a.priceCents) ?? 0) / 100,
      shown,
      accepted,
      acceptanceRate: shown ? accepted / shown : 0,
      revenue,
      revenuePerBuyer: shown ? Math.round((revenue / shown) * 100) / 100 : 0,
    };
  };
  const [a, b] = [variant("A"), variant("B")];
  const readout = abReadout(a, b);
  return {
    id: t.id,
    stepId: t.stepId,
    stepTitle: step.title,
    status: t.status,
    winner: t.winner,
    createdAt: t.createdAt.toISOString(),
    endedAt: t.endedAt?.toISOString() ?? null,
    variants: [a, b],
    probabilityBBeatsA: readout.probability,
    readout:
      t.status === "ended"
        ? `Ended: ${t.winner === "B" ? "B became the step" : "A was kept"}. ${readout.text}`
        : readout.text,
  };
}

export async function listTests(deps: FunnelDeps, userId: string, funnelId: string): Promise<AbTest[]> {
  const rows = await deps.db
    .select({ test: funnelAbTests, step: funnelSteps })
    .from(funnelAbTests)
    .innerJoin(funnelSteps, eq(funnelSteps.id, funnelAbTests.stepId))
    .where(and(eq(funnelAbTests.funnelId, funnelId), eq(funnelAbTests.userId, userId)))
    .orderBy(desc(funnelAbTests.createdAt));
  return Promise.all(rows.map((r) => toTest(deps.d1, r.test, r.step)));
}

export async function startTest(
  deps: FunnelDeps,
  userId: string,
  funnelId: string,
  input: { stepId: string; title: string; description: string; ctaText: string; price: number | null },
): Promise<AbTest> {
  const step = await ownedStep(deps, userId, funnelId, input.stepId);
  const item = step.contentId
    ? await deps.d1
        .prepare("select pricing_model from content where id = ?")
        .bind(step.contentId)
        .first<{ pricing_model: string }>()
    : null;
  if (input.price !== null && item?.pricing_model === "pay_what_you_want")
    throw new ApiError(400, "price: A tip step's variant keeps the step's amounts; leave the price empty");
  const id = newId();
  const res = await deps.d1
    .prepare(
      `insert into funnel_ab_tests (id, step_id, funnel_id, user_id, title, description, cta_text, price_cents, status, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, 'running', ?) on conflict do nothing`,
    )
    .bind(id, step.id, funnelId, userId, input.title, input.description, input.ctaText, input.price, Date.now())
    .run();
  if (res.meta.changes !== 1) throw new ApiError(409, "This step already has a test running. End it first.");
  const row = await deps.db.select().from(funnelAbTests).where(eq(funnelAbTests.id, id)).get();
  return toTest(deps.d1, row!, step);
}

/** Ends a running test, keeping A, or making B the step (its fields written onto the step). */
export async function endTest(
  deps: FunnelDeps,
  userId: string,
  funnelId: string,
  testId: string,
  keep: "A" | "B",
): Promise<AbTest> {
  const t = await deps.db
    .select()
    .from(funnelAbTests)
    .where(and(eq(funnelAbTests.id, testId), eq(funnelAbTests.funnelId, funnelId), eq(funnelAbTests.userId, userId)))
    .get();
  if (!t) throw notFound("A/B test not found");
  const step = await ownedStep(deps, userId, funnelId, t.stepId);
  // Variant A as tested, kept before B may be written onto the step. The first press writes it; a
  // second press (which may read the step after B was written) finds it written.
  await deps.d1
    .prepare(
      "update funnel_ab_tests set a_title = ?, a_description = ?, a_cta_text = ?, a_price_cents = ? where id = ? and status = 'running' and a_title is null",
    )
    .bind(step.title, step.description ?? "", step.ctaText, step.priceCents, t.id)
    .run();
  if (t.status === "running" && keep === "B") {
    const priced =
      t.priceCents !== null && t.priceCents !== step.priceCents
        ? await createUpsellProduct(deps, userId, { name: t.title, description: t.description, price: t.priceCents })
        : null;
    await updateStep(deps, userId, funnelId, step.id, {
      title: t.title,
      description: t.description,
      ctaText: t.ctaText,
      ...(priced ? { offerPriceId: priced.priceId } : {}),
    } as never);
  }
  // Ends once: a repeat (or the other button pressed meanwhile) changes nothing.
  await deps.d1
    .prepare(
      "update funnel_ab_tests set status = 'ended', winner = ?, ended_at = ? where id = ? and status = 'running'",
    )
    .bind(keep, Date.now(), t.id)
    .run();
  const [row, current] = await Promise.all([
    deps.db.select().from(funnelAbTests).where(eq(funnelAbTests.id, t.id)).get(),
    deps.db.select().from(funnelSteps).where(eq(funnelSteps.id, step.id)).get(),
  ]);
  return toTest(deps.d1, row!, current ?? step);
}
