// Transfers to connected accounts, Stripe-shaped, with reversals. A transfer draws on the platform's
// AVAILABLE balance (balance.mjs), so it can meet `balance_insufficient`.
// See docs/money.md#the-stand-ins-connect-transfers-and-balance.

/** @param {any} kit */
export function transfers(kit) {
  const {
    db,
    get,
    metadata,
    int,
    rid,
    now,
    list,
    StripeError,
    badParam,
    missingParam,
    emit,
    balanceTransaction,
    balanceOf,
  } = kit;

  // The next transfer to an account fails with this Stripe error (a stand-in control), once. Each is
  // answered as Stripe answers it: status, type and code; `kept: false` for the answers Stripe gives
  // before the endpoint runs (rate limiting, a request with the same key still executing), which it
  // does not keep under the Idempotency-Key; the others are kept and replayed for that key.
  const failNext = new Map();
  const FAILURES = {
    balance_insufficient: {
      status: 400,
      type: "invalid_request_error",
      kept: true,
      message:
        "You have insufficient available funds in your Stripe account. Try adding funds directly to your available balance by creating Charges using the 4000000000000077 test card. See: https://stripe.com/docs/testing#available-balance",
    },
    insufficient_capabilities_for_transfer: {
      status: 400,
      type: "invalid_request_error",
      kept: true,
      param: "destination",
      message:
        "Your destination account needs to have at least one of the following capabilities enabled: transfers, crypto_transfers, legacy_payments",
    },
    // Transient: Stripe's documented error types for these (docs: Error codes, Rate limits, Idempotent requests).
    api_error: { status: 500, type: "api_error", kept: true, noCode: true, message: "An unknown error occurred" },
    rate_limit: {
      status: 429,
      type: "rate_limit_error",
      kept: false,
      message: "Too many requests hit the API too quickly. We recommend an exponential backoff of your requests.",
    },
    lock_timeout: {
      status: 429,
      type: "invalid_request_error",
      kept: false,
      message:
        "This object cannot be accessed right now because another API request or Stripe process is currently accessing it. If you see this error intermittently, retry the request.",
    },
    idempotency_key_in_use: {
      status: 409,
      type: "invalid_request_error",
      kept: false,
      message:
        "There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through). Please try again later.",
    },
  };

  function createTransfer(p) {
    if (p.amount === undefined) throw missingParam("amount");
    if (!p.currency) throw missingParam("currency");
    if (!p.destination) throw missingParam("destination");
    const amount = int(p.amount, "amount");
    if (!amount) throw badParam("amount", "Invalid positive integer");
    const account = db.accounts.get(p.destination);
    if (!account)
      throw new StripeError(400, "invalid_request_error", `No such destination: '${p.destination}'`, {
        code: "resource_missing",
        param: "destination",
      });
    const failure = failNext.get(account.id);
    if (failure) {
      failNext.delete(account.id);
      const f = FAILURES[failure];
      throw new StripeError(
        f.status,
        f.type,
        f.message,
        { ...(f.noCode ? {} : { code: failure }), ...(f.param ? { param: f.param } : {}) },
        { validation: !f.kept },
      );
    }
    if (account.capabilities.transfers !== "active") {
      throw new StripeError(
        400,
        "invalid_request_error",
        "Your destination account needs to have at least one of the following capabilities enabled: transfers, crypto_transfers, legacy_payments",
        { code: "insufficient_capabilities_for_transfer", param: "destination" },
      );
    }
    if (amount > balanceOf().available) {
      throw new StripeError(
        400,
        "invalid_request_error",
        "You have insufficient available funds in your Stripe account. Try adding funds directly to your available balance by creating Charges using the 4000000000000077 test card.",
        { code: "balance_insufficient" },
      );
    }
    const t = {
      id: rid("tr", 24),
      object: "transfer",
      amount,
      amount_reversed: 0,
      balance_transaction: null,
      created: now(),
      currency: String(p.currency).toLowerCase(),
      description: p.description ?? null,
      destination: account.id,
      destination_payment: rid("py", 24),
      livemode: false,
      metadata: metadata(p.metadata),
      reversals: { object: "list", data: [], has_more: false, total_count: 0, url: "" },
      reversed: false,
      source_transaction: p.source_transaction ?? null,
      source_type: "card",
      transfer_group: p.transfer_group ?? null,
    };
    t.reversals.url = `/v1/transfers/${t.id}/reversals`;
    t.balance_transaction = balanceTransaction({
      amount: -amount,
      type: "transfer",
      source: t.id,
      currency: t.currency,
    });
    db.transfers.set(t.id, t);
    emit("transfer.created", t);
    return t;
  }

  function reverseTransfer(id, p) {
    const t = get("transfers", id);
    const amount = int(p.amount, "amount") ?? t.amount - t.amount_reversed;
    if (amount <= 0 || amount > t.amount - t.amount_reversed)
      throw badParam("amount", "Amount must be no more than the transfer's unreversed amount.");
    const r = {
      id: rid("trr", 24),
      object: "transfer_reversal",
      amount,
      balance_transaction: null,
      created: now(),
      currency: t.currency,
      destination_payment_refund: rid("pyr", 24),
      metadata: metadata(p.metadata),
      source_refund: null,
      transfer: t.id,
    };
    r.balance_transaction = balanceTransaction({ amount, type: "transfer_cancel", source: r.id, currency: t.currency });
    t.amount_reversed += amount;
    t.reversed = t.amount_reversed === t.amount;
    t.reversals.data.unshift(r);
    t.reversals.total_count += 1;
    emit("transfer.reversed", t);
    return r;
  }

  const routes = [
    ["POST", /^\/v1\/transfers$/, "secret", (p) => createTransfer(p)],
    ["GET", /^\/v1\/transfers\/(tr_\w+)$/, "secret", (_p, m) => get("transfers", m[1])],
    [
      "GET",
      /^\/v1\/transfers$/,
      "secret",
      (p) =>
        list(
          [...db.transfers.values()]
            .reverse()
            .filter(
              (t) =>
                (!p.destination || t.destination === p.destination) &&
                (!p.transfer_group || t.transfer_group === p.transfer_group),
            ),
          p,
          "/v1/transfers",
        ),
    ],
    ["POST", /^\/v1\/transfers\/(tr_\w+)\/reversals$/, "secret", (p, m) => reverseTransfer(m[1], p)],
    // Stand-in controls.
    // The next transfer to `destination` fails with Stripe's error `code`: balance_insufficient or
    // insufficient_capabilities_for_transfer (as Stripe would decide), or a transient one
    // (api_error, rate_limit, lock_timeout, idempotency_key_in_use).
    [
      "POST",
      /^\/_standin\/transfers\/fail_next$/,
      "secret",
      (p) => {
        if (!FAILURES[p.code]) throw badParam("code", `code must be one of ${Object.keys(FAILURES).join(", ")}`);
        get("accounts", p.destination ?? "");
        failNext.set(p.destination, p.code);
        return { object: "standin.control", destination: p.destination, code: p.code };
      },
    ],
  ];

  return { routes };
}
