// Stripe Connect, Stripe-shaped: Express accounts, account links with a local hosted onboarding
// page, login links, transfers (with reversals) and the platform balance they draw on.
// A resource module of the stand-in: `kit` carries server.mjs's state and helpers.
//
// Onboarding: GET /_standin/connect/onboard/{link} is the page an account link opens. "Submit" fills
// in the details (details_submitted, payouts_enabled, transfers capability active), sends
// account.updated and returns the browser to return_url; "Leave" goes to refresh_url, as a person
// who abandons Stripe's form would. A link works once and for 5 minutes; afterwards it goes to refresh_url.
// Controls: POST /_standin/accounts/{id}/restrict (payouts stop, account.updated);
// POST /_standin/accounts/{id}/onboard (finish onboarding without a browser).

const escapeHtml = (s) =>
  String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

/** @param {any} kit */
export function connectRoutes(kit) {
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
    raw,
    balanceTransaction,
    balanceOf,
  } = kit;

  const DUE = [
    "business_profile.url",
    "external_account",
    "individual.dob.day",
    "individual.first_name",
    "individual.last_name",
    "tos_acceptance.date",
  ];

  function createAccount(p, { silent = false } = {}) {
    const express = p.type === "express" || p.controller?.stripe_dashboard?.type === "express";
    if (!p.type && !p.controller) throw missingParam("type");
    if (p.type && !["express", "standard", "custom"].includes(p.type))
      throw badParam("type", `Invalid type: must be one of custom, express, or standard`);
    const requested = Object.entries(p.capabilities ?? {})
      .filter(([, v]) => v?.requested === "true")
      .map(([k]) => k);
    const account = {
      id: rid("acct", 16),
      object: "account",
      business_profile: {
        mcc: null,
        minority_owned_business_designation: null,
        name: null,
        specified_commercial_transactions_act_url: null,
        support_address: null,
        support_email: null,
        support_phone: null,
        support_url: null,
        url: null,
      },
      business_type: p.business_type ?? null,
      capabilities: Object.fromEntries(requested.map((c) => [c, "inactive"])),
      charges_enabled: false,
      country: p.country ?? "US",
      created: now(),
      default_currency: "usd",
      details_submitted: false,
      email: p.email ?? null,
      external_accounts: { object: "list", data: [], has_more: false, total_count: 0, url: "" },
      metadata: metadata(p.metadata),
      payouts_enabled: false,
      requirements: {
        alternatives: [],
        currently_due: [...DUE],
        eventually_due: [...DUE],
        past_due: [],
        disabled_reason: "requirements.past_due",
        current_deadline: null,
        errors: [],
        pending_verification: [],
      },
      settings: {
        branding: { icon: null, logo: null, primary_color: null, secondary_color: null },
        card_payments: {
          statement_descriptor_prefix: null,
          statement_descriptor_prefix_kana: null,
          statement_descriptor_prefix_kanji: null,
        },
        dashboard: { display_name: null, timezone: "Etc/UTC" },
        payments: {
          statement_descriptor: null,
          statement_descriptor_kana: null,
          statement_descriptor_kanji: null,
          statement_descriptor_prefix_kana: null,
          statement_descriptor_prefix_kanji: null,
        },
        payouts: {
          debit_negative_balances: true,
          schedule: { delay_days: 2, interval: "daily" },
          statement_descriptor: null,
        },
      },
      tos_acceptance: { date: null },
      type: express || !p.type ? "express" : p.type,
    };
    account.external_accounts.url = `/v1/accounts/${account.id}/external_accounts`;
    db.accounts.set(account.id, account);
    if (!silent) emit("account.updated", account);
    return account;
  }

  function completeOnboarding(account, { silent = false } = {}) {
    Object.assign(account, {
      details_submitted: true,
      charges_enabled: true,
      payouts_enabled: true,
      capabilities: {
        ...Object.fromEntries(Object.keys(account.capabilities).map((k) => [k, "active"])),
        transfers: "active",
      },
      requirements: {
        ...account.requirements,
        currently_due: [],
        eventually_due: [],
        past_due: [],
        disabled_reason: null,
      },
      tos_acceptance: { date: now() },
    });
    account.external_accounts.data = [
      {
        id: rid("ba", 24),
        object: "bank_account",
        account: account.id,
        account_holder_name: null,
        account_holder_type: null,
        account_type: null,
        available_payout_methods: ["standard"],
        bank_name: "STRIPE TEST BANK",
        country: "US",
        currency: "usd",
        default_for_currency: true,
        fingerprint: "standinbankacct0",
        last4: "6789",
        metadata: {},
        routing_number: "110000000",
        status: "new",
      },
    ];
    account.external_accounts.total_count = 1;
    if (!silent) emit("account.updated", account);
  }

  function createAccountLink(p, base) {
    if (!p.account) throw missingParam("account");
    const account = get("accounts", p.account);
    if (!p.type) throw missingParam("type");
    for (const k of ["refresh_url", "return_url"]) if (!p[k]) throw missingParam(k);
    if (!["account_onboarding", "account_update"].includes(p.type))
      throw badParam("type", "Invalid type: must be one of account_onboarding or account_update");
    const id = rid("acctlink", 20);
    const link = {
      object: "account_link",
      created: now(),
      expires_at: now() + 300,
      url: `${base}/_standin/connect/onboard/${id}`,
    };
    db.account_links.set(id, {
      ...link,
      _account: account.id,
      _refresh: p.refresh_url,
      _return: p.return_url,
      _used: false,
    });
    return link;
  }

  /** The link's record while it can still be used; otherwise null (the browser goes to refresh_url). */
  function usableLink(id) {
    const link = db.account_links.get(id);
    if (!link) throw new StripeError(404, "invalid_request_error", "This account link is invalid.");
    return link._used || link.expires_at < now() ? null : link;
  }

  function onboardingPage(id) {
    const link = db.account_links.get(id);
    const usable = link && usableLink(id);
    if (!usable) return raw(302, { location: link._refresh });
    const account = get("accounts", link._account);
    const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Stripe Express onboarding (stand-in)</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#1a1f36}h1{font-size:1.4rem}label{display:block;margin:.8rem 0 .2rem}input{width:100%;padding:.5rem;border:1px solid #ccd;border-radius:6px;box-sizing:border-box}button{margin-top:1.2rem;padding:.6rem 1rem;border:0;border-radius:6px;background:#635bff;color:#fff;font-weight:600;cursor:pointer}a{color:#635bff}</style></head>
<body><p>Stripe test mode · local stand-in</p><h1>Set up payouts for ${escapeHtml(account.email ?? account.id)}</h1>
<form method="post" action="/_standin/connect/onboard/${escapeHtml(id)}">
<label for="name">Legal name</label><input id="name" name="name" value="Test Creator">
<label for="routing">Routing number</label><input id="routing" name="routing" value="110000000">
<label for="acct">Account number</label><input id="acct" name="account_number" value="000123456789">
<button type="submit">Submit details</button></form>
<p><a href="/_standin/connect/onboard/${escapeHtml(id)}/leave">Return to the platform without finishing</a></p></body></html>`;
    return raw(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }, page);
  }

  function submitOnboarding(id) {
    const link = usableLink(id);
    if (!link) return raw(302, { location: db.account_links.get(id)._refresh });
    link._used = true;
    completeOnboarding(get("accounts", link._account));
    return raw(302, { location: link._return });
  }

  function leaveOnboarding(id) {
    const link = db.account_links.get(id);
    if (!link) throw new StripeError(404, "invalid_request_error", "This account link is invalid.");
    link._used = true;
    return raw(302, { location: link._refresh });
  }

  function createLoginLink(accountId, base) {
    const account = get("accounts", accountId);
    if (account.type !== "express")
      throw new StripeError(400, "invalid_request_error", "Login links can only be created for Express accounts.");
    if (!account.details_submitted)
      throw new StripeError(
        400,
        "invalid_request_error",
        "Cannot create a login link for an account that has not completed onboarding.",
      );
    return { object: "login_link", created: now(), url: `${base}/_standin/connect/express/${account.id}` };
  }

  // ---- money: transfers draw on the platform's AVAILABLE balance (server.mjs keeps its balance transactions) ----

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

  return [
    ["POST", /^\/v1\/accounts$/, "secret", (p) => createAccount(p)],
    ["GET", /^\/v1\/accounts\/(acct_\w+)$/, "secret", (_p, m) => get("accounts", m[1])],
    [
      "POST",
      /^\/v1\/accounts\/(acct_\w+)$/,
      "secret",
      (p, m) => {
        const a = get("accounts", m[1]);
        if (p.email !== undefined) a.email = p.email || null;
        if (p.metadata) Object.assign(a.metadata, metadata(p.metadata));
        emit("account.updated", a);
        return a;
      },
    ],
    // Stripe: "Returns an object with a deleted parameter on success"; the account is then unknown
    // (retrieving it answers resource_missing).
    [
      "DELETE",
      /^\/v1\/accounts\/(acct_\w+)$/,
      "secret",
      (_p, m) => {
        const a = get("accounts", m[1]);
        db.accounts.delete(a.id);
        return { id: a.id, object: "account", deleted: true };
      },
    ],
    ["POST", /^\/v1\/account_links$/, "secret", (p, _m, ctx) => createAccountLink(p, ctx.base)],
    ["POST", /^\/v1\/accounts\/(acct_\w+)\/login_links$/, "secret", (_p, m, ctx) => createLoginLink(m[1], ctx.base)],
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
    // The hosted pages a browser opens.
    ["GET", /^\/_standin\/connect\/onboard\/(acctlink_\w+)$/, "public", (_p, m) => onboardingPage(m[1])],
    ["POST", /^\/_standin\/connect\/onboard\/(acctlink_\w+)$/, "public", (_p, m) => submitOnboarding(m[1])],
    ["GET", /^\/_standin\/connect\/onboard\/(acctlink_\w+)\/leave$/, "public", (_p, m) => leaveOnboarding(m[1])],
    [
      "GET",
      /^\/_standin\/connect\/express\/(acct_\w+)$/,
      "public",
      (_p, m) => {
        const a = get("accounts", m[1]);
        return raw(
          200,
          { "content-type": "text/html; charset=utf-8" },
          `<!doctype html><title>Express dashboard (stand-in)</title><h1>Express dashboard</h1><p>${escapeHtml(a.email ?? a.id)} · payouts ${a.payouts_enabled ? "enabled" : "paused"}</p>`,
        );
      },
    ],
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
    // Accounts onboarded elsewhere (a seeded benchmark database) become known with these ids.
    [
      "POST",
      /^\/_standin\/accounts\/import$/,
      "secret",
      (p) => {
        const ids = Object.values(p.ids ?? {});
        for (const id of ids) {
          if (!/^acct_\w+$/.test(String(id))) throw badParam("ids", `Invalid account id: ${id}`);
          if (db.accounts.has(id)) continue;
          const a = createAccount(
            { type: "express", capabilities: { transfers: { requested: "true" } } },
            { silent: true },
          );
          db.accounts.delete(a.id);
          a.id = id;
          a.external_accounts.url = `/v1/accounts/${id}/external_accounts`;
          db.accounts.set(id, a);
          completeOnboarding(a, { silent: true });
        }
        return { object: "list", data: ids, has_more: false, url: "/_standin/accounts/import" };
      },
    ],
    [
      "POST",
      /^\/_standin\/accounts\/(acct_\w+)\/onboard$/,
      "secret",
      (_p, m) => {
        const a = get("accounts", m[1]);
        completeOnboarding(a);
        return a;
      },
    ],
    [
      "POST",
      /^\/_standin\/accounts\/(acct_\w+)\/restrict$/,
      "secret",
      (_p, m) => {
        const a = get("accounts", m[1]);
        Object.assign(a, {
          payouts_enabled: false,
          capabilities: { ...a.capabilities, transfers: "inactive" },
          requirements: {
            ...a.requirements,
            disabled_reason: "requirements.past_due",
            past_due: ["individual.verification.document"],
            currently_due: ["individual.verification.document"],
          },
        });
        emit("account.updated", a);
        return a;
      },
    ],
  ];
}
