// The OpenAPI document is generated from the routes, covers every registered route (or
// says why one is left out), names each API-key route's scope from the one scope table, and is
// served with its Scalar reference. That every answer matches it is checked in every worker test
// (./openapi-check.ts, through call()).
import { env } from "cloudflare:workers";
import { uniqueSymbol } from "hono-openapi";
import { findTargetHandler } from "hono/utils/handler";
import { describe, expect, it } from "vitest";
import { API_ANSWERS } from "../../../shared/api";
import { app } from "../../app";
import { TAGS } from "../../openapi/describe";
import { UNDOCUMENTED } from "../../openapi/document";
import { API_KEY_ROUTES } from "../../middleware/api-key-scopes";
import { call, postJson, signIn } from "../support/helpers";

type Op = {
  summary?: string;
  tags?: string[];
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown>; required?: string[] } }> };
  "x-api-key-scope"?: string;
  "x-access"?: string;
  security?: unknown[];
};
type Spec = { responses?: Record<string, { content?: Record<string, { schema?: { validate?: unknown } }> }> };
type Doc = {
  openapi: string;
  info: { title: string };
  paths: Record<string, Record<string, Op>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
};

async function documentOf(): Promise<Doc> {
  const res = await call("/api/openapi.json");
  expect(res.status).toBe(200);
  return (await res.json()) as Doc;
}
const toOpenApiPath = (p: string) => p.replace(/:(\w+)/g, "{$1}");

describe("the OpenAPI document", () => {
  it("is OpenAPI 3.1 and lists every registered route but those left out with a reason", async () => {
    const doc = await documentOf();
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.title).toBe("ApeWall API");
    const registered = [
      ...new Set(
        app.routes.filter((r) => r.method !== "ALL" && !r.path.includes("*")).map((r) => `${r.method} ${r.path}`),
      ),
    ];
    const missing: string[] = [];
    const leftOut = new Map<string, string[]>();
    for (const key of registered) {
      const [method, path] = key.split(" ");
      const rule = UNDOCUMENTED.find((u) => u.path.test(path));
      if (rule) {
        leftOut.set(rule.why, [...(leftOut.get(rule.why) ?? []), key]);
        continue;
      }
      const methods = method === "HEAD" ? [] : [method.toLowerCase()];
      for (const m of methods) if (!doc.paths[toOpenApiPath(path)]?.[m]) missing.push(key);
    }
    console.log(
      `documented operations: ${Object.values(doc.paths).reduce((n, p) => n + Object.keys(p).length, 0)}; left out:\n${[...leftOut].map(([why, r]) => `  ${r.length} × ${why}`).join("\n")}`,
    );
    expect(missing, "registered routes missing from /api/openapi.json (add doc({...}) to the route)").toEqual([]);
    // Every rule leaves out something that exists (a stale rule would hide a route added later).
    for (const rule of UNDOCUMENTED.filter((u) => !u.why.startsWith("this document")))
      expect(leftOut.has(rule.why), rule.why).toBe(true);
    // The admin's routes are not in it.
    expect(Object.keys(doc.paths).filter((p) => p.startsWith("/api/admin"))).toEqual([]);
  });

  it("gives every operation a summary, a known tag, a success answer with its schema, and the error shape", async () => {
    const doc = await documentOf();
    const tags = new Set<string>(TAGS.map((t) => t.name));
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect(op.summary, where).toBeTruthy();
        expect(op.tags?.length === 1 && tags.has(op.tags[0]), `${where} tag ${op.tags}`).toBe(true);
        const ok = Object.keys(op.responses ?? {}).filter((s) => /^[23]/.test(s));
        expect(ok.length, `${where} has no success answer`).toBeGreaterThan(0);
        for (const [status, r] of Object.entries(op.responses ?? {})) {
          if (r.content?.["application/json"])
            expect(r.content["application/json"].schema, `${where} ${status}`).toBeTruthy();
        }
        expect(op.responses?.["401"], where).toBeTruthy();
      }
    }
    expect(doc.components.schemas.Error).toEqual({
      type: "object",
      properties: { message: { type: "string" } },
      required: ["message"],
    });
  });

  it("documents for each route the very answer schema the SPA's client reads from shared/api.ts, and no route lacks one", () => {
    const documented = new Map<string, Set<unknown>>();
    for (const route of app.routes) {
      const spec = (findTargetHandler(route.handler) as unknown as Record<symbol, { spec?: Spec }>)[uniqueSymbol]?.spec;
      for (const [status, r] of Object.entries(spec?.responses ?? {})) {
        const validate = r.content?.["application/json"]?.schema?.validate;
        if (!/^2/.test(status) || !validate) continue;
        const key = `${route.method} ${route.path}`;
        documented.set(key, (documented.get(key) ?? new Set()).add(validate));
      }
    }
    const mismatched = Object.entries(API_ANSWERS)
      .filter(([route, schema]) => !documented.get(route)?.has(schema["~standard"].validate))
      .map(([route]) => route);
    expect(mismatched, "routes whose documented answer is not their schema in shared/api.ts").toEqual([]);
    const missing = [...documented.keys()].filter((route) => !(route in API_ANSWERS));
    expect(missing, "routes with a JSON answer missing from shared/api.ts").toEqual([]);
  });

  it("documents request bodies and parameters from the schemas the routes validate with", async () => {
    const doc = await documentOf();
    const createStep = doc.paths["/api/funnels/{id}/steps"].post;
    const body = createStep.requestBody!.content["application/json"].schema;
    expect(Object.keys(body.properties ?? {})).toEqual(expect.arrayContaining(["title", "price", "stepType"]));
    const verify = doc.paths["/api/licenses/verify"].post.requestBody!.content["application/json"].schema;
    expect(verify.required).toEqual(["key"]);
    const sales = doc.paths["/api/creator/sales"].get as unknown as { parameters: { name: string; in: string }[] };
    expect(sales.parameters.map((p) => `${p.in} ${p.name}`)).toEqual(expect.arrayContaining(["query limit"]));
  });

  it("names the scope of every route open to API keys, from the one scope table, and no other", async () => {
    const doc = await documentOf();
    for (const [method, path, scope] of API_KEY_ROUTES) {
      const op = doc.paths[`/api${toOpenApiPath(path)}`]?.[method.toLowerCase()];
      expect(op, `${method} ${path}`).toBeTruthy();
      expect(op["x-api-key-scope"], `${method} ${path}`).toBe(scope);
      // A public route (an item's page data) needs no credential; a creator route takes either.
      expect(op.security, `${method} ${path}`).toEqual(
        op["x-access"] === "public" ? [{}] : [{ apiKey: [] }, { session: [] }],
      );
      expect(op.responses?.["429"], `${method} ${path}`).toBeTruthy();
    }
    const keyRoutes = new Set(API_KEY_ROUTES.map(([m, p]) => `${m.toLowerCase()} /api${toOpenApiPath(p)}`));
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!keyRoutes.has(`${method} ${path}`)) expect(op["x-api-key-scope"], `${method} ${path}`).toBeUndefined();
      }
    }
  });
});

