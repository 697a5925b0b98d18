/** @jsxImportSource hono/jsx */
// /sign-in, rendered here for each request (docs/pages.md): it depends on `?returnTo=`, `?error=` and
// the configured providers, and reads no database. A signed-in visitor goes on to returnTo, as
// /api/login sends them. The form posts here without JavaScript (worker/lib/site-form.ts); with it,
// web/site/sign-in.ts sends POST /api/auth/email with the bot check's token instead.
import { Hono, type Context } from "hono";
import { getCookie } from "hono/cookie";
import { emailSchema } from "../../shared/auth";
import { isSameOriginPath } from "../../shared/return-path";
import { SIGN_IN_ERRORS, SIGN_IN_TEXT } from "../../shared/sign-in";
import { isDevelopment } from "../lib/env";
import { ApiError } from "../lib/errors";
import { guardForm, readForm, withCookies } from "../lib/site-form";
import { sendPrivatePage } from "../lib/site-page";
import type { AppEnv } from "../middleware/context";
import { type SignInView, SignInPage } from "../pages/sign-in";
import { configuredProviders } from "../services/oauth";
import { readSession, SESSION_COOKIE } from "../services/sessions";
import { emailSignInLink } from "./auth";

type Ctx = Context<AppEnv>;

/** `?returnTo=` when it is one path on this site, else home (the SPA's page dropped a bad one too). */
const returnPath = (value: string | undefined) => (isSameOriginPath(value) ? value : "/");

function render(c: Ctx, view: Omit<SignInView, "providers" | "devOutbox">, status = 200) {
  const body = (
    <SignInPage
      view={{
        ...view,
        providers: configuredProviders(c.env),
        devOutbox: isDevelopment(c.env) && c.env.MAIL_TRANSPORT === "outbox",
      }}
    />
  ).toString() as string;
  return sendPrivatePage(c, { shell: "/shells/sign-in", title: SIGN_IN_TEXT.title, body }, status);
}

export const signInPageRoutes = new Hono<AppEnv>()
  .get("/sign-in", async (c) => {
    const returnTo = returnPath(c.req.query("returnTo"));
    if (await readSession(c.env.SESSIONS, getCookie(c, SESSION_COOKIE))) {
      try {
        return c.redirect(returnTo, 302);
      } catch {
        // A path a header cannot carry (the API's redirectBack does the same).
        return c.redirect("/", 302);
      }
    }
    const code = c.req.query("error");
    const error = code && Object.hasOwn(SIGN_IN_ERRORS, code) ? SIGN_IN_ERRORS[code] : null;
    return render(c, { returnTo, error });
  })
  // The form without JavaScript: the same limit, bot check and link as POST /api/auth/email.
  .post("/sign-in", async (c) => {
    const form = await readForm(c);
    if ("refused" in form) {
      return render(c, { returnTo: "/", error: null, formError: form.refused.message }, form.refused.status);
    }
    const returnTo = returnPath(form.fields.returnTo);
    const typed = (form.fields.email ?? "").slice(0, 320);
    const email = emailSchema.safeParse(typed);
    if (!email.success) {
      return render(c, { returnTo, error: null, email: typed, emailError: SIGN_IN_TEXT.emailInvalid }, 400);
    }
    const refused = await guardForm(c, "login", "sign-in");
    if (refused) return render(c, { returnTo, error: null, email: typed, formError: refused.message }, refused.status);
    try {
      await emailSignInLink(c, email.data, returnTo);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return render(c, { returnTo, error: null, email: typed, formError: err.message }, err.status === 503 ? 503 : 400);
    }
    return withCookies(c, await render(c, { returnTo, error: null, sentTo: email.data }));
  });
