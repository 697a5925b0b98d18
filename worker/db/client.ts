import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

export type Db = ReturnType<typeof createDb>;
export const createDb = (d1: D1Database) => drizzle(d1, { schema });

/**
 * For public reads that may be a moment behind (the paywall, an item's public detail): a D1 session
 * that may start on any read replica near the visitor. Drizzle issues only prepare() and batch()
 * for queries, which a session has; exec() and dump() are never called on it.
 */
const createReadDb = (d1: D1Database) =>
  drizzle(d1.withSession("first-unconstrained") as unknown as D1Database, { schema });

/**
 * Reads from a replica, and only when it finds nothing asks the primary: an item published a moment
 * ago may not have reached the replica yet, and its creator is the first to open its link.
 */
export async function readNearby<T>(d1: D1Database, read: (db: Db) => Promise<T | null>): Promise<T | null> {
  return (await read(createReadDb(d1))) ?? read(createDb(d1));
}
