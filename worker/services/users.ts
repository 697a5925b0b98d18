// Creator accounts: found or created by a verified email, read back as the SPA's current user.
import { eq } from "drizzle-orm";
import type { CurrentUser } from "../../shared/auth";
import type { Db } from "../db/client";
import { payoutSettings, users } from "../db/schema";
import { newId } from "../lib/ids";
import { destinationOf } from "./payouts/destination";

export type Profile = { firstName?: string | null; lastName?: string | null };

/**
 * The account of a verified email, made on first sign-in; `created` says this call made it, `named`
 * that it gave an existing account the name it lacked (its items' public answers show that name).
 */
export async function findOrCreateUserByEmail(
  db: Db,
  email: string,
  profile: Profile = {},
): Promise<{ id: string; created: boolean; named: boolean }> {
  const normalized = email.trim().toLowerCase();
  // Insert-or-ignore then read: safe when two sign-ins for a new email race (one of them creates it).
  const inserted = await db
    .insert(users)
    .values({
      id: newId(),
      email: normalized,
      firstName: profile.firstName ?? null,
      lastName: profile.lastName ?? null,
    })
    .onConflictDoNothing({ target: users.email })
    .returning({ id: users.id });
  const row = await db
    .select({ id: users.id, firstName: users.firstName })
    .from(users)
    .where(eq(users.email, normalized))
    .get();
  if (!row) throw new Error("user row vanished after insert");
  const named = !row.firstName && !!profile.firstName;
  if (named) {
    await db
      .update(users)
      .set({ firstName: profile.firstName, lastName: profile.lastName ?? null })
      .where(eq(users.id, row.id));
  }
  return { id: row.id, created: inserted.length > 0, named: named && inserted.length === 0 };
}

const isAdminEmail = (email: string, adminEmail: string | undefined) =>
  !!adminEmail && email.toLowerCase() === adminEmail.trim().toLowerCase();

export async function getCurrentUser(
  db: Db,
  userId: string,
  adminEmail: string | undefined,
): Promise<CurrentUser | null> {
  const row = await db
    .select({
      id: users.id,
      email: users.email,
      firstName: users.firstName,
      lastName: users.lastName,
      plan: users.plan,
      settings: payoutSettings,
    })
    .from(users)
    .leftJoin(payoutSettings, eq(payoutSettings.userId, users.id))
    .where(eq(users.id, userId))
    .get();
  if (!row) return null;
  // The run's own rule (payouts.ts destinationOf): 'Payouts Enabled' only when a payout would be made.
  const s = row.settings ?? undefined;
  const dest = destinationOf(s);
  const manual = s?.method && s.method !== "bank" ? s : null;
  return {
    id: row.id,
    email: row.email,
    firstName: row.firstName,
    lastName: row.lastName,
    plan: row.plan,
    isAdmin: isAdminEmail(row.email, adminEmail),
    payoutEnabled: dest !== null,
    payoutMethod: manual?.method ?? null,
    payoutEmail: manual?.email ?? null,
    payoutDestination: dest ? (dest.stripeAccountId ? "bank" : "manual") : null,
    payoutDefault: s?.payoutDefault ?? "bank",
    bankReady: !!(s?.stripeAccountId && s.connectPayoutsEnabled),
    payoutsHeld: !!s?.heldAt,
  };
}
