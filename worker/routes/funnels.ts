// The creator's funnels (spec §7 Funnels): funnels, their products and steps, the offer's Stripe
// product, and the preview of a funnel. Every call is signed in, and every query names the owner.
// Behaviour: docs/funnels.md.
import { Hono, type Context } from "hono";
import { z } from "zod";
import {
  createFunnelSchema,
  createStepSchema,
  createUpsellProductSchema,
  funnelProductsSchema,
  itemFunnelSchema,
  updateFunnelSchema,
  updateStepSchema,
  funnelModeSchema,
  funnelProductRemovedSchema,
  funnelProductsResultSchema,
  funnelSchema,
  funnelStepSchema,
  upsellProductSchema,
  funnelListSchema,
  funnelStepListSchema,
  funnelPreviewSchema,
  funnelPreviewQuerySchema,
} from "../../shared/funnels";
import { requireUser, type AppEnv } from "../middleware/context";
import { validate } from "../lib/validate";
import { forgetPaywallPages } from "../lib/paywall-cache";
import { forgetPublicContent } from "../lib/public-content-cache";
import {
  attachProducts,
  createFunnel,
  detachProduct,
  funnelForItem,
  listFunnels,
  ownedFunnel,
  setTestMode,
  type FunnelDeps,
} from "../services/funnels/funnels";
import { createUpsellProduct } from "../services/funnels/prices";
import { createStep, deleteStep, listSteps, updateStep } from "../services/funnels/steps";
import { endTest, listTests, startTest } from "../services/funnels/ab-tests";
import { createAbTestSchema, endAbTestSchema, abTestSchema, abTestListSchema } from "../../shared/ab-tests";
import { stripeClient } from "../services/stripe";
import { previewOffers } from "../services/upsells/offer";
import { purchaseDeps } from "./purchase-context";
import { doc } from "../openapi/describe";
import { deletedSchema } from "../../shared/answers";

const idRe = /^[A-Za-z0-9]{1,32}$/;
const funnelParam = z.object({ id: z.string().regex(idRe, "invalid funnel id") });
const stepParam = funnelParam.extend({ stepId: z.string().regex(idRe, "invalid step id") });
const productParam = funnelParam.extend({ contentId: z.string().regex(idRe, "invalid content id") });

// Handlers after requireUser see a narrower context type; both carry what these need.
type Ctx = Pick<Context<AppEnv>, "env"> & { var: { db: AppEnv["Variables"]["db"]; userId: string | null } };
const deps = (c: Ctx): FunnelDeps => ({ db: c.var.db, d1: c.env.DB, stripe: stripeClient(c.env) });
const uid = (c: Ctx) => c.var.userId!;

