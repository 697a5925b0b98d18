// Test clocks, Stripe-shaped: a customer on a clock lives at the clock's time; an advance answers
// `advancing` and, shortly after, the clock is `ready`, having run every renewal, retry and
// cancellation at its own moment. See docs/money.md#pro-subscription.
// Stand-in control: POST /_standin/customers/{id}/test_clock {test_clock} puts an existing customer
// on a clock (real Stripe only allows that at creation) so the app's own customer can be advanced.
import { DAY } from "./wire.mjs";

/**
 * How long an advance takes here. Stripe answers an advance with `status: "advancing"` and moves the
 * clock in the background (seconds to minutes); callers wait for `ready` (test_helpers.test_clock.ready).
 */
const ADVANCE_MS = 150;

/** @param {any} kit */
export function testClocks(kit) {
  const {
    db,
    save,
    get,
    rid,
    now,
    StripeError,
    badParam,
    missingParam,
    emit,
    createInvoice,
    periodEnd,
    markPaid,
    attempt,
    cancel,
  } = kit;

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

  const routes = [
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

  return { routes };
}
