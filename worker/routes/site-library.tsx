/** @jsxImportSource hono/jsx */
// /library, the buyer's library (docs/library.md, docs/pages.md): with a valid `aw_library` cookie
// the buyer's purchases, finished in the HTML, a page (`?cursor=`) at a time; without it the "Email
// me a sign-in link" form. It depends on the visitor: rendered per request, never kept by a cache.
// Two plain form posts work with no script: the link form (POST /library, the API's own send step,
// rate limit and bot check) and 'Sign out' (POST /library/sign-out).
import { Hono, type Context, type MiddlewareHandler } from "hono";
import { csrf } from "hono/csrf";
import { LIBRARY_ENDED_PARAM } from "../../shared/library-text";
import { libraryLinkRequestSchema, libraryPageQuerySchema } from "../../shared/library";
import { LOST_ACCESS_TEXT } from "../../shared/paywall";
import { createDb } from "../db/client";
import { ApiError } from "../lib/errors";
import { humanCheck } from "../lib/human-check";
import { rateLimit } from "../lib/rate-limit";
import { readForm } from "../lib/site-form";
import { sendPrivatePage } from "../lib/site-page";
import { appUrl, type AppEnv } from "../middleware/context";
import { LibrarySignedIn, LibrarySignedOut, type SignedOutView } from "../pages/library";
import { sendLibraryLink } from "../services/library/links";
import { libraryCards } from "../services/library/purchases";
import { endLibrarySession, libraryEmailOf } from "../services/library/session";
import { purchaseDeps } from "./purchase-context";

type Ctx = Context<AppEnv>;
const SHELL = "/shells/library";

const head = '<meta name="robots" content="noindex" />';

function signedOutPage(c: Ctx, view: SignedOutView, status = 200) {
  return sendPrivatePage(
    c,
    {
      shell: SHELL,
      title: "Your library · ApeWall",
      description: "Everything you bought on ApeWall, from every creator, in one place.",
      head,
      body: String(<LibrarySignedOut {...view} />),
    },
    status,
  );
}

/** Runs the API route's checks (its limit, its bot check) in order; a refusal throws its ApiError. */
async function passes(c: Ctx, ...checks: MiddlewareHandler<{ Bindings: AppEnv["Bindings"] }>[]) {
  for (const check of checks) await check(c as never, async () => {});
}

export const siteLibraryRoutes = new Hono<AppEnv>()
  .use("/library/*", async (c, next) => {
    c.set("db", createDb(c.env.DB));
    await next();
  })
  .use("/library", async (c, next) => {
    c.set("db", createDb(c.env.DB));
    await next();
  })
  // A mangled query (a cursor edited by hand) is a 400 with the page from its start, not the API's JSON.
  .get("/library", async (c) => {
    const parsed = libraryPageQuerySchema.safeParse(c.req.query());
    const query = parsed.success ? parsed.data : {};
    const status = parsed.success ? 200 : 400;
    const email = await libraryEmailOf(c);
    if (!email) return signedOutPage(c, { ended: query[LIBRARY_ENDED_PARAM] === "1" }, status);
    const { cards, nextCursor } = await libraryCards(purchaseDeps(c), email, query.cursor);
    return sendPrivatePage(
      c,
      {
        shell: SHELL,
        title: "Your library · ApeWall",
        head,
        body: String(<LibrarySignedIn email={email} cards={cards} nextCursor={nextCursor} paged={!!query.cursor} />),
      },
      status,
    );
  })
  // "Email me a sign-in link" with no script: the same answer for any address, as the API gives.
  // Read as the other pages' forms are (worker/lib/site-form.ts): a cross-site post, an oversized or
  // malformed body is answered with this page (403, 413, or 400 as an empty address), never a 5xx.
  .post("/library", async (c) => {
    const form = await readForm(c);
    if ("refused" in form)
      return signedOutPage(c, { ended: false, problem: form.refused.message }, form.refused.status);
    const typed = (form.fields.email ?? "").trim();
    if (!typed) return signedOutPage(c, { ended: false, problem: LOST_ACCESS_TEXT.emptyEmail }, 400);
    const parsed = libraryLinkRequestSchema.safeParse({ email: typed });
    if (!parsed.success)
      return signedOutPage(
        c,
        { ended: false, email: typed.slice(0, 200), problem: LOST_ACCESS_TEXT.invalidEmail },
        400,
      );
    try {
      await passes(c, rateLimit("FORMS_LIMITER", "library"), humanCheck("library-link"));
      await sendLibraryLink(c.env, c.var.db, parsed.data.email, appUrl(c.env));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const problem = err.status === 429 ? LOST_ACCESS_TEXT.tooMany : LOST_ACCESS_TEXT.failed;
      return signedOutPage(c, { ended: false, email: typed, problem }, err.status);
    }
    return signedOutPage(c, { ended: false, sent: true });
  })
  // 'Sign out' with no script (the island calls POST /api/library/sign-out, and says when it failed).
  .post("/library/sign-out", csrf(), async (c) => {
    await endLibrarySession(c);
    return c.redirect("/library", 303);
  });
