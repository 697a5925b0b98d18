// The buyer's one-click offers after paying (/checkout/upsell): the next offer, accept, decline,
// completing an accept the bank wanted confirmed, and the order that results. No account: only the
// browser that paid (its aw_buyer cookie) acts on offers, within UPSELL_WINDOW_MINUTES of paying;
// the access link may read the order, which shows no card. Behaviour: docs/funnels.md.
import { Hono, type Context } from "hono";
import {
  acceptOfferSchema,
  declineOfferSchema,
  offerQuerySchema,
  orderQuerySchema,
  type OfferState,
  acceptResultSchema,
  declineResultSchema,
  offerStateSchema,
  orderSchema,
} from "../../shared/funnels";
import type { AppEnv } from "../middleware/context";
import { validate } from "../lib/validate";
import { acceptOffer, completeOffer } from "../services/upsells/accept";
import { orderRoot, rootPurchase } from "../services/upsells/buyer";
import { declineOffer } from "../services/upsells/decline";
import { nextOffer } from "../services/upsells/offer";
import { orderExtras, orderSummary } from "../services/upsells/order";
import { buyerKey, purchaseDeps } from "./purchase-context";
import { doc } from "../openapi/describe";

const claim = (c: Context<AppEnv>, body: { purchaseId?: string }) => ({
  buyerKey: buyerKey(c, false) ?? null,
  purchaseId: body.purchaseId,
});

export const upsellRoutes = new Hono<AppEnv>()
  .get(
    "/upsell/offer",
    doc({
      tag: "Upsells",
      summary: "The next offer after paying, and the order so far",
      description:
        "Only the browser that paid, within the offer window. The offer's `tax` is its sales tax or VAT at the first purchase's place and rate (docs/tax.md).",
      access: "buyer",
      ok: offerStateSchema,
      errors: {
        403: "Offers are for the browser that paid",
        404: "Purchase Not Found",
        409: "Payment is still processing",
        410: "This offer has expired",
      },
    }),
    validate("query", offerQuerySchema),
    async (c) => {
      const deps = purchaseDeps(c);
      const root = await rootPurchase(deps, claim(c, c.req.valid("query")));
      const offer = await nextOffer(deps, root);
      return c.json({
        purchaseId: root.id,
        contentId: root.contentId,
        offer,
        order: await orderSummary(deps, root),
      } satisfies OfferState);
    },
  )
  .post(
    "/upsell/accept",
    doc({
      tag: "Upsells",
      summary: "Accept an offer: one click charges the saved card",
      access: "buyer",
      ok: acceptResultSchema,
      errors: {
        403: "Offers are for the browser that paid",
        404: "Purchase or step not found",
        409: "This offer has changed. Please review it again. (or it is no longer available, was declined, or is already paid)",
        410: "This offer has expired",
        502: "Stripe Tax could not calculate the offer's tax (taxed at the first purchase's place, docs/tax.md): nothing was charged; try again",
      },
    }),
    validate("json", acceptOfferSchema),
    async (c) => {
      const body = c.req.valid("json");
      const deps = purchaseDeps(c);
      const root = await rootPurchase(deps, claim(c, body));
      return c.json(await acceptOffer(deps, root, body.stepId, body.amount));
    },
  )
  .post(
    "/upsell/complete",
    doc({
      tag: "Upsells",
      summary: "After 3D Secure: read the offer's payment from Stripe",
      access: "buyer",
      ok: acceptResultSchema,
      errors: {
        403: "Offers are for the browser that paid",
        404: "Purchase or step not found",
        409: "The offer is no longer available, was declined, or its payment is being processed",
        410: "This offer has expired",
      },
    }),
    validate("json", declineOfferSchema),
    async (c) => {
      const body = c.req.valid("json");
      const deps = purchaseDeps(c);
      return c.json(await completeOffer(deps, await rootPurchase(deps, claim(c, body)), body.stepId));
    },
  )
  .post(
    "/upsell/decline",
    doc({
      tag: "Upsells",
      summary: "Decline an offer; the next one, if any",
      access: "buyer",
      ok: declineResultSchema,
      errors: {
        403: "Offers are for the browser that paid",
        404: "Purchase or step not found",
        409: "The offer is no longer available, or was already paid",
        410: "This offer has expired",
      },
    }),
    validate("json", declineOfferSchema),
    async (c) => {
      const body = c.req.valid("json");
      const deps = purchaseDeps(c);
      return c.json(await declineOffer(deps, await rootPurchase(deps, claim(c, body)), body.stepId));
    },
  )
  .get(
    "/upsell/order",
    doc({
      tag: "Upsells",
      summary: "What the order added, with access to each",
      access: "buyer",
      ok: orderSchema,
      errors: { 403: "Not this buyer's order", 404: "Purchase Not Found" },
    }),
    validate("query", orderQuerySchema),
    async (c) => {
      const deps = purchaseDeps(c);
      const query = c.req.valid("query");
      const root = await orderRoot(deps, { ...claim(c, query), access: query.access });
      return c.json({ items: await orderExtras(deps, root), order: await orderSummary(deps, root) });
    },
  );
