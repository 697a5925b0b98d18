// The Pro plan: a Stripe subscription to the $99/month price. The browser only ever gets a client
// secret to pay the first invoice; the plan changes from Stripe's word alone (subscription and
// invoice webhooks, each re-read from Stripe, never trusted from the payload). While Stripe retries
// a failed renewal (past_due) the creator stays Pro; when it gives up (canceled) Pro ends.
// Pro's 0% fee is for paid periods only: when Stripe takes an invoice's money back (refunded in full,
// or a chargeback lost) its period is voided and the fee is re-booked on the sales made inside it.
import { and, count, desc, eq, gt, inArray, isNull, lte, or, sql } from "drizzle-orm";
import type Stripe from "stripe";
import { PRO_PRICE_CENTS } from "../../shared/pricing";
import type { Db } from "../db/client";
import { proPeriods, subscriptions, users } from "../db/schema";
import { ApiError } from "../lib/errors";
import { rebookProFees } from "./ledger";
import { reinstated, withdrew } from "./purchases/states";
import { dispatch, outboxInsert } from "./mail/email-outbox";
import type { EmailJob } from "./mail/templates";

export type SubscriptionDeps = { db: Db; stripe: Stripe };
/** Voiding a period writes the period and its fee rows in one batch: raw D1 too. */
export type ProInvoiceDeps = SubscriptionDeps & { d1: D1Database; emails?: Queue; appUrl?: string };
export type SubscriptionState = {
  plan: "free" | "pro";
  status: string | null;
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
};

const PRO_LOOKUP_KEY = "apewall_pro_monthly";
const PRO_STATUSES = ["active", "past_due", "trialing"];
const NO_CLIENT_SECRET = "No client secret received";

async function proPriceId(stripe: Stripe): Promise<string> {
  const found = await stripe.prices.list({ lookup_keys: [PRO_LOOKUP_KEY], active: true, limit: 1 });
  if (found.data[0]) return found.data[0].id;
  const price = await stripe.prices.create(
    {
      currency: "usd",
      unit_amount: PRO_PRICE_CENTS,
      recurring: { interval: "month" },
      lookup_key: PRO_LOOKUP_KEY,
      product_data: { name: "ApeWall Pro" },
    },
    { idempotencyKey: `pro-price:${PRO_PRICE_CENTS}` },
  );
  return price.id;
}

/** The creator's own Customer (not a buyer's), created once. */
async function creatorCustomer(deps: SubscriptionDeps, userId: string): Promise<string> {
  const user = await deps.db
    .select({ email: users.email, customer: users.stripeCustomerId })
    .from(users)
    .where(eq(users.id, userId))
    .get();
  if (!user) throw new ApiError(401, "Unauthorized");
  if (user.customer) return user.customer;
  const customer = await deps.stripe.customers.create(
    { email: user.email, metadata: { userId } },
    { idempotencyKey: `creator-customer:${userId}` },
  );
  await deps.db
    .update(users)
    .set({ stripeCustomerId: customer.id })
    .where(and(eq(users.id, userId), isNull(users.stripeCustomerId)));
  return (
    (await deps.db.select({ customer: users.stripeCustomerId }).from(users).where(eq(users.id, userId)).get())
      ?.customer ?? customer.id
  );
}

const secretOf = (sub: Stripe.Subscription) =>
  typeof sub.latest_invoice === "object" ? sub.latest_invoice?.confirmation_secret?.client_secret : undefined;

/** POST /api/create-subscription: an incomplete subscription whose first invoice the browser pays. */
export async function createSubscription(
  deps: SubscriptionDeps,
  userId: string,
): Promise<{ clientSecret: string; subscriptionId: string }> {
  const mine = await deps.db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.userId, userId))
    .orderBy(desc(subscriptions.createdAt));
  if (mine.some((s) => PRO_STATUSES.includes(s.status))) throw new ApiError(409, "You already have Pro");
  // A second click (or a reload) pays the same first invoice instead of opening another subscription.
  const open = mine.find((s) => s.status === "incomplete");
  if (open) {
    const sub = await deps.stripe.subscriptions.retrieve(open.id, { expand: ["latest_invoice.confirmation_secret"] });
    const secret = secretOf(sub);
    if (sub.status === "incomplete" && secret) return { clientSecret: secret, subscriptionId: sub.id };
    await saveSubscription(deps.db, userId, sub);
  }
  const customer = await creatorCustomer(deps, userId);
  const sub = await deps.stripe.subscriptions.create(
    {
      customer,
      items: [{ price: await proPriceId(deps.stripe) }],
      payment_behavior: "default_incomplete",
      payment_settings: { save_default_payment_method: "on_subscription" },
      expand: ["latest_invoice.confirmation_secret"],
      metadata: { userId },
    },
    { idempotencyKey: `pro-subscription:${userId}:${mine.length}` },
  );
  await saveSubscription(deps.db, userId, sub);
  const secret = secretOf(sub);
  if (!secret) throw new ApiError(502, NO_CLIENT_SECRET);
  return { clientSecret: secret, subscriptionId: sub.id };
}

