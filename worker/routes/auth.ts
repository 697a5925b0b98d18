// Sign-in, sign-out and the current user: emailed links everywhere, OAuth where configured.
import { generateCodeVerifier, generateState } from "arctic";
import { and, eq } from "drizzle-orm";
import { Hono, type Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { z } from "zod";
import { emailLoginSchema, returnToSchema, type AuthProviders } from "../../shared/schemas";
import { oauthAccounts } from "../db/schema";
import { appUrl, cookieIsSecure, type AppEnv } from "../lib/context";
import { isDevelopment } from "../lib/env";
import { notFound, unauthorized } from "../lib/errors";
import { validate } from "../lib/validate";
import { createLoginLink, redeemLoginToken } from "../services/email-login";
import { configuredProviders, oauthProvider } from "../services/oauth";
import { createSession, DEFAULT_SESSION_TTL_SECONDS, deleteSession, SESSION_COOKIE } from "../services/sessions";
import { findOrCreateUserByEmail, getCurrentUser } from "../services/users";

const OAUTH_COOKIE_MAX_AGE = 10 * 60;

/** A same-site path to return to: the explicit `returnTo`, else the Referer if it is ours, else "/". */
function safeReturnTo(c: Context<AppEnv>): string {
  const explicit = returnToSchema.safeParse(c.req.query("returnTo"));
  if (explicit.success) return explicit.data;
  const referer = c.req.header("referer");
  if (referer) {
    try {
      const ref = new URL(referer);
      if (ref.origin === new URL(appUrl(c.env)).origin || ref.origin === new URL(c.req.url).origin) {
        const path = ref.pathname + ref.search;
        if (returnToSchema.safeParse(path).success && !path.startsWith("/sign-in")) return path;
      }
    } catch {
      // An unparsable Referer is ignored.
    }
  }
  return "/";
}

async function startSession(c: Context<AppEnv>, userId: string) {
  // A fresh token at every sign-in; any session cookie sent along is dropped first.
  await deleteSession(c.env.SESSIONS, getCookie(c, SESSION_COOKIE));
  const ttl = Number(c.env.SESSION_TTL_SECONDS) || DEFAULT_SESSION_TTL_SECONDS;
  const token = await createSession(c.env.SESSIONS, userId, ttl);
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    secure: cookieIsSecure(c.req.url),
    sameSite: "Lax",
    path: "/",
    maxAge: ttl,
  });
}

const signInError = (c: Context<AppEnv>, error: string) => c.redirect(`/sign-in?error=${error}`, 302);

export const authRoutes = new Hono<AppEnv>()
  .get("/login", (c) => {
    const returnTo = safeReturnTo(c);
    if (c.var.userId) return c.redirect(returnTo, 302);
    return c.redirect(`/sign-in?returnTo=${encodeURIComponent(returnTo)}`, 302);
  })
  .get("/logout", async (c) => {
    await deleteSession(c.env.SESSIONS, getCookie(c, SESSION_COOKIE));
    deleteCookie(c, SESSION_COOKIE, { path: "/", secure: cookieIsSecure(c.req.url) });
    return c.redirect("/", 302);
  })
  .get("/auth/user", async (c) => {
    if (!c.var.userId) throw unauthorized();
    const user = await getCurrentUser(c.var.db, c.var.userId, c.env.ADMIN_EMAIL);
    if (!user) throw unauthorized();
    return c.json(user);
  })
  .get("/auth/providers", (c) =>
    c.json({ email: true, ...configuredProviders(c.env), devOutbox: isDevelopment(c.env) && c.env.MAIL_TRANSPORT === "outbox" } satisfies AuthProviders),
  )
  .post("/auth/email", validate("json", emailLoginSchema), async (c) => {
    const { email, returnTo } = c.req.valid("json");
    const job = await createLoginLink(c.var.db, { email, returnTo: returnTo ?? "/", appUrl: appUrl(c.env) });
    if (job) await c.env.EMAILS.send(job);
    // The same answer whether or not a link went out, so the form reveals nothing about the mailbox.
    return c.json({ sent: true }, 202);
  })
  .get("/auth/email/callback", validate("query", z.object({ token: z.string().max(100).optional() })), async (c) => {
    const redeemed = await redeemLoginToken(c.var.db, c.req.valid("query").token ?? "");
    if (!redeemed) return signInError(c, "link-invalid");
    const userId = await findOrCreateUserByEmail(c.var.db, redeemed.email);
    await startSession(c, userId);
    return c.redirect(redeemed.returnTo, 302);
  })
  .get("/auth/oauth/:provider", async (c) => {
    const provider = oauthProvider(c.env, c.req.param("provider"), appUrl(c.env));
    if (!provider) throw notFound("Sign-in provider not available");
    const state = generateState();
    const verifier = generateCodeVerifier();
    const opts = { httpOnly: true, secure: cookieIsSecure(c.req.url), sameSite: "Lax", path: "/api/auth/oauth", maxAge: OAUTH_COOKIE_MAX_AGE } as const;
    setCookie(c, "oauth_state", state, opts);
    setCookie(c, "oauth_verifier", verifier, opts);
    setCookie(c, "oauth_return", safeReturnTo(c), opts);
    return c.redirect(provider.authorizationUrl(state, verifier).toString(), 302);
  })
  .get(
    "/auth/oauth/:provider/callback",
    validate("query", z.object({ code: z.string().max(2000).optional(), state: z.string().max(200).optional() })),
    async (c) => {
      const name = c.req.param("provider") as "google" | "github";
      const provider = oauthProvider(c.env, name, appUrl(c.env));
      if (!provider) throw notFound("Sign-in provider not available");
      const { code, state } = c.req.valid("query");
      const expectedState = getCookie(c, "oauth_state");
      const verifier = getCookie(c, "oauth_verifier") ?? "";
      const returnTo = returnToSchema.safeParse(getCookie(c, "oauth_return"));
      for (const name of ["oauth_state", "oauth_verifier", "oauth_return"]) deleteCookie(c, name, { path: "/api/auth/oauth" });
      if (!code || !state || !expectedState || state !== expectedState) return signInError(c, "state-mismatch");

      let identity;
      try {
        identity = await provider.identify(code, verifier);
      } catch (err) {
        console.warn("oauth exchange failed", name, err);
        return signInError(c, "oauth-failed");
      }
      const db = c.var.db;
      const linked = await db
        .select({ userId: oauthAccounts.userId })
        .from(oauthAccounts)
        .where(and(eq(oauthAccounts.provider, name), eq(oauthAccounts.providerUserId, identity.providerUserId)))
        .get();
      let userId = linked?.userId;
      if (!userId) {
        // An unverified address could belong to someone else's account: never link or create by it.
        if (!identity.emailVerified || !identity.email) return signInError(c, "email-unverified");
        userId = await findOrCreateUserByEmail(db, identity.email, identity);
        await db
          .insert(oauthAccounts)
          .values({ provider: name, providerUserId: identity.providerUserId, userId })
          .onConflictDoNothing();
      }
      await startSession(c, userId);
      return c.redirect(returnTo.success ? returnTo.data : "/", 302);
    },
  );
