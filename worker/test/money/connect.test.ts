// Stripe Connect: one Express account per creator, onboarding through the stand-in's hosted page,
// status from Stripe's word only (account.updated re-read, never the payload), the dashboard link.
import { describe, expect, it, vi } from "vitest";
import { sha256Hex } from "../../lib/ids";
import { call, deliver, env, outbox, row, rows, signIn, standin } from "../support/helpers";

const CONNECT_SECRET = "whsec_worker_tests_connect";

type Status = { connected: boolean; details_submitted: boolean; payouts_enabled: boolean };

async function creator(email: string) {
  const cookie = await signIn(email);
  return { cookie, id: (await row<{ id: string }>("select id from users where email = ?", email))!.id };
}

/** GET /api/stripe/connect/onboard as a browser: the Account Link URL it redirects to. */
async function onboardingLink(cookie: string): Promise<URL> {
  const res = await call("/api/stripe/connect/onboard", { cookie });
  expect(res.status).toBe(303);
  return new URL(res.headers.get("location")!);
}

const status = async (cookie: string) => (await call("/api/connect/account-status", { cookie })).json<Status>();
const accountOf = async (userId: string) =>
  (await row<{ stripe_account_id: string }>("select stripe_account_id from payout_settings where user_id = ?", userId))
    ?.stripe_account_id;
const latestEvent = async (type: string, accountId: string) => {
  const { body } = await standin<{ data: { id: string; type: string; data: { object: { id: string } } }[] }>(
    "GET",
    "/v1/events",
    { type, limit: "100" },
  );
  return body.data.find((e) => e.data.object.id === accountId)!;
};

