// The SPA's HTML for its pages, and a real 404 for any other path: the Worker knows the pages from
// shared/spa-routes.ts, which must be the router's own tree (web/route-tree.gen.ts, generated from web/routes/).
import { describe, expect, it } from "vitest";
import routeTreeSource from "../../../web/route-tree.gen.ts?raw";
import { routeTreePaths, SPA_ROUTE_PATTERNS } from "../../../shared/spa-routes";
import { call, signIn } from "../support/helpers";

/** A concrete path for a pattern: each `$param` filled with an id-like value. */
const example = (pattern: string) => pattern.replace(/\$[A-Za-z]+/g, "abc123");

describe("SPA pages and unknown paths", () => {
  it("the Worker's list of pages is the router's route tree", () => {
    expect([...SPA_ROUTE_PATTERNS].sort()).toEqual(routeTreePaths(routeTreeSource).sort());
  });

  it("every page of the SPA answers 200 with its HTML", async () => {
    // `/` and `/dashboard` are the app for a signed-in creator only (the landing otherwise: docs/pages.md).
    const cookie = await signIn("spa-pages@example.com");
    for (const pattern of SPA_ROUTE_PATTERNS) {
      const res = await call(example(pattern), { cookie: ["/", "/dashboard"].includes(pattern) ? cookie : undefined });
      expect(res.status, pattern).toBe(200);
      expect(res.headers.get("content-type"), pattern).toContain("text/html");
      expect(await res.text(), pattern).toContain('<div id="root">');
    }
    // The router matches without regard to case, so the Worker does too: /Dashboard shows the dashboard.
    for (const path of ["/Dashboard", "/SETTINGS", "/Content/abc/Edit"])
      expect((await call(path)).status, path).toBe(200);
  });

  it("an unknown URL answers 404 with the app's HTML (so the SPA shows its not-found screen), signed out and signed in", async () => {
    const cookie = await signIn("spa-404@example.com");
    for (const who of [undefined, cookie]) {
      for (const path of [
        "/nope",
        "/dashboard/x",
        "/content/abc/nope",
        "/content/abc",
        "/checkout",
        "/p",
        "/sign-in/x/y",
      ]) {
        const res = await call(path, { cookie: who });
        expect(res.status, path).toBe(404);
        expect(res.headers.get("content-type"), path).toContain("text/html");
        expect(res.headers.get("content-security-policy"), path).toContain("default-src 'none'");
        expect(await res.text(), path).toContain('<div id="root">');
      }
    }
    // HEAD as GET.
    expect((await call("/nope", { method: "HEAD" })).status).toBe(404);
  });

  it("an unknown paywall id keeps its own 404 page; the API's unknown paths stay JSON 404s", async () => {
    const paywall = await call("/p/no-such-item");
    expect(paywall.status).toBe(404);
    expect(paywall.headers.get("content-type")).toContain("text/html");
    const api = await call("/api/nope");
    expect(api.status).toBe(404);
    expect(await api.json()).toMatchObject({ message: expect.any(String) });
  });
});