async function saveSubscription(db: Db, userId: string, sub: Stripe.Subscription) {
  const periodEnd = sub.items.data[0]?.current_period_end;
  const row = {
    status: sub.status,
    currentPeriodEnd: periodEnd ? new Date(periodEnd * 1000) : null,
    cancelAtPeriodEnd: sub.cancel_at_period_end,
    updatedAt: new Date(),
  };
  await db
    .insert(subscriptions)
    .values({ id: sub.id, userId, ...row })
    .onConflictDoUpdate({ target: subscriptions.id, set: row });
  if (sub.ended_at) {
    // Ended early (canceled now, or Stripe gave up): no 0% fee after the end.
    await db
      .update(proPeriods)
      .set({ endsAt: new Date(sub.ended_at * 1000) })
      .where(and(eq(proPeriods.subscriptionId, sub.id), gt(proPeriods.endsAt, new Date(sub.ended_at * 1000))));
  }
  const active = await db
    .select({ n: count() })
    .from(subscriptions)
    .where(and(eq(subscriptions.userId, userId), inArray(subscriptions.status, PRO_STATUSES)))
    .get();
  await db
    .update(users)
    .set({ plan: (active?.n ?? 0) > 0 ? "pro" : "free" })
    .where(eq(users.id, userId));
}

/** The subscription as Stripe has it now, stored against its creator (checked by Customer id). */
export async function syncSubscription(
  deps: SubscriptionDeps,
  subscriptionId: string,
): Promise<{ userId: string; sub: Stripe.Subscription } | null> {
  let sub: Stripe.Subscription;
  try {
    sub = await deps.stripe.subscriptions.retrieve(subscriptionId);
  } catch (err) {
    // An event naming a subscription Stripe does not know: nothing to do (a retry would not help).
    if ((err as { code?: string }).code === "resource_missing") return null;
    throw err;
  }
  const customerId = typeof sub.customer === "string" ? sub.customer : sub.customer.id;
  const owner = await deps.db.select({ id: users.id }).from(users).where(eq(users.stripeCustomerId, customerId)).get();
  // Only our creators' Customers: a subscription of anyone else (or a buyer's Customer) changes nothing.
  if (!owner) return null;
  await saveSubscription(deps.db, owner.id, sub);
  return { userId: owner.id, sub };
}

/**
 * invoice.paid / invoice.payment_failed (Stripe's events for a subscription's invoice; its
 * invoice.payment_succeeded is not used): a paid invoice records its paid Pro period and emails the
 * creator its receipt, first charge and each renewal alike.
 */
export async function handleSubscriptionInvoice(deps: ProInvoiceDeps, invoiceId: string): Promise<void> {
  const invoice = await deps.stripe.invoices.retrieve(invoiceId);
  const ref = invoice.parent?.subscription_details?.subscription;
  const subscriptionId = typeof ref === "string" ? ref : ref?.id;
  if (!subscriptionId) return;
  const synced = await syncSubscription(deps, subscriptionId);
  if (!synced || invoice.status !== "paid") return;
  const period = invoice.lines.data[0]?.period ?? { start: invoice.period_start, end: invoice.period_end };
  const endsAt = Math.min(period.end, synced.sub.ended_at ?? Number.MAX_SAFE_INTEGER);
  // The charge that paid it: the receipt names its card, and its refunds are settled below.
  const payments = await deps.stripe.invoicePayments.list({ invoice: invoice.id, status: "paid", limit: 1 });
  const intentId = idOf(payments.data[0]?.payment?.payment_intent);
  const chargeId = intentId ? idOf((await deps.stripe.paymentIntents.retrieve(intentId)).latest_charge) : null;
  const charge = chargeId ? await deps.stripe.charges.retrieve(chargeId) : null;
  const now = Date.now();
  const receipt = await proReceiptJob(deps, synced.userId, invoice, period, charge);
  // The period and its receipt in one batch; the receipt is keyed by the invoice, so a duplicated
  // or second event about the same invoice writes nothing more.
  await deps.d1.batch([
    deps.d1
      .prepare(
        "insert into pro_periods (invoice_id, user_id, subscription_id, starts_at, ends_at) values (?, ?, ?, ?, ?) on conflict do nothing",
      )
      .bind(invoice.id, synced.userId, subscriptionId, period.start * 1000, endsAt * 1000),
    ...(receipt ? [outboxInsert(deps.d1, receipt, now)] : []),
  ]);
  if (receipt && deps.emails) await dispatch(deps.d1, deps.emails, [receipt.dedupeKey], now);
  // The creator is Pro from the moment the first invoice is paid, whatever order the events come in.
  await saveSubscription(deps.db, synced.userId, synced.sub);
  // A refund or chargeback of this invoice may have been handled before its period was recorded.
  if (charge) await settleProInvoiceCharge(deps, charge);
}

