// /api/developer: a creator's API keys and their audit (worker/services/api-keys.ts). Session only:
// the Bearer middleware refuses every API key here, so a key can neither mint nor revoke keys.
// Creating a key also needs a recent sign-in, so a stolen session cookie cannot be turned into a
// long-lived credential.
import { Hono } from "hono";
import {
  API_KEY_MESSAGES,
  API_KEY_RECENT_SIGN_IN_MS,
  apiKeyIdParamSchema,
  createApiKeySchema,
  apiKeySummarySchema,
  createdApiKeySchema,
  developerOverviewSchema,
} from "../../shared/developer";
import { requireUser, type AppEnv } from "../middleware/context";
import { ApiError, notFound } from "../lib/errors";
import { validate } from "../lib/validate";
import { createApiKey, developerOverview, keyEnvTag, revokeApiKey } from "../services/api-keys";
import { doc } from "../openapi/describe";

export const developerRoutes = new Hono<AppEnv>()
  .get(
    "/developer/keys",
    doc({
      tag: "Developers",
      summary: "API keys and their audit log",
      access: "session",
      ok: developerOverviewSchema,
    }),
    requireUser,
    async (c) => c.json(await developerOverview(c.env.DB, c.var.userId)),
  )
  .post(
    "/developer/keys",
    doc({
      tag: "Developers",
      summary: "Create an API key",
      description: "The secret is in this answer only. Needs a sign-in younger than 10 minutes.",
      access: "session",
      status: 201,
      ok: createdApiKeySchema,
      errors: { 409: "At most 20 active keys" },
    }),
    requireUser,
    validate("json", createApiKeySchema),
    async (c) => {
      const caller = c.var.caller;
      if (caller?.kind !== "session" || Date.now() - caller.signedInAt > API_KEY_RECENT_SIGN_IN_MS) {
        throw new ApiError(403, API_KEY_MESSAGES.signInAgain);
      }
      const { name, scopes } = c.req.valid("json");
      const created = await createApiKey(c.env.DB, {
        userId: c.var.userId,
        name,
        scopes,
        envTag: keyEnvTag(c.env.APP_ENV),
        ip: c.req.header("cf-connecting-ip") ?? null,
      });
      return c.json(created, 201);
    },
  )
  .delete(
    "/developer/keys/:id",
    doc({
      tag: "Developers",
      summary: "Revoke an API key",
      access: "session",
      ok: apiKeySummarySchema,
      errors: { 404: "No such key of yours" },
    }),
    requireUser,
    validate("param", apiKeyIdParamSchema),
    async (c) => {
      const revoked = await revokeApiKey(
        c.env.DB,
        c.var.userId,
        c.req.valid("param").id,
        c.req.header("cf-connecting-ip") ?? null,
      );
      if (!revoked) throw notFound("API key not found");
      return c.json(revoked);
    },
  );
