// The SPA's pages, as TanStack Router's file routes in web/routes/ name them. The Worker answers
// any other path with the SPA's HTML under status 404 (worker/routes/spa.ts), so a wrong URL is a
// real 404 for browsers, crawlers and link checkers, while the SPA shows its not-found screen.
// worker/test/security/spa.test.ts fails when this list and the router's generated tree (web/route-tree.gen.ts)
// differ, so a page added to web/routes/ must be added here too.
export const SPA_ROUTE_PATTERNS = [
  "/",
  "/admin",
  "/admin/tax",
  "/checkout/$id",
  "/checkout/upsell",
  "/connect",
  "/content/$contentId/edit",
  "/content/$contentId/edit-funnel",
  "/content/$contentId/live",
  "/dashboard",
  "/discounts",
  "/funnels",
  "/settings",
  "/subscribe",
  "/upload",
] as const;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** `/content/$contentId/edit` → a RegExp for one segment per `$param` (an optional trailing slash, as the router allows). */
function routePatternRegExp(pattern: string): RegExp {
  if (pattern === "/") return /^\/$/;
  const body = pattern
    .split("/")
    .map((segment) => (segment.startsWith("$") ? "[^/]+" : escapeRegExp(segment)))
    .join("/");
  // Case-insensitive, as TanStack Router matches by default: /Dashboard is the dashboard, not a 404.
  return new RegExp(`^${body}/?$`, "i");
}

const matchers = SPA_ROUTE_PATTERNS.map(routePatternRegExp);

/** Whether `path` (a URL's pathname, not decoded) is one of the SPA's pages. */
export function isSpaRoute(path: string): boolean {
  return matchers.some((m) => m.test(path));
}

/** The pages TanStack Router generated from web/routes/ (the `fullPaths` union of web/route-tree.gen.ts's source). */
export function routeTreePaths(routeTreeSource: string): string[] {
  const union = /fullPaths:\s*((?:\|\s*'[^']*'\s*)+)/.exec(routeTreeSource);
  if (!union) throw new Error("no fullPaths in web/route-tree.gen.ts");
  return [...union[1].matchAll(/'([^']*)'/g)].map((m) => m[1]);
}
