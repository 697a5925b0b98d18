// What every purchase job is given, and the row and statuses they share. Behaviour: docs/payments.md.
import type Stripe from "stripe";
import type { Db } from "../../db/client";
import type { purchases } from "../../db/schema";

export type PurchaseDeps = {
  db: Db;
  d1: D1Database;
  stripe: Stripe;
  emails: Queue;
  /** Creators' outgoing webhooks (../webhooks.ts); without it the sweep hands the rows over. */
  webhooks?: Queue;
  appUrl: string;
  accessSecret: string;
  /** How long a checkout reminder waits (./recovery.ts); CHECKOUT_REMINDER_DELAY_SECONDS shortens it for local runs. */
  reminderDelayMs?: number;
};

export type PurchaseRow = typeof purchases.$inferSelect;

/** A purchase that was paid, whatever happened to it since. */
export const PAID_LIKE = ["paid", "refunded", "disputed"];

/** The id of a Stripe object that may come expanded or as its id. */
export const idOf = (v: string | { id: string } | null | undefined) => (typeof v === "string" ? v : (v?.id ?? null));