/** "Receipt for ApeWall Pro" for a paid invoice, to the creator's account address (figures from Stripe's objects). */
async function proReceiptJob(
  deps: ProInvoiceDeps,
  userId: string,
  invoice: Stripe.Invoice,
  period: { start: number; end: number },
  charge: Stripe.Charge | null,
): Promise<EmailJob | null> {
  const user = await deps.db.select({ email: users.email }).from(users).where(eq(users.id, userId)).get();
  if (!user?.email || !deps.appUrl) return null;
  const card = charge?.payment_method_details?.card;
  return {
    dedupeKey: `pro-receipt:${invoice.id}`,
    to: user.email,
    template: "pro-receipt",
    data: {
      amountCents: invoice.amount_paid,
      currency: invoice.currency,
      periodStart: new Date(period.start * 1000).toISOString(),
      periodEnd: new Date(period.end * 1000).toISOString(),
      invoiceNumber: invoice.number ?? invoice.id,
      card: card?.last4 ? { brand: cardBrand(card.brand), last4: card.last4 } : null,
      manageUrl: new URL("/settings", deps.appUrl).href,
    },
  };
}

const BRANDS: Record<string, string> = {
  visa: "Visa",
  mastercard: "Mastercard",
  amex: "American Express",
  discover: "Discover",
  jcb: "JCB",
  diners: "Diners Club",
  unionpay: "UnionPay",
};
const cardBrand = (brand: string | null | undefined) => (brand ? (BRANDS[brand] ?? brand) : "Card");

const idOf = (v: string | { id: string } | null | undefined) => (typeof v === "string" ? v : (v?.id ?? null));

/**
 * A charge that paid a Pro invoice, as Stripe has it now: refunded in full (succeeded refunds) or
 * charged back and lost, its period is voided and the fee re-booked on that period's sales at 0%
 * (ledger `fee_adjustment` rows), in one D1 batch; safe to repeat. A partial refund leaves the
 * period. Returns false when the charge paid no invoice of ours.
 */
export async function settleProInvoiceCharge(
  deps: ProInvoiceDeps,
  charge: Stripe.Charge,
  refunds?: Stripe.Refund[],
  disputes?: Stripe.Dispute[],
): Promise<boolean> {
  const intentId = idOf(charge.payment_intent);
  if (!intentId) return false;
  const paid = await deps.stripe.invoicePayments.list({
    payment: { type: "payment_intent", payment_intent: intentId },
    limit: 1,
  });
  const invoiceId = idOf(paid.data[0]?.invoice);
  if (!invoiceId) return false;
  const period = await deps.db.select().from(proPeriods).where(eq(proPeriods.invoiceId, invoiceId)).get();
  // Not recorded yet: invoice.paid records it and comes back here.
  if (!period) return true;
  refunds ??= await listAll(deps.stripe.refunds.list({ charge: charge.id, limit: 100 }));
  disputes ??= await listAll(deps.stripe.disputes.list({ charge: charge.id, limit: 100 }));
  const refundedCents = refunds.filter((r) => r.status === "succeeded").reduce((a, r) => a + r.amount, 0);
  const chargedBack = disputes.some((d) => d.status === "lost" && withdrew(d));
  // A chargeback holds the period's 0% from the moment it opened (its funds are gone until it is
  // decided), not from its loss; a won one gives it back for sales made after.
  const open = disputes.filter((d) => withdrew(d) && !reinstated(d));
  // Stripe gives the second it opened: sales in that second count as made before it.
  const disputedAt = open.length ? Math.min(...open.map((d) => (d.created + 1) * 1000)) : null;
  if (disputedAt !== null) {
    await deps.d1.batch([
      deps.d1
        .prepare(
          "update pro_periods set disputed_at = ?2 where invoice_id = ?1 and (disputed_at is null or disputed_at > ?2)",
        )
        .bind(invoiceId, disputedAt),
      ...rebookProFees(deps.d1, invoiceId, "disputed"),
    ]);
  } else if (period.disputedAt) {
    await deps.d1.prepare("update pro_periods set disputed_at = null where invoice_id = ?").bind(invoiceId).run();
  }
  const reason = refundedCents >= charge.amount ? "refund" : chargedBack ? "dispute" : null;
  if (!reason) return true;
  await deps.d1.batch([
    deps.d1
      .prepare("update pro_periods set voided_at = ?, void_reason = ? where invoice_id = ? and voided_at is null")
      .bind(Date.now(), reason, invoiceId),
    ...rebookProFees(deps.d1, invoiceId, reason),
  ]);
  return true;
}

