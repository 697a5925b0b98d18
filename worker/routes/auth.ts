// Sign-in, sign-out and the current user: emailed links everywhere, OAuth where configured.
import { generateCodeVerifier, generateState } from "arctic";
import { and, eq } from "drizzle-orm";
import { Hono, type Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { z } from "zod";
import {
  emailLoginSchema,
  returnToSchema,
  type AuthProviders,
  authProvidersSchema,
  currentUserSchema,
  type SessionProbe,
  sessionProbeSchema,
} from "../../shared/auth";
import { oauthAccounts } from "../db/schema";
import { appUrl, cookieIsSecure, type AppEnv } from "../middleware/context";
import { isDevelopment } from "../lib/env";
import { ApiError, notFound, unauthorized } from "../lib/errors";
import { escapeHtml, messagePage } from "../lib/html";
import { newToken, sha256Hex } from "../lib/ids";
import { humanCheck } from "../lib/human-check";
import { rateLimit } from "../lib/rate-limit";
import { validate } from "../lib/validate";
import { createLoginLink, dropLoginLink, peekLoginToken, redeemLoginToken } from "../services/email-login";
import { configuredProviders, oauthProvider } from "../services/oauth";
import {
  createSession,
  DEFAULT_SESSION_TTL_SECONDS,
  deleteSession,
  readSession,
  SESSION_COOKIE,
} from "../services/sessions";
import { findOrCreateUserByEmail, getCurrentUser } from "../services/users";
import { refreshCreatorItems } from "../lib/public-content-refresh";
import { doc } from "../openapi/describe";
import { sentSchema } from "../../shared/answers";

const OAUTH_COOKIE_MAX_AGE = 10 * 60;

/** `?returnTo=` where a return path enters by URL: anything but one same-origin path is a 400. */
const returnToQuery = z.object({ returnTo: returnToSchema.optional() });

/** A same-site path to return to: the explicit (validated) `returnTo`, else the Referer if it is ours, else "/". */
function safeReturnTo(c: Context<AppEnv>, explicit: string | undefined): string {
  if (explicit) return explicit;
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

/**
 * A redirect to a stored or cookie-borne return path that cannot throw: whatever was written
 * before the door checked it (an old link, a forged cookie) goes home instead.
 */
function redirectBack(c: Context<AppEnv>, path: string | null | undefined) {
  const target = returnToSchema.safeParse(path).success ? path! : "/";
  try {
    return c.redirect(target, 302);
  } catch {
    return c.redirect("/", 302);
  }
}

/** `firstSignIn`: this sign-in created the account, decided here on the server (not by the browser). */
async function startSession(c: Context<AppEnv>, userId: string, firstSignIn = false) {
  // A fresh token at every sign-in; any session cookie sent along is dropped first.
  await deleteSession(c.env.SESSIONS, getCookie(c, SESSION_COOKIE));
  const ttl = Number(c.env.SESSION_TTL_SECONDS) || DEFAULT_SESSION_TTL_SECONDS;
  const token = await createSession(c.env.SESSIONS, userId, ttl, { firstSignIn });
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    secure: cookieIsSecure(c.req.url),
    sameSite: "Lax",
    path: "/",
    maxAge: ttl,
  });
}

const signInError = (c: Context<AppEnv>, error: string) => c.redirect(`/sign-in?error=${error}`, 302);

const LOGIN_COOKIE = "aw_login";
const FIRST_VISIT_MS = 24 * 60 * 60 * 1000;

async function redeemAndSignIn(c: Context<AppEnv>, token: string) {
  const redeemed = await redeemLoginToken(c.var.db, token);
  if (!redeemed) return signInError(c, "link-invalid");
  const user = await findOrCreateUserByEmail(c.var.db, redeemed.email);
  await startSession(c, user.id, user.created);
  return redirectBack(c, redeemed.returnTo);
}

function confirmPage(email: string, token: string): string {
  return messagePage(
    "Sign in to ApeWall",
    `<p>Continue as <strong>${escapeHtml(email)}</strong>? This link was requested in another browser.</p>
<form method="post" action="/api/auth/email/callback"><input type="hidden" name="token" value="${escapeHtml(token)}">
<button type="submit">Continue as ${escapeHtml(email)}</button></form>
<p style="margin-top:16px"><a href="/">Not you? Go to the home page</a></p>`,
  );
}

/**
 * Emails a sign-in link to `email` (none when the mailbox had too many lately; the caller answers the
 * same either way). The API's POST /auth/email and the sign-in page's form post (worker/routes/site-sign-in.tsx).
 */
