// Every answer a worker test receives through `call()` (./helpers.ts) is checked against the OpenAPI
// document (worker/openapi/document.ts): its route must be documented, its status must be one the
// document names for that route, and a JSON body must match the zod schema documented for that
// status — with no field the schema does not name. A mismatch throws where the test called, so the
// document cannot drift from what the Worker answers.
import { findTargetHandler } from "hono/utils/handler";
import { uniqueSymbol } from "hono-openapi";
import type { OpenAPIV3_1 } from "openapi-types";
import { app } from "../../app";
import { openApiDocument, UNDOCUMENTED } from "../../openapi/document";

type Validator = {
  validate: (
    v: unknown,
  ) =>
    | { issues?: readonly { message: string; path?: readonly unknown[] }[]; value?: unknown }
    | Promise<{ issues?: readonly { message: string; path?: readonly unknown[] }[]; value?: unknown }>;
};
type Op = {
  method: string;
  re: RegExp;
  params: number;
  path: string;
  statuses: Set<string>;
  schemas: Map<string, Validator>;
};

let ops: Promise<Op[]> | null = null;

async function buildOps(): Promise<Op[]> {
  const doc = await openApiDocument(app as never);
  const schemas = new Map<string, Map<string, Validator>>();
  for (const route of app.routes) {
    const spec = (
      findTargetHandler(route.handler) as unknown as Record<
        symbol,
        { spec?: { responses?: Record<string, { content?: Record<string, { schema?: Validator }> }> } }
      >
    )[uniqueSymbol]?.spec;
    if (!spec?.responses) continue;
    const byStatus = new Map<string, Validator>();
    for (const [status, r] of Object.entries(spec.responses)) {
      const s = r.content?.["application/json"]?.schema;
      if (s && typeof s.validate === "function") byStatus.set(status, s);
    }
    schemas.set(`${route.method} ${route.path}`, byStatus);
  }
  const out: Op[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item ?? {}) as [string, OpenAPIV3_1.OperationObject][]) {
      const honoPath = path.replace(/\{(\w+)\}/g, ":$1");
      out.push({
        method: method.toUpperCase(),
        path: honoPath,
        re: new RegExp(`^${path.replace(/\{\w+\}/g, "[^/]+")}$`),
        params: (path.match(/\{/g) ?? []).length,
        statuses: new Set(Object.keys(op.responses ?? {})),
        schemas: schemas.get(`${method.toUpperCase()} ${honoPath}`) ?? schemas.get(`GET ${honoPath}`) ?? new Map(),
      });
    }
  }
  // A path without parameters wins over one with (/funnels/for-item before /funnels/{id}).
  return out.sort((a, b) => a.params - b.params);
}

const undocumented = (path: string) => !path.startsWith("/api/") || UNDOCUMENTED.some((u) => u.path.test(path));

/** Collects what differs between what a schema kept and what was sent: fields the schema does not name. */
function extraFields(sent: unknown, kept: unknown, at = ""): string[] {
  if (Array.isArray(sent) && Array.isArray(kept)) return sent.flatMap((v, i) => extraFields(v, kept[i], `${at}[${i}]`));
  if (sent && typeof sent === "object" && kept && typeof kept === "object") {
    return Object.entries(sent).flatMap(([k, v]) =>
      k in kept ? extraFields(v, (kept as Record<string, unknown>)[k], at ? `${at}.${k}` : k) : [at ? `${at}.${k}` : k],
    );
  }
  return [];
}

export async function checkAnswer(method: string, url: URL, res: Response): Promise<void> {
  const path = url.pathname;
  if (undocumented(path)) return;
  const m = method === "HEAD" ? "GET" : method;
  ops ??= buildOps();
  const op = (await ops).find((o) => o.method === m && o.re.test(path));
  const where = `${method} ${path}`;
  if (!op) {
    // A path no route answers gets the app's 404 { message } (worker/app.ts notFound).
    if (res.status === 404) return;
    throw new Error(`OpenAPI: ${where} answered ${res.status} but the route is not in the document`);
  }
  const status = String(res.status);
  if (!op.statuses.has(status))
    throw new Error(
      `OpenAPI: ${where} (${op.method} ${op.path}) answered ${status}, which its documentation does not name (it names ${[...op.statuses].join(", ")})`,
    );
  const type = res.headers.get("content-type") ?? "";
  if (method === "HEAD" || !type.includes("application/json")) return;
  const body = await res.clone().json();
  const schema = op.schemas.get(status);
  if (!schema) {
    if (
      res.status >= 400 &&
      (typeof body !== "object" || body === null || typeof (body as { message?: unknown }).message !== "string")
    ) {
      throw new Error(
        `OpenAPI: ${where} answered ${status} without the documented error shape { message }: ${JSON.stringify(body).slice(0, 300)}`,
      );
    }
    return;
  }
  const result = await schema.validate(body);
  if (result.issues) {
    const issues = result.issues
      .map(
        (i) =>
          `${(i.path ?? []).map((p) => (typeof p === "object" && p ? (p as { key: unknown }).key : p)).join(".")}: ${i.message}`,
      )
      .join("; ");
    throw new Error(
      `OpenAPI: ${where} answered ${status} with a body its documented schema refuses: ${issues}\n${JSON.stringify(body).slice(0, 500)}`,
    );
  }
  const extra = extraFields(body, result.value);
  if (extra.length > 0)
    throw new Error(
      `OpenAPI: ${where} answered ${status} with fields its documented schema does not name: ${extra.slice(0, 10).join(", ")}`,
    );
}
