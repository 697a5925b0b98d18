// Transfers to connected accounts and their reversals, Stripe-shaped: how creator payouts are sent.
// A resource module of the stand-in: `kit` carries server.mjs's state and helpers.
//
// Stand-in controls (what Stripe or the bank would decide):
//   POST /_standin/transfers/fail_next {destination, code}  the next transfer to that account fails
//        with Stripe's error: code balance_insufficient (the platform's balance is too low) or
//        insufficient_capabilities_for_transfer (the account cannot receive transfers).
//   POST /v1/transfers/{id}/reversals is Stripe's own call; it emits transfer.reversed.

const FAILURES = {
  balance_insufficient:
    "You have insufficient available funds in your Stripe account. Try adding funds directly to your available balance by creating Charges using the 4000000000000077 test card. See: https://stripe.com/docs/testing#available-balance",
  insufficient_capabilities_for_transfer:
    "Your destination account needs to have at least one of the following capabilities enabled: transfers, crypto_transfers, legacy_payments",
};

/** @param {any} kit */
export function transferRoutes(kit) {
  const { db, get, metadata, int, rid, now, list, badParam, emit, StripeError } = kit;
  /** destination -> error code for its next transfer */
  const failNext = new Map();

  function createTransfer(p) {
    const amount = int(p.amount, "amount");
    if (amount === undefined) throw badParam("amount", "Missing required param: amount.");
    if (amount < 1) throw badParam("amount", "This value must be greater than or equal to 1.");
    if (!p.currency) throw badParam("currency", "Missing required param: currency.");
    if (!p.destination) throw badParam("destination", "Missing required param: destination.");
    // Until the stand-in keeps connected accounts, any acct_ id is a destination.
    const known = db.accounts ? db.accounts.has(p.destination) : /^acct_\w+$/.test(p.destination);
    if (!known) throw new StripeError(400, "invalid_request_error", `No such destination: '${p.destination}'`, { code: "resource_missing", param: "destination" });
    const code = failNext.get(p.destination);
    if (code) {
      failNext.delete(p.destination);
      throw new StripeError(400, "invalid_request_error", FAILURES[code], { code, ...(code === "insufficient_capabilities_for_transfer" ? { param: "destination" } : {}) });
    }
    const id = rid("tr");
    const transfer = {
      id,
      object: "transfer",
      amount,
      amount_reversed: 0,
      balance_transaction: rid("txn"),
      created: now(),
      currency: String(p.currency).toLowerCase(),
      description: p.description ?? null,
      destination: p.destination,
      destination_payment: rid("py"),
      livemode: false,
      metadata: metadata(p.metadata),
      reversals: { object: "list", data: [], has_more: false, total_count: 0, url: `/v1/transfers/${id}/reversals` },
      reversed: false,
      source_transaction: p.source_transaction ?? null,
      source_type: "card",
      transfer_group: p.transfer_group ?? null,
    };
    db.transfers.set(id, transfer);
    emit("transfer.created", transfer);
    return transfer;
  }

  function reverse(transferId, p) {
    const transfer = get("transfers", transferId);
    const left = transfer.amount - transfer.amount_reversed;
    const amount = p.amount === undefined ? left : int(p.amount, "amount");
    if (left === 0) throw new StripeError(400, "invalid_request_error", `Transfer ${transfer.id} has already been reversed.`, { code: "transfer_already_reversed" });
    if (amount > left) throw badParam("amount", `Refund amount ($${(amount / 100).toFixed(2)}) is greater than transfer amount ($${(left / 100).toFixed(2)})`);
    const reversal = {
      id: rid("trr"),
      object: "transfer_reversal",
      amount,
      balance_transaction: rid("txn"),
      created: now(),
      currency: transfer.currency,
      destination_payment_refund: rid("pyr"),
      metadata: metadata(p.metadata),
      source_refund: null,
      transfer: transfer.id,
    };
    transfer.reversals.data.unshift(reversal);
    transfer.reversals.total_count += 1;
    transfer.amount_reversed += amount;
    transfer.reversed = transfer.amount_reversed === transfer.amount;
    // Stripe sends transfer.reversed for full and partial reversals alike.
    emit("transfer.reversed", transfer);
    return reversal;
  }

  return [
    ["POST", /^\/v1\/transfers$/, "secret", (p) => createTransfer(p)],
    ["GET", /^\/v1\/transfers\/(tr_\w+)$/, "secret", (_p, m) => get("transfers", m[1])],
    ["GET", /^\/v1\/transfers$/, "secret", (p) => {
      let items = [...db.transfers.values()].reverse();
      if (p.destination) items = items.filter((t) => t.destination === p.destination);
      if (p.transfer_group) items = items.filter((t) => t.transfer_group === p.transfer_group);
      return list(items, p, "/v1/transfers");
    }],
    ["POST", /^\/v1\/transfers\/(tr_\w+)\/reversals$/, "secret", (p, m) => reverse(m[1], p)],
    ["GET", /^\/v1\/transfers\/(tr_\w+)\/reversals$/, "secret", (p, m) => list(get("transfers", m[1]).reversals.data, p, `/v1/transfers/${m[1]}/reversals`)],
    ["POST", /^\/_standin\/transfers\/fail_next$/, "secret", (p) => {
      if (!FAILURES[p.code]) throw badParam("code", `code must be one of ${Object.keys(FAILURES).join(", ")}`);
      if (!p.destination) throw badParam("destination", "Missing required param: destination.");
      failNext.set(p.destination, p.code);
      return { object: "standin_control", destination: p.destination, code: p.code };
    }],
  ];
}
