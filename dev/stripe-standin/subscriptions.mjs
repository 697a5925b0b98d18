// Subscriptions to a recurring price, Stripe-shaped, for API version 2026-10-28.endive as stripe 23
// types it: the period lives on the subscription item (current_period_start/end). A first payment
// that fails leaves the subscription `incomplete` (payment_behavior allow_incomplete or
// default_incomplete; error_if_incomplete refuses to create it with the card's 402); only a failed
// renewal makes it past_due, retried, then canceled. Renewals happen as a test clock moves
// (test-clocks.mjs). See docs/money.md#pro-subscription.
import { DAY } from "./wire.mjs";

/** Smart-retry stand-in: a failed renewal is retried after these many days, then the subscription is canceled. */
const RETRY_DAYS = [3, 5, 7];

/** @param {any} kit */
export function subscriptions(kit) {
  const {
    db,
    get,
    metadata,
    rid,
    list,
    StripeError,
    badParam,
    missingParam,
    emit,
    on,
    confirm,
    timeOf,
    createInvoice,
    publicInvoice,
    withSecret,
  } = kit;

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

  const routes = [
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
  ];

  return { periodEnd, markPaid, attempt, cancel, routes };
}
