// The buyer's library: a one-time emailed link signs a browser in as an email address (its own
// session, no account), which then reads every purchase paid with it, as the access link would.
// Behaviour: docs/library.md.
import type { Context } from "hono";
import { Hono } from "hono";
import {
  LIBRARY_TEXT,
  libraryAccessSchema,
  libraryIdParam,
  libraryLinkRequestSchema,
  libraryLinkSentSchema,
  libraryListQuerySchema,
  libraryListSchema,
  libraryReceiptSchema,
  librarySessionSchema,
  librarySignedOutSchema,
  librarySignInSchema,
} from "../../shared/library";
import { appUrl, type AppEnv } from "../middleware/context";
import { ApiError, notFound } from "../lib/errors";
import { humanCheck } from "../lib/human-check";
import { rateLimit } from "../lib/rate-limit";
import { validate } from "../lib/validate";
import { doc } from "../openapi/describe";
import { redeemLibraryLink, sendLibraryLink } from "../services/library/links";
import { libraryAccess, libraryPurchases, libraryReceipt, ownedPurchase } from "../services/library/purchases";
import { endLibrarySession, libraryEmailOf, startLibrarySession } from "../services/library/session";
import { purchaseDeps } from "./purchase-context";

const NOT_SIGNED_IN = "Not signed in to the library";
const NO_SUCH_PURCHASE = "Purchase Not Found";

/** The library's email, or 401: only a library session counts (a creator's session gives nothing here). */
async function signedInEmail(c: Context<AppEnv>): Promise<string> {
  const email = await libraryEmailOf(c);
  if (!email) throw new ApiError(401, NOT_SIGNED_IN);
  return email;
}

/** The caller's purchase `id`, or 404 (someone else's is exactly as unknown as one that does not exist). */
async function ownedOr404(c: Context<AppEnv>, id: string) {
  const purchase = await ownedPurchase(c.var.db, await signedInEmail(c), id);
  if (!purchase) throw notFound(NO_SUCH_PURCHASE);
  return purchase;
}

export const libraryRoutes = new Hono<AppEnv>()
  .post(
    "/library/link",
    doc({
      tag: "Buyer library",
      summary: "Email a one-time library sign-in link",
      description:
        "The same answer for any address, bought with or not: the link goes out either way (an address with no purchases opens an empty library). At most 5 links per address per 15 minutes; more are answered alike and not sent.",
      access: "public",
      status: 202,
      ok: libraryLinkSentSchema,
      errors: {
        403: "The bot check refused the Turnstile token (`cf-turnstile-response`)",
        429: "Too many requests from this address",
        503: "The email could not be queued; try again",
      },
    }),
    rateLimit("FORMS_LIMITER", "library"),
    validate("json", libraryLinkRequestSchema),
    humanCheck("library-link"),
    async (c) => {
      await sendLibraryLink(c.env, c.var.db, c.req.valid("json").email, appUrl(c.env));
      return c.json({ message: LIBRARY_TEXT.linkSent }, 202);
    },
  )
  .post(
    "/library/session",
    doc({
      tag: "Buyer library",
      summary: "Sign in to the library with an emailed link",
      description:
        "Uses the link's token up (once; it works 15 minutes) and sets the library's own cookie, aw_library. The link opens the /library page, which posts here only when the buyer presses its button, so a mail scanner opening the link uses nothing up.",
      access: "public",
      ok: librarySessionSchema,
      errors: { 400: "The link has expired, was already used, or is not valid" },
    }),
    validate("json", librarySignInSchema),
    async (c) => {
      const email = await redeemLibraryLink(c.var.db, c.req.valid("json").token);
      if (!email) throw new ApiError(400, LIBRARY_TEXT.linkInvalid);
      await startLibrarySession(c, email);
      return c.json({ email });
    },
  )
  .get(
    "/library/session",
    doc({
      tag: "Buyer library",
      summary: "Who the library is signed in as",
      access: "library",
      ok: librarySessionSchema,
      errors: { 401: NOT_SIGNED_IN },
    }),
    async (c) => c.json({ email: await signedInEmail(c) }),
  )
  .post(
    "/library/sign-out",
    doc({
      tag: "Buyer library",
      summary: "Sign out of the library",
      description: "Ends the library session (a creator's session, if any, is left alone).",
      access: "public",
      ok: librarySignedOutSchema,
    }),
    async (c) => {
      await endLibrarySession(c);
      return c.json({ signedOut: true as const });
    },
  )
  .get(
    "/library/purchases",
    doc({
      tag: "Buyer library",
      summary: "Every purchase paid with the signed-in address, a page at a time",
      description:
        "Across all creators, newest first, 50 a page: pass the answer's nextCursor as cursor for the next page (null on the last). Refunded and disputed purchases are listed as such; checkouts never paid are not.",
      access: "library",
      ok: libraryListSchema,
      errors: { 400: "The cursor is malformed", 401: NOT_SIGNED_IN },
    }),
    validate("query", libraryListQuerySchema),
    async (c) => c.json(await libraryPurchases(c.var.db, await signedInEmail(c), c.req.valid("query").cursor)),
  )
  .get(
    "/library/purchases/:id",
    doc({
      tag: "Buyer library",
      summary: "Open a purchase: what its access link opens",
      description: "Read only, exactly what the purchase's access link gives (its files, link, text, license key).",
      access: "library",
      ok: libraryAccessSchema,
      errors: {
        401: NOT_SIGNED_IN,
        403: "Access to this purchase was revoked after a refund or dispute",
        404: "No such purchase with this address",
      },
    }),
    validate("param", libraryIdParam),
    async (c) => {
      const owned = await ownedOr404(c, c.req.valid("param").id);
      return c.json(await libraryAccess(purchaseDeps(c), owned));
    },
  )
  .get(
    "/library/purchases/:id/receipt",
    doc({
      tag: "Buyer library",
      summary: "A purchase's receipt",
      access: "library",
      ok: libraryReceiptSchema,
      errors: { 401: NOT_SIGNED_IN, 404: "No such purchase with this address" },
    }),
    validate("param", libraryIdParam),
    async (c) => {
      const owned = await ownedOr404(c, c.req.valid("param").id);
      return c.json(await libraryReceipt(purchaseDeps(c), owned));
    },
  );
