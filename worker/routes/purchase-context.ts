// What the buying routes read from a request: the purchase dependencies, this browser's buyer key
// (the HttpOnly aw_buyer cookie, made at its first checkout) and the claim a buyer makes to a
// purchase (that key, or an access link). Behaviour: docs/payments.md.
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { cookieIsSecure, type AppEnv } from "../middleware/context";
import { newToken } from "../lib/ids";
import { BUYER_COOKIE } from "../services/purchases/buyer-access";
import type { PurchaseDeps } from "../services/purchases/deps";
import { purchaseDepsOf } from "../deps";
import { isDevelopment } from "../lib/env";
import { DEV_GEO_HEADER, edgeEvidence } from "../services/tax/evidence";

export function purchaseDeps(c: Context<AppEnv>): PurchaseDeps {
  if (!c.env.ACCESS_TOKEN_SECRET) throw new Error("ACCESS_TOKEN_SECRET is not set");
  return purchaseDepsOf(c.env, c.var.db);
}

/** This browser's buyer key (HttpOnly cookie), created at its first checkout. */
export function buyerKey(c: Context<AppEnv>, create: boolean): string | undefined {
  const existing = getCookie(c, BUYER_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{20,100}$/.test(existing)) return existing;
  if (!create) return undefined;
  const key = newToken();
  setCookie(c, BUYER_COOKIE, key, {
    httpOnly: true,
    secure: cookieIsSecure(c.req.url),
    sameSite: "Lax",
    path: "/",
    maxAge: 365 * 24 * 3600,
  });
  return key;
}

export const claimOf = (c: Context<AppEnv>, access?: string | null) => ({
  buyerKey: buyerKey(c, false),
  access: access ?? c.req.query("access"),
});

/** Where the edge says the buyer is (docs/tax.md): request.cf, or in development the header standing in for it. */
export const edgeOf = (c: Context<AppEnv>) =>
  edgeEvidence(c.req.raw.cf, c.req.header(DEV_GEO_HEADER), isDevelopment(c.env));
