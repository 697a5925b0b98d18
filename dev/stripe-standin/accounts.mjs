// Connect accounts, Stripe-shaped: Express accounts (create, retrieve, update, delete) and what
// finishing onboarding fills in. See docs/money.md#the-stand-ins-connect-transfers-and-balance.
// Stand-in controls: POST /_standin/accounts/{id}/onboard (finish onboarding without a browser);
// POST /_standin/accounts/{id}/restrict (payouts stop, account.updated); POST
// /_standin/accounts/import {ids} (accounts onboarded elsewhere, e.g. a seeded benchmark database).

/** @param {any} kit */
export function accounts(kit) {
  const { db, get, metadata, rid, now, badParam, missingParam, emit } = kit;

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

  const routes = [
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

  return { completeOnboarding, routes };
}