/**
 * The daily sweep's part: re-books the fee for every Pro period voided in the last VOIDED_LOOKBACK_MS.
 * `settleProInvoiceCharge` re-books in the batch that voids, but a sale whose fulfilment read the
 * plan before the void and wrote its 0% split after that batch is not in it; its fee is re-booked
 * here (each row once, by its key), within a day and so well before the sale's 7-day hold ends.
 */
export async function rebookVoidedProPeriods(d1: D1Database, now = Date.now()): Promise<number> {
  const { results } = await d1
    .prepare(
      "select invoice_id, void_reason from pro_periods where voided_at is not null and voided_at >= ? and void_reason in ('refund', 'dispute') limit 100",
    )
    .bind(now - VOIDED_LOOKBACK_MS)
    .all<{ invoice_id: string; void_reason: "refund" | "dispute" }>();
  if (!results.length) return 0;
  await d1.batch(results.flatMap((r) => rebookProFees(d1, r.invoice_id, r.void_reason)));
  return results.length;
}
const VOIDED_LOOKBACK_MS = 45 * 24 * 3600 * 1000;

async function listAll<T>(list: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of list) out.push(x);
  return out;
}

/** The plan a sale paid at `at` is booked under: Pro only inside a paid Pro period Stripe did not take back. */
export async function planAt(db: Db, userId: string, at: Date): Promise<"free" | "pro"> {
  const hit = await db
    .select({ one: sql<number>`1` })
    .from(proPeriods)
    .where(
      and(
        eq(proPeriods.userId, userId),
        lte(proPeriods.startsAt, at),
        gt(proPeriods.endsAt, at),
        isNull(proPeriods.voidedAt),
        or(isNull(proPeriods.disputedAt), gt(proPeriods.disputedAt, at)),
      ),
    )
    .limit(1)
    .get();
  return hit ? "pro" : "free";
}

export async function subscriptionState(db: Db, userId: string): Promise<SubscriptionState> {
  const [user, latest] = await db.batch([
    db.select({ plan: users.plan }).from(users).where(eq(users.id, userId)),
    db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.userId, userId))
      .orderBy(desc(sql`${subscriptions.status} in ('active', 'past_due', 'trialing')`), desc(subscriptions.createdAt))
      .limit(1),
  ]);
  const s = latest[0];
  return {
    plan: user[0]?.plan ?? "free",
    status: s?.status ?? null,
    currentPeriodEnd: s?.currentPeriodEnd?.toISOString() ?? null,
    cancelAtPeriodEnd: s?.cancelAtPeriodEnd ?? false,
  };
}

/** Cancel at period end: Pro stays until the paid period ends; Stripe then ends the subscription. */
export async function cancelAtPeriodEnd(deps: SubscriptionDeps, userId: string): Promise<SubscriptionState> {
  const active = await deps.db
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.userId, userId), inArray(subscriptions.status, PRO_STATUSES)))
    .get();
  if (!active) throw new ApiError(404, "No active Pro subscription");
  const sub = await deps.stripe.subscriptions.update(
    active.id,
    { cancel_at_period_end: true },
    { idempotencyKey: `pro-cancel:${active.id}` },
  );
  await saveSubscription(deps.db, userId, sub);
  return subscriptionState(deps.db, userId);
}