export const funnelRoutes = new Hono<AppEnv>()
  .get(
    "/funnels",
    doc({ tag: "Funnels", summary: "The creator's funnels", access: "creator", ok: funnelListSchema }),
    requireUser,
    async (c) => c.json(await listFunnels(deps(c), uid(c))),
  )
  .post(
    "/funnels",
    doc({ tag: "Funnels", summary: "Create a funnel", access: "creator", status: 201, ok: funnelSchema }),
    requireUser,
    validate("json", createFunnelSchema),
    async (c) => c.json(await createFunnel(deps(c), uid(c), c.req.valid("json").name), 201),
  )
  // 'Edit funnel' on an item: its funnel, made for it if it has none.
  .post(
    "/funnels/for-item",
    doc({
      tag: "Funnels",
      summary: "The funnel of an item, created when it has none",
      access: "creator",
      ok: funnelSchema,
      errors: { 404: "No such item of yours" },
    }),
    requireUser,
    validate("json", itemFunnelSchema),
    async (c) => c.json(await funnelForItem(deps(c), uid(c), c.req.valid("json").contentId)),
  )
  .patch(
    "/funnels/:id",
    doc({
      tag: "Funnels",
      summary: "Switch a funnel between Test and Live",
      access: "creator",
      ok: funnelModeSchema,
      errors: { 404: "No such funnel of yours" },
    }),
    requireUser,
    validate("param", funnelParam),
    validate("json", updateFunnelSchema),
    async (c) => c.json(await setTestMode(deps(c), uid(c), c.req.valid("param").id, c.req.valid("json").testMode)),
  )
  .post(
    "/funnels/:id/products",
    doc({
      tag: "Funnels",
      summary: "Attach items to a funnel",
      access: "creator",
      ok: funnelProductsResultSchema,
      errors: {
        400: "An item is offered by one of the funnel's steps",
        404: "No such funnel or item of yours",
        409: "An item is already in another funnel",
      },
    }),
    requireUser,
    validate("param", funnelParam),
    validate("json", funnelProductsSchema),
    async (c) => c.json(await attachProducts(deps(c), uid(c), c.req.valid("param").id, c.req.valid("json").contentIds)),
  )
  .delete(
    "/funnels/:id/products/:contentId",
    doc({
      tag: "Funnels",
      summary: "Detach an item from a funnel",
      access: "creator",
      ok: funnelProductRemovedSchema,
      errors: { 404: "No such funnel or item of yours" },
    }),
    requireUser,
    validate("param", productParam),
    async (c) => {
      const p = c.req.valid("param");
      return c.json(await detachProduct(deps(c), uid(c), p.id, p.contentId));
    },
  )
  .get(
    "/funnels/:id/steps",
    doc({
      tag: "Funnels",
      summary: "A funnel's steps with their figures",
      access: "creator",
      ok: funnelStepListSchema,
      errors: { 404: "No such funnel of yours" },
    }),
    requireUser,
    validate("param", funnelParam),
    async (c) => c.json(await listSteps(deps(c), uid(c), c.req.valid("param").id)),
  )
  .post(
    "/funnels/:id/steps",
    doc({
      tag: "Funnels",
      summary: "Add a step (an upsell or downsell offer)",
      access: "creator",
      status: 201,
      ok: funnelStepSchema,
      errors: {
        400: "The item is one the funnel is shown after",
        404: "No such funnel or item of yours",
        409: "The step cannot be added (the reason is in the message)",
        502: "Stripe could not be reached",
      },
    }),
    requireUser,
    validate("param", funnelParam),
    validate("json", createStepSchema),
    async (c) => {
      const input = c.req.valid("json");
      const step = await createStep(deps(c), uid(c), c.req.valid("param").id, input);
      // An item made upsell-only leaves its own paywall: its cached page and public answer go at once.
      if (input.upsellOnly && step.contentId)
        await Promise.all([
          forgetPaywallPages(c.env, c.req.url, [step.contentId]),
          forgetPublicContent(c.env, c.req.url, [step.contentId]),
        ]);
      return c.json(step, 201);
    },
  )
  .patch(
    "/funnels/:id/steps/:stepId",
    doc({
      tag: "Funnels",
      summary: "Edit a step",
      access: "creator",
      ok: funnelStepSchema,
      errors: { 404: "No such step of yours", 502: "Stripe could not be reached" },
    }),
    requireUser,
    validate("param", stepParam),
    validate("json", updateStepSchema),
    async (c) => {
      const p = c.req.valid("param");
      return c.json(await updateStep(deps(c), uid(c), p.id, p.stepId, c.req.valid("json")));
    },
  )
  .delete(
    "/funnels/:id/steps/:stepId",
    doc({
      tag: "Funnels",
      summary: "Delete a step",
      access: "creator",
      ok: deletedSchema,
      errors: { 404: "No such step of yours" },
    }),
    requireUser,
    validate("param", stepParam),
    async (c) => {
      const p = c.req.valid("param");
      return c.json(await deleteStep(deps(c), uid(c), p.id, p.stepId));
    },
  )
  // A/B tests of its steps' offers (worker/services/funnels/ab-tests.ts), newest first.
  .get(
    "/funnels/:id/ab-tests",
    doc({
      tag: "Funnels",
      summary: "A funnel's A/B tests with their figures",
      access: "creator",
      ok: abTestListSchema,
      errors: { 404: "No such funnel of yours" },
    }),
    requireUser,
    validate("param", funnelParam),
    async (c) => {
      await ownedFunnel(deps(c), uid(c), c.req.valid("param").id);
      return c.json(await listTests(deps(c), uid(c), c.req.valid("param").id));
    },
  )
  .post(
    "/funnels/:id/ab-tests",
    doc({
      tag: "Funnels",
      summary: "Start an A/B test: variant B of a step",
      access: "creator",
      status: 201,
      ok: abTestSchema,
      errors: { 404: "No such funnel or step of yours", 409: "This step already has a test running" },
    }),
    requireUser,
    validate("param", funnelParam),
    validate("json", createAbTestSchema),
    async (c) => c.json(await startTest(deps(c), uid(c), c.req.valid("param").id, c.req.valid("json")), 201),
  )
  .post(
    "/funnels/:id/ab-tests/:testId/end",
    doc({
      tag: "Funnels",
      summary: "End an A/B test: keep A, or make B the step",
      access: "creator",
      ok: abTestSchema,
      errors: { 404: "No such test of yours", 502: "Stripe could not be reached (a new price for B)" },
    }),
    requireUser,
    validate("param", funnelParam.extend({ testId: z.string().regex(idRe, "invalid test id") })),
    validate("json", endAbTestSchema),
    async (c) => {
      const p = c.req.valid("param");
      return c.json(await endTest(deps(c), uid(c), p.id, p.testId, c.req.valid("json").keep));
    },
  )
  .get(
    "/funnels/:id/preview",
    doc({
      tag: "Funnels",
      summary: "The offers a buyer would see, in order (a step under an A/B test as variant A or B)",
      access: "creator",
      ok: funnelPreviewSchema,
      errors: { 404: "No such funnel of yours" },
    }),
    requireUser,
    validate("param", funnelParam),
    validate("query", funnelPreviewQuerySchema),
    async (c) =>
      c.json(
        await previewOffers(
          purchaseDeps(c as unknown as Context<AppEnv>),
          uid(c),
          c.req.valid("param").id,
          c.req.valid("query").variant,
        ),
      ),
  )
  .post(
    "/stripe/create-upsell-product",
    doc({
      tag: "Funnels",
      summary: "Create a Stripe product and price for an offer",
      access: "creator",
      status: 201,
      ok: upsellProductSchema,
      errors: { 502: "Stripe could not be reached" },
    }),
    requireUser,
    validate("json", createUpsellProductSchema),
    async (c) => c.json(await createUpsellProduct(deps(c), uid(c), c.req.valid("json")), 201),
  );
