// The stand-in's state: one Map per resource (plus the event log and Idempotency-Key results), in
// memory, or kept in `stateFile` across restarts (npm start). See docs/payments.md.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { missing } from "./errors.mjs";

export function createStore(stateFile) {
  const db = {
    customers: new Map(),
    payment_intents: new Map(),
    payment_methods: new Map(),
    confirmation_tokens: new Map(),
    charges: new Map(),
    refunds: new Map(),
    disputes: new Map(),
    products: new Map(),
    prices: new Map(),
    accounts: new Map(),
    account_links: new Map(),
    transfers: new Map(),
    balance_transactions: new Map(),
    subscriptions: new Map(),
    invoices: new Map(),
    test_clocks: new Map(),
    tax_calculations: new Map(),
    tax_transactions: new Map(),
    tax_associations: new Map(),
    tax_registrations: new Map(),
    events: [],
    idempotency: new Map(),
  };
  if (stateFile && existsSync(stateFile)) {
    const saved = JSON.parse(readFileSync(stateFile, "utf8"));
    for (const [k, v] of Object.entries(saved)) db[k] = Array.isArray(v) && k !== "events" ? new Map(v) : v;
  }
  const save = () => {
    if (!stateFile) return;
    const out = Object.fromEntries(
      Object.entries(db).map(([k, v]) => [k, v instanceof Map ? [...v.entries()] : v.slice(0, 500)]),
    );
    writeFileSync(stateFile, JSON.stringify(out));
  };
  const get = (kind, id) => {
    const obj = db[kind].get(id);
    if (!obj) throw missing(kind.replace(/s$/, "").replace("_", " "), id);
    return obj;
  };
  return { db, save, get };
}
