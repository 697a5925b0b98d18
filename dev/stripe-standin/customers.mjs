// Customers, Stripe-shaped: create, list by email, retrieve, update. Their saved cards are listed in
// payment-methods.mjs. See docs/payments.md.
import { randomBytes } from "node:crypto";
import { checkEmail } from "./errors.mjs";
import { list, metadata, now, rid } from "./wire.mjs";

/** @param {any} kit */
export function customers(kit) {
  const { db, get, emit } = kit;

  function createCustomer(p) {
    checkEmail(p.email, "email");
    if (p.test_clock) get("test_clocks", p.test_clock);
    const c = {
      id: rid("cus", 14),
      object: "customer",
      address: null,
      balance: 0,
      created: now(),
      currency: null,
      default_source: null,
      delinquent: false,
      description: p.description ?? null,
      discount: null,
      email: p.email ?? null,
      invoice_prefix: randomBytes(4).toString("hex").toUpperCase(),
      invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
      livemode: false,
      metadata: metadata(p.metadata),
      name: p.name ?? null,
      next_invoice_sequence: 1,
      phone: null,
      preferred_locales: [],
      shipping: null,
      tax_exempt: "none",
      test_clock: p.test_clock ?? null,
    };
    db.customers.set(c.id, c);
    emit("customer.created", c);
    return c;
  }

  const routes = [
    ["POST", /^\/v1\/customers$/, "secret", (p) => createCustomer(p)],
    [
      "GET",
      /^\/v1\/customers$/,
      "secret",
      (p) =>
        list(
          [...db.customers.values()].filter((c) => !p.email || c.email === p.email),
          p,
          "/v1/customers",
        ),
    ],
    ["GET", /^\/v1\/customers\/(cus_\w+)$/, "secret", (_p, m) => get("customers", m[1])],
    [
      "POST",
      /^\/v1\/customers\/(cus_\w+)$/,
      "secret",
      (p, m) => {
        const c = get("customers", m[1]);
        if (p.email !== undefined) c.email = p.email || null;
        if (p.name !== undefined) c.name = p.name || null;
        if (p.metadata) Object.assign(c.metadata, metadata(p.metadata));
        emit("customer.updated", c);
        return c;
      },
    ],
  ];

  return { createCustomer, routes };
}
