// What every payout step is given (the database, Stripe, the queues, how to start a send), built
// once in worker/deps.ts. Behaviour of the payout run: docs/money.md ("The monthly payout run").
import type Stripe from "stripe";
import { createDb, type Db } from "../../db/client";
import type { payouts } from "../../db/schema";
import type { Bindings } from "../../lib/env";
import { stripeClient } from "../stripe";

/**
 * `startSend`: hands one payout's transfer to its owner, the PayoutSendWorkflow instance (a second
 * start for the same payout joins the first). Everything that sends outside the run (a withdrawal,
 * an admin's re-send of a re-prepared payout) starts it here, so every transfer has one retrying owner.
 */
export type PayoutDeps = {
  db: Db;
  d1: D1Database;
  stripe: Stripe;
  emails: Queue;
  webhooks?: Queue;
  appUrl: string;
  startSend: (payoutId: string) => Promise<void>;
};

/** Everything a payout step needs but the way to start a send, which the caller gives (worker/deps.ts `payoutDeps`). */
export const payoutBaseDeps = (env: Bindings): Omit<PayoutDeps, "startSend"> => ({
  db: createDb(env.DB),
  d1: env.DB,
  stripe: stripeClient(env),
  emails: env.EMAILS,
  webhooks: env.WEBHOOKS,
  appUrl: env.APP_URL,
});
export type Actor = { userId: string | null; email: string | null };
export type PayoutRow = typeof payouts.$inferSelect;

/** The same database, counting what is asked of it (the run reports its D1 work). */
export function countingD1(d1: D1Database, c: { statements: number; batched: number; batches: number }): D1Database {
  return new Proxy(d1, {
    get(target, prop) {
      if (prop === "prepare")
        return (query: string) => {
          c.statements++;
          return target.prepare(query);
        };
      if (prop === "batch")
        return (stmts: D1PreparedStatement[]) => {
          c.batches++;
          c.batched += stmts.length;
          return target.batch(stmts);
        };
      const v = Reflect.get(target, prop);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}
