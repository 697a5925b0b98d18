// GET /api/auth/me, the SPA's sign-in probe: 200 with a null user when signed out (the browser logs
// no failed request), the user when signed in, and whether this session's sign-in made the account.
// Every protected route keeps its 401. See docs/security.md.
import { describe, expect, it } from "vitest";
import type { SessionProbe } from "../../../shared/auth";
import { call, signIn } from "../support/helpers";

const me = async (cookie?: string) => {
  const res = await call("/api/auth/me", { cookie });
  expect(res.status).toBe(200);
  expect(res.headers.get("cache-control")).toBe("private, no-store");
  return res.json<SessionProbe>();
};

describe("the sign-in probe", () => {
  it("answers 200 with no user when signed out (or with a stale cookie); protected routes still answer 401", async () => {
    expect(await me()).toEqual({ user: null, firstSignIn: false });
    expect(await me("aw_session=not-a-session")).toEqual({ user: null, firstSignIn: false });
    expect((await call("/api/auth/user")).status).toBe(401);
    expect((await call("/api/earnings/stats")).status).toBe(401);
    expect((await call("/api/analytics/stats")).status).toBe(401);
  });

  it("says firstSignIn for the sign-in that made the account, and not for the next one", async () => {
    const first = await signIn("probe-first@example.com");
    const answer = await me(first);
    expect(answer.firstSignIn).toBe(true);
    expect(answer.user).toMatchObject({ email: "probe-first@example.com" });
    // The same session stays the first visit; /api/auth/user answers the same user.
    expect((await me(first)).firstSignIn).toBe(true);
    expect(await (await call("/api/auth/user", { cookie: first })).json()).toEqual(answer.user);

    const second = await signIn("probe-first@example.com");
    expect(await me(second)).toEqual({ user: answer.user, firstSignIn: false });
  });
});
