// Invoices, Stripe-shaped, for API version 2026-10-28.endive as stripe 23 types it: each paid by a
// PaymentIntent reached through `confirmation_secret` and `payments`, naming its subscription under
// parent.subscription_details. GET /v1/invoice_payments finds the invoice a PaymentIntent paid.
// Subscriptions (subscriptions.mjs) create them. See docs/money.md#pro-subscription.
import { list, now, page, rid } from "./wire.mjs";

/** @param {any} kit */
export function invoices(kit) {
  const { db, get, emit, newPaymentIntent } = kit;

  /** The clock's time for a customer on a test clock, the wall clock otherwise. */
  const timeOf = (customerId) => {
    const c = db.customers.get(customerId);
    return c?.test_clock ? get("test_clocks", c.test_clock).frozen_time : now();
  };

  const invoicePaymentIntent = (invoice, t) =>
    newPaymentIntent({
      amount: invoice.amount_due,
      created: t,
      currency: invoice.currency,
      customer: invoice.customer,
      description: invoice.billing_reason === "subscription_create" ? "Subscription creation" : "Subscription update",
      setup_future_usage: "off_session",
    });

  function createInvoice(sub, reason, start, end) {
    const item = sub.items.data[0];
    const amount = item.price.unit_amount * item.quantity;
    const t = timeOf(sub.customer);
    const customer = db.customers.get(sub.customer);
    const id = rid("in", 24);
    const invoice = {
      id,
      object: "invoice",
      account_country: "US",
      account_name: "ApeWall (stand-in)",
      account_tax_ids: null,
      amount_due: amount,
      amount_overpaid: 0,
      amount_paid: 0,
      amount_remaining: amount,
      amount_shipping: 0,
      application: null,
      attempt_count: 0,
      attempted: false,
      auto_advance: true,
      automatic_tax: { disabled_reason: null, enabled: false, liability: null, provider: null, status: null },
      automatically_finalizes_at: null,
      billing_reason: reason,
      collection_method: "charge_automatically",
      created: t,
      currency: item.price.currency,
      custom_fields: null,
      customer: sub.customer,
      customer_account: null,
      customer_address: null,
      customer_email: customer?.email ?? null,
      customer_name: customer?.name ?? null,
      customer_phone: null,
      customer_shipping: null,
      customer_tax_exempt: "none",
      default_payment_method: null,
      default_source: null,
      default_tax_rates: [],
      description: null,
      discounts: [],
      due_date: null,
      effective_at: t,
      ending_balance: 0,
      footer: null,
      from_invoice: null,
      issuer: { type: "self" },
      last_finalization_error: null,
      latest_revision: null,
      lines: {
        object: "list",
        data: [
          {
            id: rid("il", 24),
            object: "line_item",
            amount,
            currency: item.price.currency,
            description: `1 × (at $${(item.price.unit_amount / 100).toFixed(2)} / ${item.price.recurring.interval})`,
            discount_amounts: [],
            discountable: true,
            discounts: [],
            invoice: id,
            livemode: false,
            metadata: {},
            parent: {
              type: "subscription_item_details",
              invoice_item_details: null,
              subscription_item_details: {
                invoice_item: null,
                proration: false,
                proration_details: { credited_items: null },
                subscription: sub.id,
                subscription_item: item.id,
              },
            },
            period: { start, end },
            pretax_credit_amounts: [],
            pricing: {
              type: "price_details",
              price_details: { price: item.price.id, product: item.price.product },
              unit_amount_decimal: String(item.price.unit_amount),
            },
            quantity: item.quantity,
            quantity_decimal: String(item.quantity),
            subscription: sub.id,
            subtotal: amount,
            taxes: [],
          },
        ],
        has_more: false,
        total_count: 1,
        url: "",
      },
      livemode: false,
      metadata: {},
      next_payment_attempt: null,
      number: `${customer?.invoice_prefix ?? "STANDIN"}-${String(customer ? customer.next_invoice_sequence++ : 1).padStart(4, "0")}`,
      on_behalf_of: null,
      parent: {
        type: "subscription_details",
        quote_details: null,
        subscription_details: { metadata: sub.metadata, subscription: sub.id },
      },
      payment_settings: { default_mandate: null, payment_method_options: null, payment_method_types: null },
      payments: { object: "list", data: [], has_more: false, total_count: 0, url: "" },
      period_end: end,
      period_start: start,
      post_payment_credit_notes_amount: 0,
      pre_payment_credit_notes_amount: 0,
      receipt_number: null,
      rendering: null,
      shipping_cost: null,
      shipping_details: null,
      starting_balance: 0,
      statement_descriptor: null,
      status: "open",
      status_transitions: { finalized_at: t, marked_uncollectible_at: null, paid_at: null, voided_at: null },
      subtotal: amount,
      subtotal_excluding_tax: amount,
      test_clock: customer?.test_clock ?? null,
      total: amount,
      total_discount_amounts: [],
      total_excluding_tax: amount,
      total_pretax_credit_amounts: [],
      total_taxes: [],
      webhooks_delivered_at: t,
    };
    invoice.lines.url = `/v1/invoices/${invoice.id}/lines`;
    invoice.payments.url = `/v1/invoice_payments?invoice=${invoice.id}`;
    const pi = invoicePaymentIntent(invoice, t);
    invoice.payments.data.push({
      id: rid("inpay", 24),
      object: "invoice_payment",
      amount_paid: null,
      amount_requested: amount,
      created: t,
      currency: invoice.currency,
      invoice: invoice.id,
      is_default: true,
      livemode: false,
      payment: { type: "payment_intent", payment_intent: pi.id },
      status: "open",
      status_transitions: { canceled_at: null, paid_at: null },
    });
    invoice._payment_intent = pi.id;
    invoice._secret = pi.client_secret;
    db.invoices.set(invoice.id, invoice);
    sub.latest_invoice = invoice.id;
    emit("invoice.created", publicInvoice(invoice));
    emit("invoice.finalized", publicInvoice(invoice));
    return invoice;
  }

  const publicInvoice = ({ _payment_intent, _secret, ...inv }) => inv;
  const withSecret = (inv) => ({
    ...publicInvoice(inv),
    confirmation_secret: inv.status === "open" ? { client_secret: inv._secret, type: "payment_intent" } : null,
  });

  function invoicePayments(p) {
    const all = [...db.invoices.values()].flatMap((inv) => inv.payments?.data ?? []);
    const pi = p.payment?.payment_intent;
    const items = all
      .filter(
        (ip) =>
          (!p.invoice || ip.invoice === p.invoice) &&
          (!pi || ip.payment?.payment_intent === pi) &&
          (!p.status || ip.status === p.status),
      )
      .reverse();
    return page(items, p, "/v1/invoice_payments");
  }

  const routes = [
    [
      "GET",
      /^\/v1\/invoices\/(in_\w+)$/,
      "secret",
      (p, m) => {
        const inv = get("invoices", m[1]);
        const paths = Array.isArray(p.expand) ? p.expand : Object.values(p.expand ?? {});
        return paths.includes("confirmation_secret") ? withSecret(inv) : publicInvoice(inv);
      },
    ],
    [
      "GET",
      /^\/v1\/invoices$/,
      "secret",
      (p) =>
        list(
          [...db.invoices.values()]
            .reverse()
            .filter(
              (i) =>
                (!p.customer || i.customer === p.customer) &&
                (!p.subscription || i.parent.subscription_details.subscription === p.subscription),
            )
            .map(publicInvoice),
          p,
          "/v1/invoices",
        ),
    ],
    ["GET", /^\/v1\/invoice_payments$/, "secret", (p) => invoicePayments(p)],
  ];

  return { timeOf, createInvoice, publicInvoice, withSecret, routes };
}
