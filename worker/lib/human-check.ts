// Bot protection on the forms anyone can send (docs/security.md, "Bot protection"): each request
// carries a Cloudflare Turnstile token in the `cf-turnstile-response` header, checked once with
// siteverify. A refused token is a 403; no token (the widget could not load: "unavailable", or no
// header at all) and a siteverify that cannot answer both fail open, to UNVERIFIED_LIMITER's stricter
// per-address limit and a site-wide budget, so a real buyer is never stopped by the check itself.
import { createMiddleware } from "hono/factory";
import { HUMAN_CHECK_HEADER, HUMAN_CHECK_REFUSED, HUMAN_CHECK_UNAVAILABLE } from "../../shared/human-check";
import type { Bindings } from "./env";
import { ApiError } from "./errors";
import { clientKey, limitOrThrow } from "./rate-limit";

type TurnstileEnv = Pick<Bindings, "TURNSTILE_SECRET_KEY" | "TURNSTILE_VERIFY_URL">;

const DEFAULT_VERIFY_URL = "https://challenges.cloudflare.com/turnstile/v0/siteverify";
/** A slow siteverify must not hold the buyer up: after this the request goes on unverified. */
const VERIFY_TIMEOUT_MS = 3000;
/** Turnstile's tokens are at most 2,048 characters; a longer one is refused without asking. */
const MAX_TOKEN_LENGTH = 2048;
/** siteverify's verdicts on the token itself; any other error code is ours or Cloudflare's, not the visitor's. */
const TOKEN_REFUSALS = new Set(["invalid-input-response", "timeout-or-duplicate", "missing-input-response"]);

export type HumanCheck =
  | { outcome: "passed" }
  | { outcome: "refused"; codes: string[] }
  | { outcome: "unverified"; reason: string };

let warnedNoSecret = false;

/** What siteverify says of `token` (a header's value, absent or "unavailable" when the widget gave none). */
async function checkHuman(env: TurnstileEnv, token: string | undefined, ip: string | undefined): Promise<HumanCheck> {
  const secret = env.TURNSTILE_SECRET_KEY;
  if (!secret) {
    // A deploy without the secret: every request is held to the strict limit, and the log says why.
    if (!warnedNoSecret)
      console.error("TURNSTILE_SECRET_KEY is not set: bot protection holds every request to UNVERIFIED_LIMITER");
    warnedNoSecret = true;
    return { outcome: "unverified", reason: "no secret configured" };
  }
  if (!token) return { outcome: "unverified", reason: "no token" };
  if (token === HUMAN_CHECK_UNAVAILABLE) return { outcome: "unverified", reason: "widget unavailable" };
  if (token.length > MAX_TOKEN_LENGTH) return { outcome: "refused", codes: ["invalid-input-response"] };
  let answer: { success?: unknown; "error-codes"?: unknown };
  try {
    const res = await fetch(env.TURNSTILE_VERIFY_URL || DEFAULT_VERIFY_URL, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ secret, response: token, ...(ip ? { remoteip: ip } : {}) }),
      signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS),
    });
    if (!res.ok) {
      await res.body?.cancel();
      return { outcome: "unverified", reason: `siteverify answered ${res.status}` };
    }
    answer = await res.json();
  } catch (err) {
    return { outcome: "unverified", reason: `siteverify unreachable: ${err instanceof Error ? err.name : "error"}` };
  }
  if (answer?.success === true) return { outcome: "passed" };
  const codes = Array.isArray(answer?.["error-codes"]) ? answer["error-codes"].map(String) : [];
  if (codes.some((code) => TOKEN_REFUSALS.has(code))) return { outcome: "refused", codes };
  // A wrong secret, a malformed request or Cloudflare's internal error: not the visitor's doing.
  console.error(`siteverify could not judge the token: ${codes.join(", ") || "no error code"}`);
  return { outcome: "unverified", reason: `siteverify: ${codes.join(", ")}` };
}

/**
 * The check as a route's middleware, after its validator (a bad body costs no siteverify call).
 * `scope` names the form in the limiters' keys: beside the client's address (an IPv6 /64) for
 * UNVERIFIED_LIMITER, and `{scope}:all-unverified` for UNVERIFIED_SITE_LIMITER, the budget of all
 * addresses together (in production). Each unverified request is logged with its reason.
 */
export const humanCheck = (scope: string) =>
  createMiddleware<{ Bindings: Bindings }>(async (c, next) => {
    const client = clientKey(c);
    const result = await checkHuman(c.env, c.req.header(HUMAN_CHECK_HEADER), c.req.header("cf-connecting-ip"));
    if (result.outcome === "refused") throw new ApiError(403, HUMAN_CHECK_REFUSED);
    if (result.outcome === "unverified") {
      console.warn(`bot check unverified (${scope}, ${client ?? "no address"}): ${result.reason}`);
      if (client) await limitOrThrow(c, "UNVERIFIED_LIMITER", `${scope}:${client}`);
      if (c.env.APP_ENV === "production") await limitOrThrow(c, "UNVERIFIED_SITE_LIMITER", `${scope}:all-unverified`);
    }
    await next();
  });
