// Changes that would let a stolen session cookie take money or mint credentials (API keys, where
// payouts go) need a session signed in a short while ago: an API key, or an older session, gets 403
// with a message that asks to sign in again (the SPA recognises "sign in again").
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./context";
import { ApiError } from "../lib/errors";

export const requireRecentSignIn = (maxAgeMs: number, message: string) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const caller = c.var.caller;
    if (caller?.kind !== "session" || Date.now() - caller.signedInAt > maxAgeMs) throw new ApiError(403, message);
    await next();
  });
