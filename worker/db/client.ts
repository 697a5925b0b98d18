import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

const build = (d1: D1Database) => drizzle(d1, { schema });
export type Db = ReturnType<typeof build>;

/**
 * The database for a D1 binding, made once per binding and isolate: making one walks the whole schema
 * (about 0.2 ms), and every API request asks for one. It holds no state of a request.
 */
const made = new WeakMap<D1Database, Db>();
export function createDb(d1: D1Database): Db {
  let db = made.get(d1);
  if (!db) {
    db = build(d1);
    made.set(d1, db);
  }
  return db;
}

/**
 * For public reads that may be a moment behind (the paywall, an item's public detail): a D1 session
 * that may start on any read replica near the visitor. Drizzle issues only prepare() and batch()
 * for queries, which a session has; exec() and dump() are never called on it.
 */
const createReadDb = (d1: D1Database) => build(d1.withSession("first-unconstrained") as unknown as D1Database);

/**
 * Reads from a replica, and only when it finds nothing asks the primary: an item published a moment
 * ago may not have reached the replica yet, and its creator is the first to open its link.
 */
export async function readNearby<T>(d1: D1Database, read: (db: Db) => Promise<T | null>): Promise<T | null> {
  return (await read(createReadDb(d1))) ?? read(createDb(d1));
}
