// The buyer's one-click offers after paying (/checkout/upsell): the next offer, accept, decline,
// completing an accept the bank wanted confirmed, and the order that results. No account: the
// caller proves the purchase with the paying browser's aw_buyer cookie or the access link.
import { Hono, type Context } from "hono";
import { getCookie } from "hono/cookie";
import { acceptOfferSchema, declineOfferSchema, offerQuerySchema, type OfferState } from "../../shared/funnels";
import type { AppEnv } from "../lib/context";
import { validate } from "../lib/validate";
import { BUYER_COOKIE } from "../services/purchases";
import { acceptOffer, completeOffer, declineOffer, nextOffer, orderExtras, rootPurchase } from "../services/upsells";
import { purchaseDeps } from "./payments";

const claim = (c: Context<AppEnv>, body: { purchaseId?: string; access?: string }) => {
  const key = getCookie(c, BUYER_COOKIE);
  return { buyerKey: key && /^[A-Za-z0-9_-]{20,100}$/.test(key) ? key : null, access: body.access, purchaseId: body.purchaseId };
};

export const upsellRoutes = new Hono<AppEnv>()
  .get("/upsell/offer", validate("query", offerQuerySchema), async (c) => {
    const deps = purchaseDeps(c);
    const root = await rootPurchase(deps, claim(c, c.req.valid("query")));
    return c.json({ purchaseId: root.id, contentId: root.contentId, offer: await nextOffer(deps, root) } satisfies OfferState);
  })
  .post("/upsell/accept", validate("json", acceptOfferSchema), async (c) => {
    const body = c.req.valid("json");
    const deps = purchaseDeps(c);
    const root = await rootPurchase(deps, claim(c, body));
    return c.json(await acceptOffer(deps, root, body.stepId, body.amount));
  })
  .post("/upsell/complete", validate("json", declineOfferSchema), async (c) => {
    const body = c.req.valid("json");
    const deps = purchaseDeps(c);
    return c.json(await completeOffer(deps, await rootPurchase(deps, claim(c, body)), body.stepId));
  })
  .post("/upsell/decline", validate("json", declineOfferSchema), async (c) => {
    const body = c.req.valid("json");
    const deps = purchaseDeps(c);
    return c.json(await declineOffer(deps, await rootPurchase(deps, claim(c, body)), body.stepId));
  })
  .get("/upsell/order", validate("query", offerQuerySchema), async (c) => {
    const deps = purchaseDeps(c);
    const root = await rootPurchase(deps, claim(c, c.req.valid("query")));
    return c.json({ items: await orderExtras(deps, root) });
  });
