// Tax transactions, Stripe-shaped (API 2026-10-28): what Stripe Tax records for reporting. Made
// from a calculation (create_from_calculation), reversed in full or in part (create_reversal), and,
// for a PaymentIntent carrying `hooks[inputs][tax][calculation]`, by Stripe itself: a transaction
// when the PaymentIntent succeeds, a flat reversal for each refund that succeeds, a reversal of that
// reversal when such a refund fails later; never for a dispute. Each attempt is listed on the
// PaymentIntent's tax association (GET /v1/tax/associations/find). See docs/tax.md ("The stand-in").
import { badParam, missingParam, StripeError } from "./errors.mjs";
import { expandOf, int, metadata, now, page, rid } from "./wire.mjs";

/** @param {any} kit */
export function taxTransactions(kit) {
  const { db, get, on, liveCalculation } = kit;

  const refuse = (message, param) =>
    new StripeError(400, "invalid_request_error", message, param ? { param } : {}, { validation: true });

  function checkReference(reference, param = "reference") {
    if (!reference) throw missingParam(param);
    if ([...db.tax_transactions.values()].some((t) => t.reference === reference))
      throw refuse(`A tax transaction with reference '${reference}' already exists.`, param);
  }

  function newTransaction(fields, lines) {
    const t = {
      id: rid("tax"),
      object: "tax.transaction",
      created: now(),
      currency: "usd",
      customer: null,
      customer_details: null,
      livemode: false,
      metadata: {},
      posted_at: now(),
      reference: "",
      reversal: null,
      ship_from_details: null,
      shipping_cost: null,
      tax_date: now(),
      type: "transaction",
      ...fields,
      _lines: lines,
    };
    db.tax_transactions.set(t.id, t);
    return t;
  }

  const txLine = (fields) => ({
    id: rid("tax_li", 14),
    object: "tax.transaction_line_item",
    livemode: false,
    metadata: {},
    product: null,
    reversal: null,
    type: "transaction",
    ...fields,
  });

  function fromCalculation(calc, { reference, metadata: meta = {}, postedAt = now() }) {
    calc._transaction = true;
    return newTransaction(
      {
        currency: calc.currency,
        customer: calc.customer,
        customer_details: structuredClone(calc.customer_details),
        metadata: meta,
        posted_at: postedAt,
        reference,
        tax_date: calc.tax_date,
      },
      calc._lines.map((l) =>
        txLine({
          amount: l.amount,
          amount_tax: l.amount_tax,
          metadata: l.metadata,
          product: l.product,
          quantity: l.quantity,
          reference: l.reference,
          tax_behavior: l.tax_behavior,
          tax_code: l.tax_code,
        }),
      ),
    );
  }

  /**
   * What is left to reverse of each line of `original` (positive amounts): less its reversals, plus
   * the reversals of those reversals (a refund that failed).
   */
  function remaining(original) {
    const left = new Map(original._lines.map((l) => [l.id, { amount: l.amount, amount_tax: l.amount_tax }]));
    const lines = new Map();
    for (const t of db.tax_transactions.values()) for (const l of t._lines) lines.set(l.id, { l, t });
    for (const { l } of lines.values()) {
      const target = l.reversal && lines.get(l.reversal.original_line_item);
      if (!target) continue;
      const ofOriginal =
        target.t === original
          ? target.l.id
          : target.t.reversal?.original_transaction === original.id && target.l.reversal.original_line_item;
      if (!ofOriginal) continue;
      const r = left.get(ofOriginal);
      // A reversal's lines are negative, a reversal of it positive: both add to what is left.
      r.amount += l.amount;
      r.amount_tax += l.amount_tax;
    }
    return left;
  }

  /** The reversal lines for a flat amount (negative, tax included) spread over the lines in proportion. */
  function flatLines(original, flat) {
    const left = remaining(original);
    const gross = (l) => l.amount + (l.tax_behavior === "exclusive" ? l.amount_tax : 0);
    const total = original._lines.reduce((a, l) => a + gross(l), 0);
    const leftTotal = original._lines.reduce((a, l) => {
      const r = left.get(l.id);
      return a + r.amount + (l.tax_behavior === "exclusive" ? r.amount_tax : 0);
    }, 0);
    if (-flat > leftTotal)
      throw refuse(
        `The flat_amount (${flat}) is more than is left to reverse on transaction ${original.id} (${leftTotal}).`,
        "flat_amount",
      );
    let spread = 0;
    return original._lines.map((l, i) => {
      const share = i === original._lines.length - 1 ? -flat - spread : Math.round((-flat * gross(l)) / (total || 1));
      spread += share;
      const taxShare = gross(l) ? Math.round((l.amount_tax * share) / gross(l)) : 0;
      return {
        original: l,
        amount: -(l.tax_behavior === "exclusive" ? share - taxShare : share),
        amount_tax: -taxShare,
        reference: l.reference,
        quantity: l.quantity,
        metadata: {},
      };
    });
  }

  function reversalLines(original, p) {
    if (p.mode === "full") {
      if ([...db.tax_transactions.values()].some((t) => t.reversal?.original_transaction === original.id))
        throw refuse(
          `Transaction ${original.id} has already been reversed in part; reverse what is left with mode=partial.`,
          "mode",
        );
      return original._lines.map((l) => ({
        original: l,
        amount: -l.amount,
        amount_tax: -l.amount_tax,
        reference: l.reference,
        quantity: l.quantity,
        metadata: {},
      }));
    }
    if (p.flat_amount !== undefined) {
      if (p.line_items)
        throw badParam("flat_amount", "You may only specify one of these parameters: flat_amount, line_items.");
      const flat = Number(p.flat_amount);
      if (!Number.isInteger(flat) || flat >= 0)
        throw badParam("flat_amount", "flat_amount must be a negative integer.");
      return flatLines(original, flat);
    }
    const raw = Array.isArray(p.line_items) ? p.line_items : Object.values(p.line_items ?? {});
    if (!raw.length) throw missingParam("line_items");
    const left = remaining(original);
    return raw.map((r, i) => {
      const at = (k) => `line_items[${i}][${k}]`;
      for (const k of ["amount", "amount_tax", "original_line_item", "reference"])
        if (r[k] === undefined) throw missingParam(at(k));
      const line = original._lines.find((l) => l.id === r.original_line_item);
      if (!line)
        throw badParam(
          at("original_line_item"),
          `No such line item on transaction ${original.id}: '${r.original_line_item}'`,
        );
      const amount = Number(r.amount);
      const amountTax = Number(r.amount_tax);
      if (!Number.isInteger(amount) || amount > 0)
        throw badParam(at("amount"), "amount must be zero or a negative integer.");
      if (!Number.isInteger(amountTax) || amountTax > 0)
        throw badParam(at("amount_tax"), "amount_tax must be zero or a negative integer.");
      const l = left.get(line.id);
      if (-amount > l.amount || -amountTax > l.amount_tax)
        throw badParam(at("amount"), `The amounts to reverse are more than is left on line item ${line.id}.`);
      return {
        original: line,
        amount,
        amount_tax: amountTax,
        reference: r.reference,
        quantity: int(r.quantity, at("quantity")) ?? line.quantity,
        metadata: metadata(r.metadata),
      };
    });
  }

  function reverse(original, { reference, lines, meta = {} }) {
    return newTransaction(
      {
        currency: original.currency,
        customer: original.customer,
        customer_details: structuredClone(original.customer_details),
        metadata: meta,
        reference,
        reversal: { original_transaction: original.id },
        tax_date: original.tax_date,
        type: "reversal",
      },
      lines.map((l) =>
        txLine({
          amount: l.amount,
          amount_tax: l.amount_tax,
          metadata: l.metadata,
          product: l.original.product,
          quantity: l.quantity,
          reference: l.reference,
          reversal: { original_line_item: l.original.id },
          tax_behavior: l.original.tax_behavior,
          tax_code: l.original.tax_code,
          type: "reversal",
        }),
      ),
    );
  }

  function createReversal(p) {
    if (!p.mode) throw missingParam("mode");
    if (!["full", "partial"].includes(p.mode)) throw badParam("mode", "Invalid mode: must be one of full, partial");
    if (!p.original_transaction) throw missingParam("original_transaction");
    const original = get("tax_transactions", p.original_transaction);
    if (original.type !== "transaction")
      throw badParam("original_transaction", `Transaction ${original.id} is a reversal and cannot be reversed.`);
    checkReference(p.reference);
    return reverse(original, { reference: p.reference, lines: reversalLines(original, p), meta: metadata(p.metadata) });
  }

  // ---- What Stripe does for a PaymentIntent with a tax calculation ----
  const association = (pi) => db.tax_associations.get(pi);

  on((event) => {
    const o = event.data.object;
    if (event.type === "payment_intent.succeeded") commit(o.id);
    if ((event.type === "refund.created" || event.type === "refund.updated") && o.status === "succeeded")
      reverseRefund(o);
    if (event.type === "refund.failed") restoreRefund(o);
  });

  const attempt = (a, source, outcome) => {
    a.tax_transaction_attempts ??= [];
    a.tax_transaction_attempts.push(
      typeof outcome === "string"
        ? { source, status: "errored", errored: { reason: outcome } }
        : { source, status: "committed", committed: { transaction: outcome.id } },
    );
  };

  function commit(piId) {
    const a = association(piId);
    if (!a || a.tax_transaction_attempts?.some((x) => x.source === piId)) return;
    const pi = db.payment_intents.get(piId);
    const calc = db.tax_calculations.get(a.calculation);
    if (!calc || calc.expires_at <= now()) return attempt(a, piId, "calculation_expired");
    if (calc.currency !== pi.currency) return attempt(a, piId, "currency_mismatch");
    if (calc._transaction) return attempt(a, piId, "another_payment_associated_with_calculation");
    if ([...db.tax_transactions.values()].some((t) => t.reference === piId))
      return attempt(a, piId, "unique_reference_violation");
    attempt(a, piId, fromCalculation(calc, { reference: piId }));
  }

  const committed = (a) =>
    a?.tax_transaction_attempts?.find((x) => x.status === "committed" && x.source === a.payment_intent);

  function reverseRefund(refund) {
    const a = association(refund.payment_intent);
    const done = committed(a);
    if (!done || a.tax_transaction_attempts.some((x) => x.source === refund.id)) return;
    const original = db.tax_transactions.get(done.committed.transaction);
    try {
      attempt(a, refund.id, reverse(original, { reference: refund.id, lines: flatLines(original, -refund.amount) }));
    } catch (err) {
      if (!(err instanceof StripeError)) throw err;
    }
  }

  /** A refund that failed after its reversal: the reversal is itself reversed (the tax is owed again). */
  function restoreRefund(refund) {
    const a = association(refund.payment_intent);
    const all = [...db.tax_transactions.values()];
    const reversal = all.find((t) => t.reference === refund.id && t.type === "reversal");
    const reference = `${refund.id}_failed`;
    if (!a || !reversal || all.some((t) => t.reference === reference)) return;
    const back = newTransaction(
      {
        currency: reversal.currency,
        customer: reversal.customer,
        customer_details: structuredClone(reversal.customer_details),
        reference,
        reversal: { original_transaction: reversal.id },
        tax_date: reversal.tax_date,
        type: "reversal",
      },
      reversal._lines.map((l) =>
        txLine({
          amount: -l.amount,
          amount_tax: -l.amount_tax,
          product: l.product,
          quantity: l.quantity,
          reference: l.reference,
          reversal: { original_line_item: l.id },
          tax_behavior: l.tax_behavior,
          tax_code: l.tax_code,
          type: "reversal",
        }),
      ),
    );
    attempt(a, refund.id, back);
  }

  function transactionView(t, p) {
    if (!expandOf(p).includes("line_items")) return t;
    return { ...t, line_items: page(t._lines, { limit: 100 }, `/v1/tax/transactions/${t.id}/line_items`) };
  }

  const routes = [
    [
      "POST",
      /^\/v1\/tax\/transactions\/create_from_calculation$/,
      "secret",
      (p) => {
        if (!p.calculation) throw missingParam("calculation");
        const calc = liveCalculation(p.calculation, "calculation");
        checkReference(p.reference);
        if (calc._transaction)
          throw refuse(`Calculation ${calc.id} has already been used to create a transaction.`, "calculation");
        const postedAt = int(p.posted_at, "posted_at") ?? now();
        return transactionView(
          fromCalculation(calc, { reference: p.reference, metadata: metadata(p.metadata), postedAt }),
          p,
        );
      },
    ],
    ["POST", /^\/v1\/tax\/transactions\/create_reversal$/, "secret", (p) => transactionView(createReversal(p), p)],
    [
      "GET",
      /^\/v1\/tax\/transactions\/(tax_\w+)$/,
      "secret",
      (p, m) => transactionView(get("tax_transactions", m[1]), p),
    ],
    [
      "GET",
      /^\/v1\/tax\/transactions\/(tax_\w+)\/line_items$/,
      "secret",
      (p, m) => page(get("tax_transactions", m[1])._lines, p, `/v1/tax/transactions/${m[1]}/line_items`),
    ],
    [
      "GET",
      /^\/v1\/tax\/associations\/find$/,
      "secret",
      (p) => {
        if (!p.payment_intent) throw missingParam("payment_intent");
        get("payment_intents", p.payment_intent);
        const a = association(p.payment_intent);
        if (!a)
          throw new StripeError(
            404,
            "invalid_request_error",
            `No tax association found for PaymentIntent '${p.payment_intent}'.`,
            { code: "resource_missing", param: "payment_intent" },
            { validation: true },
          );
        return a;
      },
    ],
  ];

  return { routes };
}
