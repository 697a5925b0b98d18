// Limits on the calls anyone can make without an account, per client address, through
// Cloudflare's Rate Limiting binding. Cloudflare always sets CF-Connecting-IP in production; a
// request without it (a local run, a test) is not limited.
import { createMiddleware } from "hono/factory";
import type { Bindings } from "./env";
import { ApiError } from "./errors";

type LimiterName = "FORMS_LIMITER" | "CHECKOUT_LIMITER";

export const rateLimit = (limiter: LimiterName, scope: string) =>
  createMiddleware<{ Bindings: Bindings }>(async (c, next) => {
    const ip = c.req.header("cf-connecting-ip");
    if (ip) {
      const { success } = await c.env[limiter].limit({ key: `${scope}:${ip}` });
      if (!success) {
        c.header("retry-after", "60");
        throw new ApiError(429, "Too many requests. Please wait a minute and try again.");
      }
    }
    await next();
  });
