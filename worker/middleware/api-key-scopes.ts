// Which creator routes an API key may call, and the scope each needs: the one table the Bearer
// middleware (./api-key-auth.ts) reads, and the OpenAPI document reads to mark each route's scope.
// A route that is not here refuses every key with 403 "This route is not available to API keys":
// the admin's routes, everything that moves money or sets where it goes, profile writes, sign-in
// and sign-out, the buyer's routes, and /api/developer/keys (a key cannot mint or revoke keys).
// Paths are as routed under /api; HEAD is checked as GET. See docs/api-and-webhooks.md.
import type { ApiKeyScope } from "../../shared/developer";

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export const API_KEY_ROUTES: readonly (readonly [Method, string, ApiKeyScope])[] = [
  // items (worker/routes/content.ts), their uploads (uploads.ts) and funnels (funnels.ts)
  ["GET", "/content", "content:read"],
  ["GET", "/content/:id", "content:read"],
  ["GET", "/content/:id/preview-image", "content:read"],
  ["POST", "/content", "content:write"],
  ["PATCH", "/content/:id", "content:write"],
  ["PUT", "/content/:id/published", "content:write"],
  ["DELETE", "/content/:id", "content:write"],
  ["GET", "/uploads/:id", "content:read"],
  ["POST", "/uploads", "content:write"],
  ["PUT", "/uploads/:id/parts/:partNumber", "content:write"],
  ["POST", "/uploads/:id/complete", "content:write"],
  ["DELETE", "/uploads/:id", "content:write"],
  ["GET", "/funnels", "content:read"],
  ["GET", "/funnels/:id/steps", "content:read"],
  ["GET", "/funnels/:id/ab-tests", "content:read"],
  ["POST", "/funnels/:id/ab-tests", "content:write"],
  ["POST", "/funnels/:id/ab-tests/:testId/end", "content:write"],
  ["GET", "/funnels/:id/preview", "content:read"],
  ["POST", "/funnels", "content:write"],
  ["POST", "/funnels/for-item", "content:write"],
  ["PATCH", "/funnels/:id", "content:write"],
  ["POST", "/funnels/:id/products", "content:write"],
  ["DELETE", "/funnels/:id/products/:contentId", "content:write"],
  ["POST", "/funnels/:id/steps", "content:write"],
  ["PATCH", "/funnels/:id/steps/:stepId", "content:write"],
  ["DELETE", "/funnels/:id/steps/:stepId", "content:write"],
  ["POST", "/stripe/create-upsell-product", "content:write"],
  // discount codes (discounts.ts)
  ["GET", "/discounts", "content:read"],
  ["POST", "/discounts", "content:write"],
  ["POST", "/discounts/:id/archive", "content:write"],
  ["PUT", "/content/:id/checkout-reminders", "content:write"],
  ["PUT", "/content/:id/bump", "content:write"],
  ["DELETE", "/content/:id/bump", "content:write"],
  ["GET", "/content/:id/discount", "content:read"],
  // the public profile, read only (profile.ts)
  ["GET", "/profile", "content:read"],
  // sales (creator.ts, analytics.ts)
  ["GET", "/creator/sales", "sales:read"],
  ["GET", "/earnings/stats", "sales:read"],
  ["GET", "/analytics/stats", "sales:read"],
  // license keys of sales (licenses.ts): disabling one changes what the item's buyers get
  ["POST", "/licenses/:id/disable", "content:write"],
  ["POST", "/licenses/:id/enable", "content:write"],
  // balance and payouts, read only (creator.ts, connect.ts)
  ["GET", "/earnings/timeline", "payouts:read"],
  ["GET", "/payout/next", "payouts:read"],
  ["GET", "/payout/history", "payouts:read"],
  ["GET", "/payout/withdraw", "payouts:read"],
  ["GET", "/connect/account-status", "payouts:read"],
  // outgoing webhook endpoints and their deliveries (webhooks.ts); the only /developer routes for keys
  ["GET", "/developer/webhooks", "webhooks:write"],
  ["POST", "/developer/webhooks", "webhooks:write"],
  ["PATCH", "/developer/webhooks/:id", "webhooks:write"],
  ["DELETE", "/developer/webhooks/:id", "webhooks:write"],
  ["GET", "/developer/webhooks/:id/secret", "webhooks:write"],
  ["POST", "/developer/webhooks/:id/secret", "webhooks:write"],
  ["POST", "/developer/webhooks/:id/test", "webhooks:write"],
  ["GET", "/developer/webhooks/:id/deliveries", "webhooks:write"],
  ["POST", "/developer/webhooks/:id/deliveries/:deliveryId/resend", "webhooks:write"],
];

const compiled = API_KEY_ROUTES.map(([method, pattern, scope]) => ({
  method,
  scope,
  re: new RegExp(`^${pattern.replace(/:[A-Za-z]+/g, "[^/]+")}$`),
}));

/** The scope a key needs for `method path` (path under /api), or null when keys may not call it. */
export function scopeForRoute(method: string, path: string): ApiKeyScope | null {
  const m = method === "HEAD" ? "GET" : method;
  return compiled.find((r) => r.method === m && r.re.test(path))?.scope ?? null;
}
