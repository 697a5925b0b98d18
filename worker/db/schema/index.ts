// The whole product's data model, one file per domain; importers use "db/schema" and drizzle-kit reads
// this index (drizzle.config.ts). Money is integer cents with a currency column; balances are sums
// over the append-only ledger, never stored. Ids that leave the server are random, not row numbers.
export * from "./accounts";
export * from "./billing";
export * from "./checkout-starts";
export * from "./content";
export * from "./declines";
export * from "./deliveries";
export * from "./developers";
export * from "./email-changes";
export * from "./funnels";
export * from "./library";
export * from "./mail";
export * from "./money";
export * from "./purchases";
export * from "./tax";
export * from "./rollups";