describe("the API reference at /docs/api", () => {
  it("is Scalar's page reading /api/openapi.json, with its script from this origin only", async () => {
    const res = await call("/docs/api");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("/api/openapi.json");
    expect(html).toContain('src="/docs/scalar-api-reference.js"');
    expect(html).not.toMatch(/https?:\/\/(cdn\.jsdelivr|unpkg|fonts)/);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toMatch(/script-src 'self' 'nonce-[\w-]+'/);
    expect(csp).not.toMatch(/https?:/);
    // The bundle it loads is in the build's assets.
    const bundle = await (env as unknown as { ASSETS: Fetcher }).ASSETS.fetch(
      "http://assets.local/docs/scalar-api-reference.js",
    );
    expect(bundle.status).toBe(200);
    expect((await bundle.text()).length).toBeGreaterThan(1_000_000);
  });

  it("names the reader's own key in its bar as text, whatever the key's name holds", async () => {
    const cookie = await signIn("docs-bar@example.com");
    const name = "<img src=x onerror=alert(1)> $' $&";
    const made = await postJson("/api/developer/keys", { name, scopes: ["content:read"] }, cookie);
    expect(made.status).toBe(201);
    const { prefix } = await made.json<{ prefix: string }>();
    const res = await call("/docs/api", { cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    const html = await res.text();
    expect(html).toContain(`&lt;img src=x onerror=alert(1)&gt; $&#39; $&amp;`);
    expect(html).toContain(prefix);
    expect(html).not.toContain("<img src=x");
    // The page once: a `$'` in the name did not paste the rest of the page into the bar.
    expect(html.split("<body>").length).toBe(2);
    expect(html.split("/api/openapi.json").length).toBe(2);
  });
});
