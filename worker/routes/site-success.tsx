/** @jsxImportSource hono/jsx */
// /success?payment_intent=…&content_id=…&access=…: the buyer's order, finished in the HTML
// (worker/pages/success.tsx). The Worker verifies the purchase itself, as GET /api/purchase/verify
// does, with this request's buyer cookie (aw_buyer) or access link: paid, a payment on its way
// (verifying: the island asks again), revoked, or not found. It depends on the buyer, so it is never
// cached. Back from paying (Stripe's redirect_status=succeeded) with an offer waiting for this browser,
// it goes on to the offer (/checkout/upsell) before anything is drawn, as the SPA did. docs/pages.md.
import { type Context, Hono } from "hono";
import type { OrderSummary } from "../../shared/funnels";
import { type PurchaseVerification, verifyPurchaseQuery } from "../../shared/payments";
import { awaitingReceipt, SUCCESS_DATA_ID, SUCCESS_TEXT, type SuccessData } from "../../shared/success";
import { createDb } from "../db/client";
import { inlineJson, sendPrivatePage } from "../lib/site-page";
import type { AppEnv } from "../middleware/context";
import { NotFound, Paid, Revoked, Verifying } from "../pages/success";
import { accessOf } from "../pages/success-access";
import { claimedPurchase, revokedPurchase, verification } from "../services/purchases/buyer-access";
import type { PurchaseDeps } from "../services/purchases/deps";
import { syncWithStripe } from "../services/purchases/fulfil";
import { processingFor } from "../services/purchases/processing";
import { orderRoot, rootPurchase } from "../services/upsells/buyer";
import { nextOffer } from "../services/upsells/offer";
import { orderExtras, orderSummary } from "../services/upsells/order";
import { claimOf, purchaseDeps } from "./purchase-context";

type Ctx = Context<AppEnv>;

async function send(c: Ctx, title: string, body: unknown, status = 200, data?: SuccessData) {
  const head = ['<meta name="robots" content="noindex" />'];
  if (data) head.push(`<script type="application/json" id="${SUCCESS_DATA_ID}">${inlineJson(data)}</script>`);
  // Without JavaScript, a payment on its way is asked about again by reloading the page.
  if (data?.state === "verifying") head.push('<noscript><meta http-equiv="refresh" content="5" /></noscript>');
  return sendPrivatePage(
    c,
    { shell: "/shells/success", title: `${title} · ApeWall`, head: head.join("\n    "), body: String(await body) },
    status,
  );
}

const notFound = (c: Ctx, status: 400 | 404 = 404) => send(c, SUCCESS_TEXT.notFound.title, <NotFound />, status);

/** The offer waiting for this browser right after paying, if any (any refusal: none). */
async function waitingOffer(deps: PurchaseDeps, buyerKey: string | undefined, purchaseId: string): Promise<boolean> {
  if (!buyerKey) return false;
  try {
    return !!(await nextOffer(deps, await rootPurchase(deps, { buyerKey, purchaseId })));
  } catch {
    return false;
  }
}

/** What the funnel added to the order and its total, readable with the access link (none for an added item itself). */
async function orderOf(
  deps: PurchaseDeps,
  buyerKey: string | undefined,
  access: string | undefined,
): Promise<{ items: PurchaseVerification[]; summary: OrderSummary } | null> {
  try {
    const root = await orderRoot(deps, { buyerKey, access });
    const [items, summary] = await Promise.all([orderExtras(deps, root), orderSummary(deps, root)]);
    return { items, summary };
  } catch {
    return null;
  }
}

export const successPageRoutes = new Hono<AppEnv>().on(["GET", "HEAD"], "/success", async (c) => {
  const parsed = verifyPurchaseQuery.safeParse(c.req.query());
  if (!parsed.success) return notFound(c, 400);
  const q = parsed.data;
  if (!q.payment_intent && !q.access) return notFound(c);
  c.set("db", createDb(c.env.DB));
  const deps = purchaseDeps(c);
  const claim = claimOf(c, q.access);
  const where = { paymentIntentId: q.payment_intent, contentId: q.content_id };
  const found = await claimedPurchase(deps, claim, where);
  if (!found) return notFound(c);
  const purchase = await syncWithStripe(deps, found, { bestEffort: true });

  if (purchase.status === "refunded" || purchase.status === "disputed") {
    const revoked = await revokedPurchase(deps, claim, where);
    return revoked ? send(c, `This order was ${revoked.state}`, <Revoked r={revoked} />) : notFound(c);
  }
  if (purchase.status !== "paid") {
    const redirect = c.req.query("redirect_status");
    const onItsWay =
      purchase.status === "pending" &&
      (!!purchase.processingSince ||
        redirect === "succeeded" ||
        redirect === "processing" ||
        (!!claim.buyerKey && (await processingFor(c.env.DB, claim.buyerKey, purchase.contentId))));
    if (!onItsWay) return notFound(c);
    const query = new URLSearchParams(Object.entries(q).filter((e): e is [string, string] => !!e[1])).toString();
    return send(c, SUCCESS_TEXT.verifying.title, <Verifying />, 200, { state: "verifying", query });
  }

  const v = await verification(deps, purchase, claim.buyerKey);
  const access = accessOf(v.accessUrl);
  if (c.req.query("redirect_status") === "succeeded" && (await waitingOffer(deps, claim.buyerKey, purchase.id)))
    return c.redirect(
      `/checkout/upsell?${new URLSearchParams({ purchase: purchase.id, ...(access ? { access } : {}) })}`,
      303,
    );
  const order = await orderOf(deps, claim.buyerKey, access);
  const data: SuccessData = {
    state: "paid",
    purchaseId: v.purchase.id,
    contentId: v.content.id,
    accessUrl: v.accessUrl,
    addOns: v.addOns.map((a) => a.accessUrl),
    paymentIntent: q.payment_intent,
    awaitingReceipt: awaitingReceipt(v),
    hadAddress: !!v.purchase.emailedTo,
  };
  return send(c, SUCCESS_TEXT.paid, <Paid v={v} order={order} />, 200, data);
});