describe("Stripe Connect onboarding", () => {
  it("creates the account once, onboards through the hosted page and returns to /connect?connected=true", async () => {
    const { cookie, id } = await creator("connect@example.com");
    expect(await status(cookie)).toEqual({ connected: false, details_submitted: false, payouts_enabled: false });

    const [a, b] = await Promise.all([onboardingLink(cookie), onboardingLink(cookie)]);
    const accountId = await accountOf(id);
    expect(accountId).toMatch(/^acct_/);
    const { body: accounts } = await standin<{ type: string; email: string; metadata: Record<string, string> }>(
      "GET",
      `/v1/accounts/${accountId}`,
    );
    expect(accounts).toMatchObject({ type: "express", email: "connect@example.com", metadata: { userId: id } });
    expect(a.href).not.toBe(b.href);
    expect(await status(cookie)).toEqual({ connected: true, details_submitted: false, payouts_enabled: false });

    // The hosted page, then "Submit details": back to the app's return URL.
    const page = await fetch(a);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Submit details");
    const submitted = await fetch(a, {
      method: "POST",
      body: new URLSearchParams({ name: "Test" }),
      redirect: "manual",
    });
    expect(submitted.status).toBe(302);
    expect(submitted.headers.get("location")).toBe(`${env.APP_URL}/connect?connected=true`);
    // The link is used up: opening it again goes to the refresh URL.
    const again = await fetch(a, { redirect: "manual" });
    expect(again.headers.get("location")).toBe(`${env.APP_URL}/connect?refresh=true`);

    // The return page reads the status from Stripe.
    expect(await status(cookie)).toEqual({ connected: true, details_submitted: true, payouts_enabled: true });
    expect(await (await call("/api/auth/user", { cookie })).json()).toMatchObject({
      payoutEnabled: true,
      payoutDestination: "bank",
      payoutMethod: null,
      payoutEmail: null,
    });

    // Another onboarding click reuses the account.
    await onboardingLink(cookie);
    expect(await accountOf(id)).toBe(accountId);
  });

  it("connecting a bank is a change of payout destination: it needs a recent sign-in, and Stripe saying it can be paid is audited and emailed once", async () => {
    const { cookie, id } = await creator("connect-protected@example.com");
    expect(
      (
        await call("/api/payout/setup", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ payoutMethod: "paypal", payoutEmail: "pp@example.com" }),
          cookie,
        })
      ).status,
    ).toBe(200);
    // A session signed in 11 minutes ago (a stolen cookie, say) is sent to sign in again; no account is made.
    const kvKey = `session:${await sha256Hex(cookie.split("=")[1])}`;
    const record = await env.SESSIONS.get<Record<string, unknown>>(kvKey, "json");
    await env.SESSIONS.put(kvKey, JSON.stringify({ ...record, createdAt: Date.now() - 11 * 60_000 }));
    const refused = await call("/api/stripe/connect/onboard", { cookie });
    expect(refused.status).toBe(302);
    expect(refused.headers.get("location")).toBe("/connect?signInAgain=true");
    expect(await accountOf(id)).toBeNull();

    // Signed in again: onboarding goes on; once Stripe says the account can be paid, the creator hears it.
    const fresh = await signIn("connect-protected@example.com");
    const link = await onboardingLink(fresh);
    await fetch(link, { method: "POST", body: new URLSearchParams({ name: "Test" }), redirect: "manual" });
    const accountId = (await accountOf(id))!;
    await status(fresh);
    expect((await deliver(await latestEvent("account.updated", accountId), { secret: CONNECT_SECRET })).status).toBe(
      200,
    );
    await status(fresh);
    expect(
      await rows(
        "select field, old_value, new_value, ip from payout_destination_events where user_id = ? and field = 'bank'",
        id,
      ),
    ).toEqual([{ field: "bank", old_value: null, new_value: accountId, ip: null }]);
    const notices = () =>
      outbox().then((all) =>
        all.filter(
          (m) =>
            m.to === "connect-protected@example.com" &&
            m.subject === "Your payout destination was changed" &&
            m.text.includes("Now: Bank account (Stripe)"),
        ),
      );
    const [mail] = await vi.waitUntil(async () => ((await notices()).length ? notices() : undefined), {
      timeout: 10_000,
      interval: 100,
    });
    expect(mail.text).toContain("Before: PayPal (pp@example.com)");
    expect(await notices()).toHaveLength(1);
  });

  it("leaving the hosted page goes to /connect?refresh=true and changes nothing", async () => {
    const { cookie } = await creator("connect-leave@example.com");
    const link = await onboardingLink(cookie);
    const left = await fetch(`${link.href}/leave`, { redirect: "manual" });
    expect(left.headers.get("location")).toBe(`${env.APP_URL}/connect?refresh=true`);
    expect(await status(cookie)).toEqual({ connected: true, details_submitted: false, payouts_enabled: false });
  });

  it("signed out: the onboarding redirect goes to sign-in, the calls answer 401", async () => {
    const res = await call("/api/stripe/connect/onboard");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/api/login?returnTo=%2Fconnect");
    expect((await call("/api/connect/account-status")).status).toBe(401);
    expect((await call("/api/stripe/connect/dashboard-link", { method: "POST" })).status).toBe(401);
  });
});

describe("Connect status by webhook", () => {
  it("account.updated keeps the status current from Stripe's copy; a forged or replayed event changes nothing", async () => {
    const { cookie, id } = await creator("connect-hook@example.com");
    await onboardingLink(cookie);
    const accountId = (await accountOf(id))!;

    // A forged event saying the account is ready: the signature is wrong, so nothing happens.
    const forged = {
      id: "evt_forged_connect",
      object: "event",
      type: "account.updated",
      data: { object: { id: accountId, details_submitted: true, payouts_enabled: true } },
    };
    expect((await deliver(forged as never, { secret: "whsec_wrong" })).status).toBe(400);
    // Correctly signed but lying payload: the account is re-read from Stripe, which says not yet.
    expect((await deliver({ ...forged, id: "evt_lying_connect" } as never)).status).toBe(200);
    expect(
      await row(
        "select connect_details_submitted as d, connect_payouts_enabled as p from payout_settings where user_id = ?",
        id,
      ),
    ).toEqual({ d: 0, p: 0 });

    // Stripe finishes onboarding (no browser): its account.updated brings the state in.
    await standin("POST", `/_standin/accounts/${accountId}/onboard`);
    const ready = await latestEvent("account.updated", accountId);
    expect((await deliver(ready as never)).status).toBe(200);
    expect(
      await row(
        "select connect_details_submitted as d, connect_payouts_enabled as p, method from payout_settings where user_id = ?",
        id,
      ),
    ).toEqual({ d: 1, p: 1, method: null });

    // Stripe restricts the account; the older "ready" event replayed afterwards changes nothing.
    await standin("POST", `/_standin/accounts/${accountId}/restrict`);
    expect((await deliver((await latestEvent("account.updated", accountId)) as never)).status).toBe(200);
    expect(await row("select connect_payouts_enabled as p from payout_settings where user_id = ?", id)).toEqual({
      p: 0,
    });
    expect(await (await deliver(ready as never)).json()).toMatchObject({ duplicate: true });
    expect(await row("select connect_payouts_enabled as p from payout_settings where user_id = ?", id)).toEqual({
      p: 0,
    });
  });
});