export async function emailSignInLink(c: Context<AppEnv>, email: string, returnTo: string | undefined): Promise<void> {
  // This browser's key: opening the link here signs in at once; elsewhere it asks to confirm.
  let browserKey = getCookie(c, LOGIN_COOKIE);
  if (!browserKey || !/^[\w-]{20,100}$/.test(browserKey)) {
    browserKey = newToken();
    setCookie(c, LOGIN_COOKIE, browserKey, {
      httpOnly: true,
      secure: cookieIsSecure(c.req.url),
      sameSite: "Lax",
      path: "/api/auth",
      maxAge: 3600,
    });
  }
  const link = await createLoginLink(c.env.DB, {
    email,
    returnTo: returnTo ?? "/",
    appUrl: appUrl(c.env),
    browserKey,
  });
  if (link) {
    // Not through the email outbox: that would store the token itself. The person is here to ask again.
    try {
      await c.env.EMAILS.send(link.job);
    } catch (err) {
      console.error("sign-in link not queued", err);
      await dropLoginLink(c.var.db, link.tokenHash);
      throw new ApiError(503, "We could not send the sign-in email just now. Please try again in a moment.");
    }
  }
}

export const authRoutes = new Hono<AppEnv>()
  .get(
    "/login",
    doc({
      tag: "Account",
      summary: "Go to sign-in, or back if signed in",
      access: "public",
      status: 302,
      ok: { redirect: "To /sign-in?returnTo=…, or to returnTo when already signed in" },
    }),
    validate("query", returnToQuery),
    (c) => {
      const returnTo = safeReturnTo(c, c.req.valid("query").returnTo);
      if (c.var.userId) return redirectBack(c, returnTo);
      return c.redirect(`/sign-in?returnTo=${encodeURIComponent(returnTo)}`, 302);
    },
  )
  // A POST only (a GET could be any cross-site link or image signing the visitor out); the /api
  // guard refuses cross-site posts. 303: the browser goes on to "/" with a GET.
  .post(
    "/logout",
    doc({
      tag: "Account",
      summary: "Sign out",
      access: "session",
      status: 303,
      ok: { redirect: "To the home page, with the session cookie cleared" },
    }),
    async (c) => {
      await deleteSession(c.env.SESSIONS, getCookie(c, SESSION_COOKIE));
      deleteCookie(c, SESSION_COOKIE, { path: "/", secure: cookieIsSecure(c.req.url) });
      return c.redirect("/", 303);
    },
  )
  .get(
    "/auth/user",
    doc({ tag: "Account", summary: "The signed-in user", access: "session", ok: currentUserSchema }),
    async (c) => {
      if (!c.var.userId) throw unauthorized();
      const user = await getCurrentUser(c.var.db, c.var.userId, c.env.ADMIN_EMAIL);
      if (!user) throw unauthorized();
      c.header("cache-control", "private, no-store");
      return c.json(user);
    },
  )
  // The SPA's sign-in probe, asked on every page, signed out too: a 200 either way, so a signed-out
  // visit logs no failed request in the browser's console. Every protected route keeps its 401.
  .get(
    "/auth/me",
    doc({
      tag: "Account",
      summary: "Who is signed in here, if anyone",
      description: "The signed-in user, or null when signed out (never a 401).",
      access: "public",
      ok: sessionProbeSchema,
    }),
    async (c) => {
      const user = c.var.userId ? await getCurrentUser(c.var.db, c.var.userId, c.env.ADMIN_EMAIL) : null;
      const session =
        user && c.var.caller?.kind === "session"
          ? await readSession(c.env.SESSIONS, getCookie(c, SESSION_COOKIE))
          : null;
      c.header("cache-control", "private, no-store");
      // "Welcome" on the day the account was made; a session kept for weeks says "Welcome back" after.
      const firstSignIn = !!session?.firstSignIn && Date.now() - session.createdAt < FIRST_VISIT_MS;
      return c.json({ user, firstSignIn } satisfies SessionProbe);
    },
  )
  .get(
    "/auth/providers",
    doc({ tag: "Account", summary: "How one can sign in here", access: "public", ok: authProvidersSchema }),
    (c) =>
      c.json({
        email: true,
        ...configuredProviders(c.env),
        devOutbox: isDevelopment(c.env) && c.env.MAIL_TRANSPORT === "outbox",
      } satisfies AuthProviders),
  )
  .post(
    "/auth/email",
    doc({
      tag: "Account",
      summary: "Email a sign-in link",
      description: "The same answer whether or not the address has an account.",
      access: "public",
      status: 202,
      ok: sentSchema,
      errors: {
        403: "The bot check refused the Turnstile token (`cf-turnstile-response`)",
        429: "Too many sign-in requests from this address",
        503: "The email could not be queued; try again",
      },
    }),
    rateLimit("FORMS_LIMITER", "login"),
    validate("json", emailLoginSchema),
    humanCheck("sign-in"),
    async (c) => {
      const { email, returnTo } = c.req.valid("json");
      await emailSignInLink(c, email, returnTo);
      // The same answer whether or not a link went out, so the form reveals nothing about the mailbox.
      return c.json({ sent: true }, 202);
    },
  )
  .get(
    "/auth/email/callback",
    doc({
      tag: "Account",
      summary: "Open a sign-in link",
      description:
        "In the browser that asked: signs in and redirects. Elsewhere: a page asking to confirm, so a mail scanner uses nothing up.",
      access: "public",
      ok: { html: "Continue as {email}: a confirm form" },
      also: {
        302: {
          description:
            "Signed in (or the link is invalid): to where the link returns, or the sign-in page with an error",
          answer: { redirect: "Where the browser goes next" },
        },
      },
    }),
    validate("query", z.object({ token: z.string().max(100).optional() })),
    async (c) => {
      const token = c.req.valid("query").token ?? "";
      const pending = await peekLoginToken(c.var.db, token);
      if (!pending) return signInError(c, "link-invalid");
      const key = getCookie(c, LOGIN_COOKIE);
      if (key && pending.browserHash && (await sha256Hex(key)) === pending.browserHash)
        return redeemAndSignIn(c, token);
      // Another browser (or a mail scanner fetching links): nothing is used up until a person confirms.
      return c.html(confirmPage(pending.email, token));
    },
  )
  .post(
    "/auth/email/callback",
    doc({
      tag: "Account",
      summary: "Confirm a sign-in link",
      access: "public",
      status: 302,
      ok: { redirect: "Signed in: to where the link returns; else the sign-in page with an error" },
      body: {
        media: "application/x-www-form-urlencoded",
        description: "token: the link's token",
        schema: z.object({ token: z.string().max(100) }),
      },
    }),
    validate("form", z.object({ token: z.string().max(100) })),
    async (c) => redeemAndSignIn(c, c.req.valid("form").token),
  )
  .get(
    "/auth/oauth/:provider",
    doc({
      tag: "Account",
      summary: "Sign in with Google or GitHub",
      access: "public",
      status: 302,
      ok: { redirect: "To the provider's consent page" },
      errors: { 404: "The provider is not configured here" },
    }),
    validate("query", returnToQuery),
    async (c) => {
      const provider = oauthProvider(c.env, c.req.param("provider"), appUrl(c.env));
      if (!provider) throw notFound("Sign-in provider not available");
      const state = generateState();
      const verifier = generateCodeVerifier();
      const opts = {
        httpOnly: true,
        secure: cookieIsSecure(c.req.url),
        sameSite: "Lax",
        path: "/api/auth/oauth",
        maxAge: OAUTH_COOKIE_MAX_AGE,
      } as const;
      setCookie(c, "oauth_state", state, opts);
      setCookie(c, "oauth_verifier", verifier, opts);
      setCookie(c, "oauth_return", safeReturnTo(c, c.req.valid("query").returnTo), opts);
      return c.redirect(provider.authorizationUrl(state, verifier).toString(), 302);
    },
  )
  .get(
    "/auth/oauth/:provider/callback",
    doc({
      tag: "Account",
      summary: "Back from Google or GitHub",
      access: "public",
      status: 302,
      ok: { redirect: "Signed in: to where sign-in started; else the sign-in page with an error" },
      errors: { 404: "The provider is not configured here" },
    }),
    validate("query", z.object({ code: z.string().max(2000).optional(), state: z.string().max(200).optional() })),
    async (c) => {
      const name = c.req.param("provider") as "google" | "github";
      const provider = oauthProvider(c.env, name, appUrl(c.env));
      if (!provider) throw notFound("Sign-in provider not available");
      const { code, state } = c.req.valid("query");
      const expectedState = getCookie(c, "oauth_state");
      const verifier = getCookie(c, "oauth_verifier") ?? "";
      const returnTo = getCookie(c, "oauth_return");
      for (const name of ["oauth_state", "oauth_verifier", "oauth_return"])
        deleteCookie(c, name, { path: "/api/auth/oauth" });
      if (!code || !state || !expectedState || state !== expectedState) return signInError(c, "state-mismatch");

      let identity: Awaited<ReturnType<typeof provider.identify>>;
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
      let created = false;
      if (!userId) {
        // An unverified address could belong to someone else's account: never link or create by it.
        if (!identity.emailVerified || !identity.email) return signInError(c, "email-unverified");
        const user = await findOrCreateUserByEmail(db, identity.email, identity);
        userId = user.id;
        created = user.created;
        // The name the account lacked is now shown on its items' pages and public answers.
        if (user.named) await refreshCreatorItems(c, db, userId);
        await db
          .insert(oauthAccounts)
          .values({ provider: name, providerUserId: identity.providerUserId, userId })
          .onConflictDoNothing();
      }
      await startSession(c, userId, created);
      return redirectBack(c, returnTo);
    },
  );
