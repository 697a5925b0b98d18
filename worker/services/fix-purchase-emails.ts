// The admin's 'Fix Missing Emails' repair: paid purchases without a buyer email get it from Stripe,
// a page at a time, each call written to the admin audit log.
import type Stripe from "stripe";
import { FIX_EMAILS_PAGE, type FixPurchaseEmailsResult } from "../../shared/admin";
import type { Db } from "../db/client";
import { adminAudit } from "../db/schema";
import type { Actor } from "./payouts/deps";

/**
 * Paid purchases without a buyer email get it from Stripe: the charge's billing details, else its
 * receipt email, else the PaymentIntent's receipt email. Only empty emails are written.
 *
 * One call looks at FIX_EMAILS_PAGE purchases, oldest first, after the cursor `after` (a Worker may
 * make only so many subrequests, and each purchase may ask Stripe twice), and answers where to go on
 * from and how many remain. Purchases Stripe has no email for are passed over, not retried forever.
 */
export async function fixPurchaseEmails(
  deps: { db: Db; d1: D1Database; stripe: Stripe },
  actor: Actor,
  after?: string,
): Promise<FixPurchaseEmailsResult> {
  const missingWhere =
    "status = 'paid' and (buyer_email is null or buyer_email = '') and payment_intent_id is not null";
  const [afterAt, afterId] = after
    ? [Number(after.slice(0, after.indexOf("."))), after.slice(after.indexOf(".") + 1)]
    : [-1, ""];
  const missing = await deps.d1
    .prepare(
      `select id, payment_intent_id, created_at from purchases where ${missingWhere} and (created_at, id) > (?, ?) order by created_at, id limit ?`,
    )
    .bind(afterAt, afterId, FIX_EMAILS_PAGE)
    .all<{ id: string; payment_intent_id: string; created_at: number }>();
  let fixed = 0;
  for (const p of missing.results) {
    try {
      const intent = await deps.stripe.paymentIntents.retrieve(p.payment_intent_id);
      const chargeId = typeof intent.latest_charge === "string" ? intent.latest_charge : intent.latest_charge?.id;
      const charge = chargeId ? await deps.stripe.charges.retrieve(chargeId) : null;
      const email = (charge?.billing_details?.email || charge?.receipt_email || intent.receipt_email || "")
        .trim()
        .toLowerCase();
      if (!email) continue;
      const updated = await deps.d1
        .prepare(
          "update purchases set buyer_email = ? where id = ? and (buyer_email is null or buyer_email = '') returning id",
        )
        .bind(email, p.id)
        .all();
      fixed += updated.results.length;
    } catch (err) {
      console.warn("could not fix the email of purchase", p.id, err instanceof Error ? err.message : err);
    }
  }
  const last = missing.results.at(-1);
  const next = last ? `${last.created_at}.${last.id}` : null;
  const remaining = last
    ? ((
        await deps.d1
          .prepare(`select count(*) as n from purchases where ${missingWhere} and (created_at, id) > (?, ?)`)
          .bind(last.created_at, last.id)
          .first<{ n: number }>()
      )?.n ?? 0)
    : 0;
  const total = missing.results.length;
  await deps.db.insert(adminAudit).values({
    actorUserId: actor.userId,
    actorEmail: actor.email,
    action: "fix-purchase-emails",
    detail: JSON.stringify({ fixed, total, remaining, after: after ?? null }),
  });
  return { fixed, total, remaining, next: remaining > 0 ? next : null };
}
