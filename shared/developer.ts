// API keys (/settings → Developers): the closed set of scopes, the create form's rules
// (shared by the form and POST /api/developer/keys) and what the key routes answer.
import { z } from "zod";
import { isoTime, publicId } from "./answers";

/** Every scope a key can hold. A route names the one it needs (worker/middleware/api-key-scopes.ts). */
export const API_KEY_SCOPES = [
  "content:read",
  "content:write",
  "sales:read",
  "payouts:read",
  "webhooks:write",
] as const;
const apiKeyScopeSchema = z.enum(API_KEY_SCOPES);
export type ApiKeyScope = z.infer<typeof apiKeyScopeSchema>;

export const API_KEY_SCOPE_LABELS: Record<ApiKeyScope, string> = {
  "content:read": "Read your items and funnels",
  "content:write": "Create, edit and delete your items and funnels",
  "sales:read": "Read your sales and analytics",
  "payouts:read": "Read your balance and payouts",
  "webhooks:write": "Manage your webhook endpoints",
};

export const MAX_ACTIVE_API_KEYS = 20;
export const MAX_API_KEY_NAME_CHARS = 60;
/** Creating a key needs a sign-in this recent: a stolen session cookie cannot mint a long-lived key. */
export const API_KEY_RECENT_SIGN_IN_MS = 10 * 60 * 1000;

export const API_KEY_MESSAGES = {
  name: `Name must be 1 to ${MAX_API_KEY_NAME_CHARS} characters`,
  scopes: "Choose at least one scope",
  tooMany: `You can have at most ${MAX_ACTIVE_API_KEYS} active API keys. Revoke one you no longer use first.`,
  signInAgain: `For your security, creating an API key needs a sign-in from the last ${API_KEY_RECENT_SIGN_IN_MS / 60_000} minutes. Please sign in again.`,
  notForKeys: "This route is not available to API keys",
  keysCannotManageKeys: "API keys cannot manage API keys. Sign in to /settings to do that.",
  missingScope: (scope: ApiKeyScope) => `This API key lacks the scope ${scope}`,
} as const;

export const createApiKeySchema = z.object({
  name: z
    .string({ error: API_KEY_MESSAGES.name })
    .trim()
    .min(1, API_KEY_MESSAGES.name)
    .max(MAX_API_KEY_NAME_CHARS, API_KEY_MESSAGES.name)
    .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), API_KEY_MESSAGES.name),
  scopes: z
    .array(apiKeyScopeSchema, { error: API_KEY_MESSAGES.scopes })
    .min(1, API_KEY_MESSAGES.scopes)
    .max(API_KEY_SCOPES.length)
    .transform((s) => [...new Set(s)]),
});

export const apiKeyIdParamSchema = z.object({ id: z.string().min(1).max(40) });

export const apiKeySummarySchema = z.object({
  id: publicId,
  name: z.string(),
  prefix: z.string().meta({ example: "aw_live_3kQ9" }),
  scopes: z.array(apiKeyScopeSchema),
  createdAt: isoTime,
  lastUsedAt: isoTime.nullable(),
  revokedAt: isoTime.nullable(),
});
export type ApiKeySummary = z.infer<typeof apiKeySummarySchema>;

/** POST /api/developer/keys: the only answer that ever holds the secret. */
export const createdApiKeySchema = apiKeySummarySchema.extend({
  key: z.string().meta({ description: "The secret: shown in this answer only" }),
});
export type CreatedApiKey = z.infer<typeof createdApiKeySchema>;

const apiKeyEventSchema = z.object({
  id: publicId,
  keyId: z.string(),
  keyName: z.string(),
  action: z.enum(["created", "revoked", "used", "used_denied"]),
  detail: z.string().nullable(),
  ip: z.string().nullable(),
  at: isoTime,
});
export type ApiKeyEvent = z.infer<typeof apiKeyEventSchema>;

export const developerOverviewSchema = z.object({
  keys: z.array(apiKeySummarySchema),
  events: z.array(apiKeyEventSchema),
});
export type DeveloperOverview = z.infer<typeof developerOverviewSchema>;

/** Calls a minute per API key: wrangler.toml's API_KEY_LIMITER (`simple = { limit = 60, period = 60 }`), stated for the API document. */
export const API_KEY_RATE_LIMIT_PER_MINUTE = 60;
