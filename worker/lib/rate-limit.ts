// Limits through Cloudflare's Rate Limiting binding: per client address on the calls anyone can make
// without an account, and per API key on every call made with one (worker/middleware/api-key-auth.ts).
// Every limit keyed by address uses `clientKey` (docs/security.md, "Bot protection", "The client"):
// an IPv6 address counts as its /64 (one subscriber's network), an IPv4 address whole. Cloudflare always sets
// CF-Connecting-IP in production, and a request there without it shares one `noip` bucket; locally
// and in tests a request without it is not limited by address.
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
  | "UNVERIFIED_LIMITER"
  | "UNVERIFIED_SITE_LIMITER";

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

/** An IPv6 address's eight groups (`::` expanded, lower case, no zone), or null when it is not one. */
function ipv6Groups(address: string): string[] | null {
  let text = address.toLowerCase().split("%")[0];
  // An IPv4 tail (::ffff:192.0.2.1) as its two groups.
  const tail = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail.slice(2).map(Number);
    if ([a, b, c, d].some((n) => n > 255)) return null;
    text = `${tail[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...Array<string>(missing).fill("0"), ...rest];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return groups.map((g) => Number.parseInt(g, 16).toString(16));
}

/**
 * The address part of a limiter's key: an IPv4 address whole, an IPv6 address as its /64 prefix
 * (`2001:db8:0:7::/64`; an attacker holds a whole /64, so one bucket per address would be 2^64 of
 * them), an IPv4-mapped IPv6 address as its IPv4 address. Without CF-Connecting-IP: the shared
 * `noip` bucket in production, none (undefined: not limited by address) locally and in tests.
 */
export function clientKey(c: {
  req: { header(name: string): string | undefined };
  env: Pick<Bindings, "APP_ENV">;
}): string | undefined {
  const ip = c.req.header("cf-connecting-ip")?.trim();
  if (!ip) return c.env.APP_ENV === "production" ? "noip" : undefined;
  if (!ip.includes(":")) return ip;
  const groups = ipv6Groups(ip);
  if (!groups) return ip.toLowerCase().slice(0, 64);
  if (groups.slice(0, 5).every((g) => g === "0") && groups[5] === "ffff") {
    const n = (g: string) => Number.parseInt(g, 16);
    return [n(groups[6]) >> 8, n(groups[6]) & 255, n(groups[7]) >> 8, n(groups[7]) & 255].join(".");
  }
  return `${groups.slice(0, 4).join(":")}::/64`;
}

export const rateLimit = (limiter: LimiterName, scope: string) =>
  createMiddleware<{ Bindings: Bindings }>(async (c, next) => {
    const client = clientKey(c);
    if (client) await limitOrThrow(c, limiter, `${scope}:${client}`);
    await next();
  });
