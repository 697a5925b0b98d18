// What a funnel step costs: the amounts a buyer may pay, and the offer's Product and Price at
// Stripe, made by the server and keyed so a repeat makes no second one. Behaviour: docs/funnels.md.
import { and, eq } from "drizzle-orm";
import type Stripe from "stripe";
import { MIN_PRICE_CENTS } from "../../../shared/pricing";
import { TIP_CEILING_MULTIPLE } from "../../../shared/funnels";
import { content, type funnelSteps } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import { sha256Hex } from "../../lib/ids";
import type { FunnelDeps } from "./funnels";

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

/** The offer's price, read from Stripe: it must be a one-time price of a product this creator made. */
export async function ownedPrice(deps: FunnelDeps, userId: string, priceId: string): Promise<number> {
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

/**
 * The step's price, decided here: a price id the client names must be one of this creator's own;
 * otherwise the offer is the chosen item at `price` (or the item's own price), and its Stripe price
 * is made here, keyed by creator, item and amount, so a repeat makes no second product.
 */
export async function stepPrice(
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