describe("Connect webhook endpoint", () => {
  it("an account.updated signed with the Connect endpoint's secret is accepted; a wrong secret is 400; a platform event signed with it is 400", async () => {
    const { cookie, id } = await creator("connect-endpoint@example.com");
    await onboardingLink(cookie);
    const accountId = (await accountOf(id))!;
    await standin("POST", `/_standin/accounts/${accountId}/onboard`);
    // Stripe sends events about a connected account with `account` set, to the Connect endpoint.
    const ready = (await latestEvent("account.updated", accountId)) as { id: string; account?: string };
    expect(ready.account).toBe(accountId);

    expect(
      (await deliver({ ...ready, id: "evt_connect_wrong_secret" } as never, { secret: "whsec_wrong" })).status,
    ).toBe(400);
    expect(await row("select connect_payouts_enabled as p from payout_settings where user_id = ?", id)).toEqual({
      p: 0,
    });

    expect((await deliver(ready as never, { secret: CONNECT_SECRET })).status).toBe(200);
    expect(
      await row(
        "select connect_details_submitted as d, connect_payouts_enabled as p from payout_settings where user_id = ?",
        id,
      ),
    ).toEqual({ d: 1, p: 1 });

    // The Connect secret signs only events about a connected account: one without `account` is refused.
    const { account: _, ...platformShaped } = { ...ready, id: "evt_connect_platform_shaped" };
    expect((await deliver(platformShaped as never, { secret: CONNECT_SECRET })).status).toBe(400);
  });
});

describe("payout dashboard link", () => {
  it("a login link once onboarded; before that the spec's failure text", async () => {
    const { cookie, id } = await creator("connect-dash@example.com");
    const none = await call("/api/stripe/connect/dashboard-link", {
      method: "POST",
      cookie,
      headers: { origin: "http://127.0.0.1:8787" },
    });
    expect(none.status).toBe(400);
    expect(await none.json()).toEqual({ message: "Failed to access payout dashboard. Please try again." });

    await onboardingLink(cookie);
    const early = await call("/api/stripe/connect/dashboard-link", { method: "POST", cookie });
    expect(await early.json()).toEqual({ message: "Failed to access payout dashboard. Please try again." });

    await standin("POST", `/_standin/accounts/${await accountOf(id)}/onboard`);
    const ok = await call("/api/stripe/connect/dashboard-link", { method: "POST", cookie });
    expect(ok.status).toBe(200);
    const { url } = await ok.json<{ url: string }>();
    expect(url).toContain(`/_standin/connect/express/${await accountOf(id)}`);

    // Another creator's call acts on their own (absent) account, never this one.
    const other = await creator("connect-dash-other@example.com");
    expect((await call("/api/stripe/connect/dashboard-link", { method: "POST", cookie: other.cookie })).status).toBe(
      400,
    );
    expect(await status(other.cookie)).toEqual({ connected: false, details_submitted: false, payouts_enabled: false });
  });
});

