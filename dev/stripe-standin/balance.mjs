// The platform balance, Stripe-shaped: one balance transaction per movement of money, GET /v1/balance
// and GET /v1/balance_transactions/{id}. Charges, refunds, disputes and transfers all write here, so
// the balance agrees with them. See docs/money.md.
// Stand-in control: POST /_standin/balance/top_up {amount} adds available funds, as Stripe's
// 4000000000000077 test card does.
import { badParam, missingParam } from "./errors.mjs";
import { int, now, rid } from "./wire.mjs";

/** @param {any} kit */
export function balance(kit) {
  const { db, get } = kit;

  /**
   * Funds land as pending and become available at `available_on` (`status` is read against the clock).
   * `reportingCategory` tells apart the kinds of `adjustment` (dispute, dispute_reversal, refund_failure).
   * `fee` is Stripe's (a card charge's processing fee, a dispute fee; negative when given back) and
   * `net` is `amount - fee`, as Stripe reports them.
   */
  function balanceTransaction({
    amount,
    type,
    source,
    description = null,
    availableOn = now(),
    currency = "usd",
    reportingCategory = type,
    fee = 0,
    feeDescription = "Stripe processing fees",
  }) {
    const feeDetails = fee
      ? [{ amount: fee, application: null, currency, description: feeDescription, type: "stripe_fee" }]
      : [];
    const t = {
      id: rid("txn", 24),
      object: "balance_transaction",
      amount,
      available_on: availableOn,
      balance_type: "payments",
      created: now(),
      currency,
      description,
      exchange_rate: null,
      fee,
      fee_details: feeDetails,
      net: amount - fee,
      reporting_category: reportingCategory,
      source,
      status: "pending",
      type,
    };
    db.balance_transactions.set(t.id, t);
    return t.id;
  }
  /** Stripe's standard US card pricing: 2.9% + 30¢ per successful charge, kept when it is refunded. */
  const processingFee = (amount) => Math.round(amount * 0.029) + 30;
  const publicTxn = (t) => ({ ...t, status: t.available_on <= now() ? "available" : "pending" });
  /** The platform balance in cents (usd): `available` can be paid out or transferred now, `pending` cannot yet. */
  function balanceOf() {
    const out = { available: 0, pending: 0 };
    for (const t of db.balance_transactions.values()) out[t.available_on <= now() ? "available" : "pending"] += t.net;
    return out;
  }

  const routes = [
    [
      "GET",
      /^\/v1\/balance_transactions\/(txn_\w+)$/,
      "secret",
      (_p, m) => publicTxn(get("balance_transactions", m[1])),
    ],
    [
      "GET",
      /^\/v1\/balance$/,
      "secret",
      () => {
        const { available, pending } = balanceOf();
        return {
          object: "balance",
          available: [{ amount: available, currency: "usd", source_types: { card: available } }],
          connect_reserved: [{ amount: 0, currency: "usd" }],
          livemode: false,
          pending: [{ amount: pending, currency: "usd", source_types: { card: pending } }],
          refund_and_dispute_prefunding: null,
        };
      },
    ],
    // Adds funds to the platform's available balance, as Stripe's 4000000000000077 test card does.
    [
      "POST",
      /^\/_standin\/balance\/top_up$/,
      "secret",
      (p) => {
        if (p.amount === undefined) throw missingParam("amount");
        const amount = int(p.amount, "amount");
        if (!amount) throw badParam("amount", "Invalid positive integer");
        const id = rid("topup", 14);
        balanceTransaction({ amount, type: "topup", source: id, description: "Stand-in top-up" });
        return { object: "standin.top_up", id, amount, available: balanceOf().available };
      },
    ],
  ];

  return { balanceTransaction, processingFee, publicTxn, balanceOf, routes };
}
