// Limits through Cloudflare's Rate Limiting binding: per client address on the calls anyone can make
// without an account, and per API key on every call made with one (worker/middleware/api-key-auth.ts).
// Cloudflare always sets CF-Connecting-IP in production; a request without it (a local run, a test)
// is not limited by address.
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { Bindings } from "./env";
import { ApiError } from "./errors";

type LimiterName =
  | "FORMS_LIMITER"
  | "CHECKOUT_LIMITER"
  | "API_KEY_LIMITER"
  | "API_KEY_IP_LIMITER"
  | "LICENSE_IP_LIMITER"
  | "LICENSE_KEY_LIMITER"
  | "UNVERIFIED_LIMITER";

export const TOO_MANY_REQUESTS = "Too many requests. Please wait a minute and try again.";

/** Whether `key` is over `limiter`'s limit now (this call counts as one). */
export async function overLimit(env: Bindings, limiter: LimiterName, key: string): Promise<boolean> {
  return !(await env[limiter].limit({ key })).success;
}

/** 429 with Retry-After (the limiters count per minute) once `key` is over `limiter`'s limit. */
export async function limitOrThrow(
  c: Context<{ Bindings: Bindings }>,
  limiter: LimiterName,
  key: string,
): Promise<void> {
  if (await overLimit(c.env, limiter, key)) {
    c.header("retry-after", "60");
    throw new ApiError(429, TOO_MANY_REQUESTS);
  }
}

export const rateLimit = (limiter: LimiterName, scope: string) =>
  createMiddleware<{ Bindings: Bindings }>(async (c, next) => {
    const ip = c.req.header("cf-connecting-ip");
    if (ip) await limitOrThrow(c, limiter, `${scope}:${ip}`);
    await next();
  });