describe("bank payouts go through Connect only; the manual method is the creator's own", () => {
  type Me = {
    payoutEnabled: boolean;
    payoutMethod: string | null;
    payoutEmail: string | null;
    payoutDestination: "bank" | "manual" | null;
    payoutDefault: "bank" | "manual";
  };
  const me = async (cookie: string) => (await call("/api/auth/user", { cookie })).json<Me>();
  const nextReason = async (cookie: string) =>
    (await (await call("/api/payout/next", { cookie })).json<{ reason: string | null }>()).reason;
  const setup = (cookie: string, body: unknown) =>
    call("/api/payout/setup", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      cookie,
    });
  const choose = (cookie: string, body: unknown) =>
    call("/api/payout/default", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      cookie,
    });
  /** Onboards the creator's account at Stripe (no browser) and lets the app read it. */
  async function connect(cookie: string, id: string) {
    await onboardingLink(cookie);
    await standin("POST", `/_standin/accounts/${(await accountOf(id))!}/onboard`);
    return status(cookie);
  }
  const restrict = async (cookie: string, id: string) => {
    await standin("POST", `/_standin/accounts/${(await accountOf(id))!}/restrict`);
    return status(cookie);
  };

  it("'Bank transfer' is refused as a manual method with a 400, and nothing is saved", async () => {
    const { cookie, id } = await creator("manual-bank@example.com");
    const res = await setup(cookie, { payoutMethod: "bank", payoutEmail: "me@example.com" });
    expect(res.status).toBe(400);
    expect((await res.json<{ message: string }>()).message).toMatch(/paypal, wise, zelle, venmo, cashapp/);
    expect(await row("select method from payout_settings where user_id = ?", id)).toBeNull();
  });

  it("connecting Stripe keeps the creator's PayPal; the creator chooses the default, and that is where the payout goes", async () => {
    const { cookie, id } = await creator("keeps-paypal@example.com");
    expect((await setup(cookie, { payoutMethod: "paypal", payoutEmail: "pp@example.com" })).status).toBe(200);
    expect(await connect(cookie, id)).toMatchObject({ payouts_enabled: true });
    expect(await row("select method, email from payout_settings where user_id = ?", id)).toEqual({
      method: "paypal",
      email: "pp@example.com",
    });
    expect(await me(cookie)).toMatchObject({
      payoutEnabled: true,
      payoutMethod: "paypal",
      payoutEmail: "pp@example.com",
      payoutDestination: "bank",
      payoutDefault: "bank",
    });

    expect((await choose(cookie, { payoutDefault: "manual" })).status).toBe(200);
    expect(await me(cookie)).toMatchObject({ payoutDestination: "manual", payoutDefault: "manual" });
    for (const bad of [{ payoutDefault: "paypal" }, {}, { payoutDefault: "bank", extra: 1 }]) {
      const res = await choose(cookie, bad);
      expect(res.status).toBe(400);
      expect(typeof (await res.json<{ message: string }>()).message).toBe("string");
    }
    expect((await choose(cookie, { payoutDefault: "bank" })).status).toBe(200);
    expect(await me(cookie)).toMatchObject({ payoutDestination: "bank" });
  });

  it("a restricted account falls back to the creator's own PayPal", async () => {
    const { cookie, id } = await creator("restricted-paypal@example.com");
    expect((await setup(cookie, { payoutMethod: "paypal", payoutEmail: "pp2@example.com" })).status).toBe(200);
    await connect(cookie, id);
    expect(await restrict(cookie, id)).toMatchObject({ details_submitted: true, payouts_enabled: false });
    expect(await me(cookie)).toMatchObject({
      payoutEnabled: true,
      payoutMethod: "paypal",
      payoutDestination: "manual",
    });
  });

  it("details submitted but transfers not enabled, and no manual method: 'Payouts Enabled' is not shown and the next payout says why", async () => {
    const { cookie, id } = await creator("restricted-only@example.com");
    await connect(cookie, id);
    expect(await restrict(cookie, id)).toMatchObject({ details_submitted: true, payouts_enabled: false });
    expect(await me(cookie)).toMatchObject({ payoutEnabled: false, payoutMethod: null, payoutDestination: null });
    expect(await nextReason(cookie)).toBe("bank_restricted");
  });

  it("an old manual 'bank' row (no connected account) counts as not set up", async () => {
    const { cookie, id } = await creator("legacy-bank@example.com");
    await env.DB.prepare("insert into payout_settings (user_id, method, email) values (?, 'bank', 'old@example.com')")
      .bind(id)
      .run();
    expect(await me(cookie)).toMatchObject({ payoutEnabled: false, payoutMethod: null, payoutDestination: null });
    expect(await nextReason(cookie)).toBe("not_set_up");
  });
});
