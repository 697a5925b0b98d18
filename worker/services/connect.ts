// Bank payouts through Stripe Connect (Express accounts): the platform charges buyers and later
// transfers a creator's payout to their connected account. One account per creator, created once
// (idempotency key per creator plus a conditional write); its status comes only from Stripe, by
// re-reading the account (on account.updated, on return from onboarding, on the status call). An
// account Stripe no longer has (deleted there) reads as not connected and is replaced at the next
// onboarding.
import { and, eq, isNull } from "drizzle-orm";
import type Stripe from "stripe";
import type { Db } from "../db/client";
import { payoutSettings, users } from "../db/schema";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import { dispatch } from "./mail/email-outbox";
import { bankReadyStatements } from "./payouts/destination-settings";
import { isUnknownObject } from "./stripe";

export type ConnectDeps = { db: Db; stripe: Stripe; appUrl: string; d1: D1Database; emails: Queue };
export type ConnectStatus = { connected: boolean; details_submitted: boolean; payouts_enabled: boolean };

const DASHBOARD_LINK_FAILED = "Failed to access payout dashboard. Please try again.";

const accountIdOf = async (db: Db, userId: string) =>
  (
    await db
      .select({ id: payoutSettings.stripeAccountId })
      .from(payoutSettings)
      .where(eq(payoutSettings.userId, userId))
      .get()
  )?.id ?? null;

/**
 * Stores what Stripe says about an account: whether transfers can be made to it. The creator's
 * manual method and email are theirs and stay as they are (the account is stored beside them; the
 * creator chooses which one is the default, payouts.ts destinationOf).
 */
async function saveAccountState(deps: Omit<ConnectDeps, "stripe">, account: Stripe.Account): Promise<ConnectStatus> {
  const { db } = deps;
  const ready = account.details_submitted && account.payouts_enabled && account.capabilities?.transfers === "active";
  if (ready) {
    // The bank becomes where payouts go: recorded and told to the creator once, like any change of destination.
    const now = Date.now();
    const { statements, mailKey } = bankReadyStatements(deps.d1, account.id, deps.appUrl, now);
    const [, audited] = await deps.d1.batch(statements);
    if (audited.meta.changes) await dispatch(deps.d1, deps.emails, [mailKey], now);
  }
  await db
    .update(payoutSettings)
    .set({ connectDetailsSubmitted: account.details_submitted, connectPayoutsEnabled: !!ready, updatedAt: new Date() })
    .where(eq(payoutSettings.stripeAccountId, account.id));
  return { connected: true, details_submitted: account.details_submitted, payouts_enabled: !!ready };
}

/** The creator's Express account, created at most once. */
async function ensureAccount(deps: ConnectDeps, userId: string): Promise<string> {
  const known = await accountIdOf(deps.db, userId);
  if (known && (await retrieveAccount(deps.stripe, known))) return known;
  const user = await deps.db.select({ email: users.email }).from(users).where(eq(users.id, userId)).get();
  const account = await deps.stripe.accounts.create(
    { type: "express", email: user?.email, capabilities: { transfers: { requested: true } }, metadata: { userId } },
    // The first account, or the one that replaces an account deleted at Stripe: one per gone account.
    { idempotencyKey: known ? `connect-account:${userId}:after:${known}` : `connect-account:${userId}` },
  );
  // Two onboarding clicks at once get the same account (same idempotency key); whichever write
  // lands first wins and the other is a no-op.
  await deps.db
    .insert(payoutSettings)
    .values({ userId, stripeAccountId: account.id })
    .onConflictDoNothing({ target: payoutSettings.userId });
  await deps.db
    .update(payoutSettings)
    .set({ stripeAccountId: account.id })
    .where(
      and(
        eq(payoutSettings.userId, userId),
        known ? eq(payoutSettings.stripeAccountId, known) : isNull(payoutSettings.stripeAccountId),
      ),
    );
  return (await accountIdOf(deps.db, userId)) ?? account.id;
}

/** The hosted onboarding URL: back to /connect?connected=true when done, /connect?refresh=true when the link is stale or left. */
export async function onboardingUrl(deps: ConnectDeps, userId: string): Promise<string> {
  const account = await ensureAccount(deps, userId);
  const link = await deps.stripe.accountLinks.create(
    {
      account,
      refresh_url: new URL("/connect?refresh=true", deps.appUrl).toString(),
      return_url: new URL("/connect?connected=true", deps.appUrl).toString(),
      type: "account_onboarding",
    },
    // Links are single-use and expire, so each request asks for a fresh one; the key only makes
    // the SDK's own network retries of this request safe.
    { idempotencyKey: `account-link:${userId}:${newId()}` },
  );
  return link.url;
}

const NOT_CONNECTED: ConnectStatus = { connected: false, details_submitted: false, payouts_enabled: false };

/**
 * Stripe no longer has the account (deleted there): the creator is not connected, and no transfer
 * goes to it. The id stays as the record of which account is gone; onboarding replaces it.
 */
async function forgetAccount(db: Db, accountId: string): Promise<ConnectStatus> {
  await db
    .update(payoutSettings)
    .set({ connectDetailsSubmitted: false, connectPayoutsEnabled: false, updatedAt: new Date() })
    .where(eq(payoutSettings.stripeAccountId, accountId));
  return NOT_CONNECTED;
}

/** Stripe's account, or null when Stripe says it does not exist (deleted, or never this platform's). */
async function retrieveAccount(stripe: Stripe, accountId: string): Promise<Stripe.Account | null> {
  try {
    const account = await stripe.accounts.retrieve(accountId);
    return (account as { deleted?: boolean }).deleted ? null : account;
  } catch (err) {
    if (isUnknownObject(err) || (err as { code?: string }).code === "account_invalid") return null;
    throw err;
  }
}

export async function accountStatus(deps: ConnectDeps, userId: string): Promise<ConnectStatus> {
  const accountId = await accountIdOf(deps.db, userId);
  if (!accountId) return NOT_CONNECTED;
  const account = await retrieveAccount(deps.stripe, accountId);
  return account ? saveAccountState(deps, account) : forgetAccount(deps.db, accountId);
}

export async function dashboardLink(deps: ConnectDeps, userId: string): Promise<string> {
  const accountId = await accountIdOf(deps.db, userId);
  if (!accountId) throw new ApiError(400, DASHBOARD_LINK_FAILED);
  try {
    return (await deps.stripe.accounts.createLoginLink(accountId)).url;
  } catch (err) {
    console.warn("login link failed", accountId, err);
    throw new ApiError(400, DASHBOARD_LINK_FAILED);
  }
}

/** account.updated: re-read the account from Stripe (the payload is not trusted) and store its state. */
export async function handleAccountUpdated(deps: ConnectDeps, accountId: string): Promise<void> {
  const known = await deps.db
    .select({ userId: payoutSettings.userId })
    .from(payoutSettings)
    .where(eq(payoutSettings.stripeAccountId, accountId))
    .get();
  if (!known) return;
  const account = await retrieveAccount(deps.stripe, accountId);
  await (account ? saveAccountState(deps, account) : forgetAccount(deps.db, accountId));
}
