// Payout destinations are protected like API keys: changing the manual method, its email or the
// default needs a sign-in younger than 10 minutes, is audited (who, when, what, from which IP) and
// emails the creator at their account address, naming the old destination and masking the new one.
import { describe, expect, it, vi } from "vitest";
import { maskEmail, PAYOUT_DESTINATION_MESSAGES } from "../../../shared/payout-destination";
import { sha256Hex } from "../../lib/ids";
import { call, env, outbox, row, rows, signIn } from "../support/helpers";

async function creator(email: string) {
  const cookie = await signIn(email);
  const userId = (await row<{ id: string }>("select id from users where email = ?", email))!.id;
  return { cookie, userId };
}

/** Makes the session behind `cookie` look signed in `minutesAgo`. */
async function ageSession(cookie: string, minutesAgo: number) {
  const kvKey = `session:${await sha256Hex(cookie.split("=")[1])}`;
  const record = await env.SESSIONS.get<{ userId: string; createdAt: number }>(kvKey, "json");
  await env.SESSIONS.put(kvKey, JSON.stringify({ ...record, createdAt: Date.now() - minutesAgo * 60_000 }));
}

const post = (path: string, body: unknown, cookie: string, ip = "203.0.113.7") =>
  call(path, {
    method: "POST",
    headers: { "content-type": "application/json", "cf-connecting-ip": ip },
    body: JSON.stringify(body),
    cookie,
  });
const setup = (cookie: string, payoutMethod: string, payoutEmail: string, ip?: string) =>
  post("/api/payout/setup", { payoutMethod, payoutEmail }, cookie, ip);
const choose = (cookie: string, payoutDefault: "bank" | "manual", ip?: string) =>
  post("/api/payout/default", { payoutDefault }, cookie, ip);

const events = (userId: string) =>
  rows<{ field: string; old_value: string | null; new_value: string; ip: string | null; at: number }>(
    "select field, old_value, new_value, ip, at from payout_destination_events where user_id = ? order by at, rowid",
    userId,
  );
const mailsTo = async (to: string) =>
  (await outbox()).filter((m) => m.to === to && m.subject === "Your payout destination was changed");
const waitForNotices = (to: string, n: number) =>
  vi.waitUntil(async () => ((await mailsTo(to)).length >= n ? mailsTo(to) : undefined), {
    timeout: 10_000,
    interval: 100,
  });

describe("a recent sign-in is needed", () => {
  it("a session signed in more than 10 minutes ago cannot change the method, its email or the default: 403 asking to sign in again, nothing changed", async () => {
    const email = "dest-old-session@example.com";
    const { cookie, userId } = await creator(email);
    expect((await setup(cookie, "paypal", "mine@example.com")).status).toBe(200);
    await env.DB.prepare(
      "update payout_settings set stripe_account_id = ?, connect_payouts_enabled = 1 where user_id = ?",
    )
      .bind(`acct_old_${userId}`, userId)
      .run();
    const before = await row("select method, email, payout_default from payout_settings where user_id = ?", userId);
    const eventsBefore = (await events(userId)).length;

    await ageSession(cookie, 11);
    for (const res of [await setup(cookie, "wise", "thief@example.com"), await choose(cookie, "manual")]) {
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ message: PAYOUT_DESTINATION_MESSAGES.signInAgain });
    }
    expect(await row("select method, email, payout_default from payout_settings where user_id = ?", userId)).toEqual(
      before,
    );
    expect(await events(userId)).toHaveLength(eventsBefore);

    // Nine minutes is recent enough.
    await ageSession(cookie, 9);
    expect((await setup(cookie, "wise", "mine@wise.example")).status).toBe(200);
  });
});

describe("a change is audited and emailed to the account's address", () => {
  it("method and email: the audit row says what changed, when and from which IP; the email names the old destination and masks the new one", async () => {
    const email = "dest-change@example.com";
    const { cookie, userId } = await creator(email);
    const t0 = Date.now();
    expect((await setup(cookie, "paypal", "old.payee@example.com", "198.51.100.1")).status).toBe(200);
    expect((await setup(cookie, "wise", "new.payee@example.com", "203.0.113.7")).status).toBe(200);

    expect(await events(userId)).toEqual([
      {
        field: "manual_method",
        old_value: null,
        new_value: "paypal old.payee@example.com",
        ip: "198.51.100.1",
        at: expect.any(Number),
      },
      {
        field: "manual_method",
        old_value: "paypal old.payee@example.com",
        new_value: "wise new.payee@example.com",
        ip: "203.0.113.7",
        at: expect.any(Number),
      },
    ]);
    expect((await events(userId))[1].at).toBeGreaterThanOrEqual(t0);

    const mails = await waitForNotices(email, 2);
    expect(mails).toHaveLength(2);
    const latest = mails[0];
    expect(latest.text).toContain("PayPal (old.payee@example.com)");
    expect(latest.text).toContain("Wise (n***@example.com)");
    expect(latest.text).toContain("203.0.113.7");
    expect(latest.text + latest.html).not.toContain("new.payee@example.com");

    // The same values again change nothing: no audit row, no email.
    expect((await setup(cookie, "wise", "new.payee@example.com")).status).toBe(200);
    expect(await events(userId)).toHaveLength(2);
    expect(
      await row<{ n: number }>(
        "select count(*) as n from outbox_emails where json_extract(job, '$.template') = 'payout-destination-changed' and json_extract(job, '$.to') = ?",
        email,
      ),
    ).toEqual({ n: 2 });
  });

  it("the default: bank to manual is audited and emailed, naming the bank and masking the manual email", async () => {
    const email = "dest-default@example.com";
    const { cookie, userId } = await creator(email);
    expect((await setup(cookie, "venmo", "payee@venmo.example")).status).toBe(200);
    await env.DB.prepare(
      "update payout_settings set stripe_account_id = ?, connect_payouts_enabled = 1 where user_id = ?",
    )
      .bind(`acct_def_${userId}`, userId)
      .run();
    await waitForNotices(email, 1);

    expect((await choose(cookie, "manual", "192.0.2.44")).status).toBe(200);
    expect((await events(userId)).at(-1)).toEqual({
      field: "default",
      old_value: "bank",
      new_value: "manual",
      ip: "192.0.2.44",
      at: expect.any(Number),
    });
    const [latest] = await waitForNotices(email, 2);
    expect(latest.text).toContain("Bank account (Stripe)");
    expect(latest.text).toContain("Venmo (p***@venmo.example)");
    expect(latest.text).not.toContain("payee@venmo.example");

    expect((await choose(cookie, "manual")).status).toBe(200);
    expect((await events(userId)).filter((e) => e.field === "default")).toHaveLength(1);
  });
});

it("masks an email to its first letter and domain", () => {
  expect(maskEmail("pat@example.com")).toBe("p***@example.com");
  expect(maskEmail("x@y.co")).toBe("x***@y.co");
});
