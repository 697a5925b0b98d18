// Stripe Billing, Stripe-shaped: subscriptions to a recurring price, their invoices (each paid by a
// PaymentIntent), and test clocks that move a customer's time forward (renewals, failed renewals
// with retries, cancellation at period end), for API version 2026-10-28.endive as stripe 23 types it:
// the period lives on the subscription item (current_period_start/end), the invoice's payment is
// reached through `confirmation_secret` (expand latest_invoice.confirmation_secret) and `payments`,
// and an invoice names its subscription under parent.subscription_details.
// A first payment that fails leaves the subscription `incomplete` (payment_behavior allow_incomplete
// or default_incomplete; error_if_incomplete refuses to create it with the card's 402); only a failed
// renewal makes it past_due.
// A resource module of the stand-in: `kit` carries server.mjs's state and helpers.
//
// Stand-in control: POST /_standin/customers/{id}/test_clock {test_clock} puts an existing customer
// on a clock (real Stripe only allows that at creation) so the app's own customer can be advanced.
import { randomBytes } from "node:crypto";

/**
 * How long an advance takes here. Stripe answers an advance with `status: "advancing"` and moves the
 * clock in the background (seconds to minutes); callers wait for `ready` (test_helpers.test_clock.ready).
 */
const ADVANCE_MS = 150;
/** Smart-retry stand-in: a failed renewal is retried after these many days, then the subscription is canceled. */
const RETRY_DAYS = [3, 5, 7];
const DAY = 24 * 60 * 60;

