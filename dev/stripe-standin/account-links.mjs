// Account links and login links, Stripe-shaped, with a local hosted onboarding page.
// GET /_standin/connect/onboard/{link} is the page an account link opens. "Submit" fills in the
// details (details_submitted, payouts_enabled, transfers capability active), sends account.updated
// and returns the browser to return_url; "Leave" goes to refresh_url, as a person who abandons
// Stripe's form would. A link works once and for 5 minutes; afterwards it goes to refresh_url.
// See docs/money.md#the-stand-ins-connect-transfers-and-balance.

const escapeHtml = (s) =>
  String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

/** @param {any} kit */
export function accountLinks(kit) {
  const { db, get, rid, now, StripeError, badParam, missingParam, raw, completeOnboarding } = kit;

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

  const routes = [
    ["POST", /^\/v1\/account_links$/, "secret", (p, _m, ctx) => createAccountLink(p, ctx.base)],
    ["POST", /^\/v1\/accounts\/(acct_\w+)\/login_links$/, "secret", (_p, m, ctx) => createLoginLink(m[1], ctx.base)],
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
  ];

  return { routes };
}