/** @param {any} kit */
export function billingRoutes(kit) {
  const {
    db,
    save,
    get,
    metadata,
    rid,
    now,
    list,
    StripeError,
    badParam,
    missingParam,
    emit,
    on,
    newPaymentIntent,
    confirm,
  } = kit;

  /** The clock's time for a customer on a test clock, the wall clock otherwise. */
  const timeOf = (customerId) => {
    const c = db.customers.get(customerId);
    return c?.test_clock ? get("test_clocks", c.test_clock).frozen_time : now();
  };
  const addMonths = (t, n) => {
    const d = new Date(t * 1000);
    d.setUTCMonth(d.getUTCMonth() + n);
    return Math.floor(d.getTime() / 1000);
  };
  const periodEnd = (start, recurring) =>
    recurring.interval === "month"
      ? addMonths(start, recurring.interval_count)
      : recurring.interval === "year"
        ? addMonths(start, 12 * recurring.interval_count)
        : start + (recurring.interval === "week" ? 7 : 1) * DAY * recurring.interval_count;

  const invoicePaymentIntent = (invoice, t) =>
    newPaymentIntent({
      amount: invoice.amount_due,
      created: t,
      currency: invoice.currency,
      customer: invoice.customer,
      description: invoice.billing_reason === "subscription_create" ? "Subscription creation" : "Subscription update",
      setup_future_usage: "off_session",
    });

  /** The price as the legacy `plan` a subscription item still carries. */
  const planOf = (price) => ({
    id: price.id,
    object: "plan",
    active: price.active,
    amount: price.unit_amount,
    amount_decimal: String(price.unit_amount),
    billing_scheme: price.billing_scheme,
    created: price.created,
    currency: price.currency,
    interval: price.recurring.interval,
    interval_count: price.recurring.interval_count,
    livemode: false,
    metadata: price.metadata,
    meter: null,
    nickname: price.nickname,
    product: price.product,
    tiers_mode: null,
    transform_usage: null,
    trial_period_days: null,
    usage_type: price.recurring.usage_type,
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

  function markPaid(invoice, pi) {
    if (invoice.status === "paid") return;
    const t = timeOf(invoice.customer);
    Object.assign(invoice, {
      status: "paid",
      amount_paid: invoice.amount_due,
      amount_remaining: 0,
      attempted: true,
      next_payment_attempt: null,
    });
    invoice.attempt_count = Math.max(1, invoice.attempt_count);
    invoice.status_transitions.paid_at = t;
    Object.assign(invoice.payments.data[0], {
      amount_paid: invoice.amount_due,
      status: "paid",
      status_transitions: { canceled_at: null, paid_at: t },
    });
    const sub = db.subscriptions.get(invoice.parent.subscription_details.subscription);
    const wasIncomplete = sub.status === "incomplete";
    if (sub.status !== "canceled") sub.status = "active";
    if (
      sub.payment_settings.save_default_payment_method === "on_subscription" &&
      pi.payment_method &&
      !sub.default_payment_method
    ) {
      sub.default_payment_method = pi.payment_method;
      const pm = db.payment_methods.get(pi.payment_method);
      if (pm) pm.customer = sub.customer;
    }
    emit("invoice.paid", publicInvoice(invoice));
    emit("invoice.payment_succeeded", publicInvoice(invoice));
    if (wasIncomplete || sub.status === "active") emit("customer.subscription.updated", sub);
  }

  // The first invoice is paid when the browser confirms its PaymentIntent (Stripe.js).
  on((event) => {
    if (event.type !== "payment_intent.succeeded") return;
    const invoice = [...db.invoices.values()].find((i) => i._payment_intent === event.data.object.id);
    if (invoice && invoice.status === "open") markPaid(invoice, db.payment_intents.get(event.data.object.id));
  });

  /**
   * Charges an open invoice off-session with the subscription's default card (Stripe confirms the
   * invoice's PaymentIntent). A failed first payment leaves the subscription incomplete; a failed
   * renewal makes it past_due and is retried, until the last retry cancels it.
   */
  function attempt(invoice) {
    const sub = db.subscriptions.get(invoice.parent.subscription_details.subscription);
    const pi = get("payment_intents", invoice._payment_intent);
    invoice.attempted = true;
    invoice.attempt_count += 1;
    let error = null;
    if (!sub.default_payment_method) {
      error = { code: "invoice_no_payment_method", message: "No payment method" };
    } else {
      try {
        confirm(pi, { payment_method: sub.default_payment_method, off_session: "true" }, "");
      } catch (err) {
        if (!(err instanceof StripeError) || err.status !== 402) throw err;
        error = err;
      }
    }
    if (!error && pi.status === "succeeded") return true;
    const first = invoice.billing_reason === "subscription_create";
    const retryIn = first ? undefined : RETRY_DAYS[invoice.attempt_count - 1];
    invoice.next_payment_attempt = retryIn ? timeOf(sub.customer) + retryIn * DAY : null;
    emit("invoice.payment_failed", publicInvoice(invoice));
    if (first) return false;
    if (retryIn) {
      if (sub.status !== "past_due") {
        sub.status = "past_due";
        emit("customer.subscription.updated", sub);
      }
    } else cancel(sub, "payment_failed");
    return false;
  }

  function cancel(sub, reason) {
    const t = timeOf(sub.customer);
    Object.assign(sub, {
      status: "canceled",
      canceled_at: sub.canceled_at ?? t,
      ended_at: t,
      cancellation_details: { comment: null, feedback: null, feedback_option: null, reason },
    });
    const open = db.invoices.get(sub.latest_invoice);
    if (open && open.status === "open" && reason === "payment_failed") {
      open.next_payment_attempt = null;
    }
    emit("customer.subscription.deleted", sub);
  }

  /** Moves every subscription of the clock's customers to `to`: renewals, retries, cancellations. */
  function runUntil(clock) {
    const customers = new Set([...db.customers.values()].filter((c) => c.test_clock === clock.id).map((c) => c.id));
    for (const sub of db.subscriptions.values()) {
      if (!customers.has(sub.customer)) continue;
      for (
        let guard = 0;
        guard < 100 && sub.status !== "canceled" && sub.status !== "incomplete" && sub.status !== "incomplete_expired";
        guard++
      ) {
        const item = sub.items.data[0];
        const open = db.invoices.get(sub.latest_invoice);
        if (open?.status === "open" && open.next_payment_attempt && open.next_payment_attempt <= clock.frozen_time) {
          // A retry happens at its own moment of the clock's time.
          const saved = clock.frozen_time;
          clock.frozen_time = open.next_payment_attempt;
          const paid = attempt(open);
          if (paid) markPaid(open, get("payment_intents", open._payment_intent));
          clock.frozen_time = saved;
          continue;
        }
        if (item.current_period_end > clock.frozen_time) break;
        if (open?.status === "open") {
          // Still unpaid at the next period: Stripe would have given up by now.
          cancel(sub, "payment_failed");
          break;
        }
        const saved = clock.frozen_time;
        clock.frozen_time = item.current_period_end;
        if (sub.cancel_at_period_end) {
          cancel(sub, "cancellation_requested");
          clock.frozen_time = saved;
          break;
        }
        const start = item.current_period_end;
        const end = periodEnd(start, item.price.recurring);
        Object.assign(item, { current_period_start: start, current_period_end: end });
        const invoice = createInvoice(sub, "subscription_cycle", start, end);
        emit("customer.subscription.updated", sub);
        if (attempt(invoice)) markPaid(invoice, get("payment_intents", invoice._payment_intent));
        clock.frozen_time = saved;
      }
    }
  }

  function createSubscription(p) {
    if (!p.customer) throw missingParam("customer");
    const customer = get("customers", p.customer);
    const lines = Array.isArray(p.items) ? p.items : Object.values(p.items ?? {});
    if (!lines.length) throw missingParam("items");
    if (!lines[0].price) throw missingParam("items[0][price]");
    const price = get("prices", lines[0].price);
    if (!price.recurring)
      throw badParam(
        "items[0][price]",
        `The price specified is set to \`type=one_time\` but this field only accepts prices with \`type=recurring\`.`,
      );
    if (
      p.payment_behavior &&
      !["default_incomplete", "allow_incomplete", "error_if_incomplete"].includes(p.payment_behavior)
    )
      throw badParam("payment_behavior", "Invalid payment_behavior");
    const t = timeOf(customer.id);
    if (p.default_payment_method) {
      const pm = get("payment_methods", p.default_payment_method);
      if (pm.customer !== customer.id)
        throw badParam(
          "default_payment_method",
          `The customer does not have a payment method with the ID ${pm.id}. The payment method must be attached to the customer.`,
        );
    }
    const sub = {
      id: rid("sub", 24),
      object: "subscription",
      application: null,
      application_fee_percent: null,
      automatic_tax: { disabled_reason: null, enabled: false, liability: null },
      billing_cycle_anchor: t,
      billing_cycle_anchor_config: null,
      billing_mode: { flexible: null, type: "classic" },
      billing_schedules: [],
      billing_thresholds: null,
      cancel_at: null,
      cancel_at_period_end: false,
      canceled_at: null,
      cancellation_details: { comment: null, feedback: null, feedback_option: null, reason: null },
      collection_method: "charge_automatically",
      created: t,
      currency: price.currency,
      customer: customer.id,
      customer_account: null,
      days_until_due: null,
      default_payment_method: p.default_payment_method ?? null,
      default_source: null,
      default_tax_rates: [],
      description: null,
      discounts: [],
      ended_at: null,
      invoice_settings: {
        account_tax_ids: null,
        custom_fields: null,
        description: null,
        footer: null,
        issuer: { type: "self" },
      },
      items: { object: "list", data: [], has_more: false, total_count: 1, url: "" },
      latest_invoice: null,
      livemode: false,
      managed_payments: null,
      metadata: metadata(p.metadata),
      next_pending_invoice_item_invoice: null,
      on_behalf_of: null,
      pause_collection: null,
      payment_settings: {
        payment_method_options: null,
        payment_method_types: null,
        save_default_payment_method: p.payment_settings?.save_default_payment_method ?? "off",
      },
      pending_invoice_item_interval: null,
      pending_setup_intent: null,
      pending_update: null,
      schedule: null,
      start_date: t,
      status: "incomplete",
      test_clock: customer.test_clock ?? null,
      transfer_data: null,
      trial_end: null,
      trial_settings: { end_behavior: { billing_cycle_anchor: "unchanged", missing_payment_method: "create_invoice" } },
      trial_start: null,
    };
    sub.items.url = `/v1/subscription_items?subscription=${sub.id}`;
    sub.items.data.push({
      id: rid("si", 14),
      object: "subscription_item",
      billing_thresholds: null,
      created: t,
      current_period_start: t,
      current_period_end: periodEnd(t, price.recurring),
      current_trial: null,
      discounts: [],
      metadata: {},
      plan: planOf(price),
      price,
      quantity: Number(lines[0].quantity ?? 1),
      subscription: sub.id,
      tax_rates: [],
    });
    db.subscriptions.set(sub.id, sub);
    const invoice = createInvoice(sub, "subscription_create", t, sub.items.data[0].current_period_end);
    emit("customer.subscription.created", sub);
    if (p.payment_behavior !== "default_incomplete" && sub.default_payment_method) {
      const pi = get("payment_intents", invoice._payment_intent);
      if (attempt(invoice)) markPaid(invoice, pi);
      else if (p.payment_behavior === "error_if_incomplete") {
        // The subscription is not created: the caller gets the card's error.
        db.subscriptions.delete(sub.id);
        const e = pi.last_payment_error ?? { code: "card_declined", message: "Your card was declined." };
        throw new StripeError(402, "card_error", e.message, {
          code: e.code,
          decline_code: e.decline_code,
          charge: e.charge,
          payment_intent: structuredClone(pi),
        });
      }
    }
    return sub;
  }

  /** `expand` as Stripe reads it, for the paths this module knows. */
  function expanded(sub, p) {
    const paths = Array.isArray(p.expand) ? p.expand : Object.values(p.expand ?? {});
    const out = structuredClone(sub);
    if (paths.some((x) => x === "latest_invoice" || x.startsWith("latest_invoice.")) && sub.latest_invoice) {
      const inv = db.invoices.get(sub.latest_invoice);
      out.latest_invoice = paths.includes("latest_invoice.confirmation_secret") ? withSecret(inv) : publicInvoice(inv);
    }
    return out;
  }

  function updateSubscription(id, p) {
    const sub = get("subscriptions", id);
    if (sub.status === "canceled")
      throw new StripeError(
        400,
        "invalid_request_error",
        "A canceled subscription can only update its cancellation_details and metadata.",
      );
    if (p.cancel_at_period_end !== undefined) {
      sub.cancel_at_period_end = p.cancel_at_period_end === "true";
      sub.cancel_at = sub.cancel_at_period_end ? sub.items.data[0].current_period_end : null;
      sub.canceled_at = sub.cancel_at_period_end ? timeOf(sub.customer) : null;
      sub.cancellation_details = {
        comment: null,
        feedback: null,
        feedback_option: null,
        reason: sub.cancel_at_period_end ? "cancellation_requested" : null,
      };
    }
    if (p.default_payment_method !== undefined) {
      const pm = get("payment_methods", p.default_payment_method);
      if (pm.customer !== sub.customer)
        throw badParam(
          "default_payment_method",
          `The customer does not have a payment method with the ID ${pm.id}. The payment method must be attached to the customer.`,
        );
      sub.default_payment_method = pm.id;
    }
    if (p.metadata) Object.assign(sub.metadata, metadata(p.metadata));
    emit("customer.subscription.updated", sub);
    return expanded(sub, p);
  }

  function createClock(p) {
    const frozen = Number(p.frozen_time);
    if (p.frozen_time === undefined) throw missingParam("frozen_time");
    if (!Number.isInteger(frozen)) throw badParam("frozen_time", `Invalid integer: ${p.frozen_time}`);
    const clock = {
      id: rid("clock", 24),
      object: "test_helpers.test_clock",
      created: now(),
      deletes_after: now() + 30 * DAY,
      frozen_time: frozen,
      livemode: false,
      name: p.name ?? null,
      status: "ready",
      status_details: {},
    };
    db.test_clocks.set(clock.id, clock);
    emit("test_helpers.test_clock.created", clock);
    return clock;
  }

  function advanceClock(id, p) {
    const clock = get("test_clocks", id);
    const to = Number(p.frozen_time);
    if (p.frozen_time === undefined) throw missingParam("frozen_time");
    if (!Number.isInteger(to)) throw badParam("frozen_time", `Invalid integer: ${p.frozen_time}`);
    if (clock.status === "advancing")
      throw new StripeError(
        400,
        "invalid_request_error",
        `The test clock ${clock.id} is currently advancing. Wait for it to be ready before advancing it again.`,
        { code: "test_clock_advancing" },
      );
    if (to <= clock.frozen_time)
      throw badParam("frozen_time", "The test clock can only be advanced to a time after its current frozen_time.");
    Object.assign(clock, {
      status: "advancing",
      status_details: { advancing: { target_frozen_time: to } },
      _target: to,
    });
    emit("test_helpers.test_clock.advancing", clock);
    const answer = structuredClone(clock);
    // Unref'd: a clock still moving never keeps a finished test run alive.
    setTimeout(() => finishAdvance(clock.id), ADVANCE_MS).unref();
    return answer;
  }

  /** The advance itself: every renewal and retry at its own time, in order, then `ready`. */
  function finishAdvance(id) {
    const clock = db.test_clocks.get(id);
    if (clock?.status !== "advancing") return;
    while (clock.frozen_time < clock._target) {
      clock.frozen_time = Math.min(clock._target, clock.frozen_time + DAY);
      runUntil(clock);
    }
    delete clock._target;
    Object.assign(clock, { status: "ready", status_details: {} });
    emit("test_helpers.test_clock.ready", clock);
    save();
  }

  // A clock saved mid-advance (state file, restart) finishes its advance.
  for (const clock of db.test_clocks.values())
    if (clock.status === "advancing") setTimeout(() => finishAdvance(clock.id), ADVANCE_MS).unref();

  const pubClock = ({ _target, ...c }) => c;

  return [
    ["POST", /^\/v1\/subscriptions$/, "secret", (p) => expanded(createSubscription(p), p)],
    ["GET", /^\/v1\/subscriptions\/(sub_\w+)$/, "secret", (p, m) => expanded(get("subscriptions", m[1]), p)],
    ["POST", /^\/v1\/subscriptions\/(sub_\w+)$/, "secret", (p, m) => updateSubscription(m[1], p)],
    [
      "DELETE",
      /^\/v1\/subscriptions\/(sub_\w+)$/,
      "secret",
      (_p, m) => {
        const sub = get("subscriptions", m[1]);
        if (sub.status === "canceled")
          throw new StripeError(404, "invalid_request_error", `No such subscription: '${sub.id}'`, {
            code: "resource_missing",
            param: "id",
          });
        cancel(sub, "cancellation_requested");
        return sub;
      },
    ],
    [
      "GET",
      /^\/v1\/subscriptions$/,
      "secret",
      (p) =>
        list(
          [...db.subscriptions.values()]
            .reverse()
            .filter(
              (s) =>
                (!p.customer || s.customer === p.customer) &&
                (!p.status || p.status === "all" || s.status === p.status),
            ),
          p,
          "/v1/subscriptions",
        ),
    ],
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
    // POST /v1/payment_methods/{id}/attach lives in server.mjs with the other PaymentMethod calls.
    ["POST", /^\/v1\/test_helpers\/test_clocks$/, "secret", (p) => pubClock(createClock(p))],
    ["GET", /^\/v1\/test_helpers\/test_clocks\/(clock_\w+)$/, "secret", (_p, m) => pubClock(get("test_clocks", m[1]))],
    [
      "POST",
      /^\/v1\/test_helpers\/test_clocks\/(clock_\w+)\/advance$/,
      "secret",
      (p, m) => pubClock(advanceClock(m[1], p)),
    ],
    [
      "POST",
      /^\/_standin\/customers\/(cus_\w+)\/test_clock$/,
      "secret",
      (p, m) => {
        const c = get("customers", m[1]);
        c.test_clock = get("test_clocks", p.test_clock).id;
        return c;
      },
    ],
  ];
}
