// The SPA's one way to call the API. Every call sends cookies; a failure becomes
// Error("{status}: {message}") as spec §8 words it. `api(route)` and `apiQuery(route)` are typed
// from the shared contract (shared/api.ts): the route decides the answer's type, so a field renamed
// in its schema fails the type-check here rather than on a user's screen.
import type { ApiAnswer, ApiRoute } from "@shared/api";

export async function throwIfResNotOk(res: Response): Promise<void> {
  if (res.ok) return;
  const text = await res.text();
  let message = text || res.statusText;
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === "string") message = body.message;
  } catch {
    // Not JSON: the body text is the message.
  }
  throw new Error(`${res.status}: ${message}`);
}

/**
 * A call whose answer the caller does not read (or a route outside the contract that answers no JSON).
 * It answers nothing on purpose: an answer to read comes through `api(route)`, typed by its route.
 */
export async function apiRequest(method: string, url: string, data?: unknown): Promise<void> {
  await send(method, url, data);
}

async function send(method: string, url: string, data?: unknown, headers?: Record<string, string>): Promise<Response> {
  const isForm = typeof FormData !== "undefined" && data instanceof FormData;
  const res = await fetch(url, {
    method,
    headers: { ...(data !== undefined && !isForm ? { "Content-Type": "application/json" } : {}), ...headers },
    body: data === undefined ? undefined : isForm ? data : JSON.stringify(data),
    credentials: "include",
  });
  await throwIfResNotOk(res);
  return res;
}

/** An API error's message without the "NNN: " status that throwIfResNotOk puts in front. */
export const withoutStatus = (message: string) => message.replace(/^\d{3}: /, "");

export const isUnauthorizedError = (error: unknown) =>
  error instanceof Error && /^401: .*Unauthorized/.test(error.message);

/** A query's answer when a 401 means "signed out" rather than a failure: null (the current user). */
export function nullOn401(err: unknown): null {
  if (err instanceof Error && err.message.startsWith("401: ")) return null;
  throw err;
}

// ---- the typed client ----

type PathOf<R> = R extends `${string} ${infer P}` ? P : never;
type ParamNames<P> = P extends `${string}:${infer N}/${infer Rest}`
  ? N | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer N}`
    ? N
    : never;
type Query = Record<string, string | number | boolean | null | undefined>;
/** A call's parts: the route's `:params` (required when it has any), a query, a JSON or form body, extra headers. */
type ApiCall<R extends ApiRoute> = {
  query?: Query;
  body?: unknown;
  signal?: AbortSignal;
  headers?: Record<string, string>;
} & ([ParamNames<PathOf<R>>] extends [never]
  ? { params?: undefined }
  : { params: Record<ParamNames<PathOf<R>>, string> });
type CallArgs<R extends ApiRoute> = [ParamNames<PathOf<R>>] extends [never] ? [call?: ApiCall<R>] : [call: ApiCall<R>];
type GetRoute = Extract<ApiRoute, `GET ${string}`>;

/**
 * The query key of a GET: the path's segments split where a param sits, so that joined with "/" they
 * are the URL (what `api` fetches) and a prefix names the whole resource for invalidation
 * (`["/api/content", id]` under `["/api/content"]`); a query, when given, is the last segment.
 */
export function apiKey<R extends GetRoute>(route: R, ...[call]: CallArgs<R>): readonly string[] {
  const key: string[] = [];
  let fixed = "";
  for (const part of route
    .slice(route.indexOf(" ") + 1)
    .split("/")
    .slice(1)) {
    if (!part.startsWith(":")) {
      fixed += `/${part}`;
      continue;
    }
    if (fixed) key.push(key.length ? fixed.slice(1) : fixed);
    fixed = "";
    key.push(encodeURIComponent(paramsOf(call)[part.slice(1)]));
  }
  if (fixed) key.push(key.length ? fixed.slice(1) : fixed);
  const search = queryString(call?.query);
  if (search) key[key.length - 1] += search;
  return key;
}

const paramsOf = (call: { params?: unknown } | undefined) => (call?.params ?? {}) as Record<string, string>;

function queryString(query: Query | undefined): string {
  const entries = Object.entries(query ?? {}).filter(([, v]) => v !== undefined && v !== null && v !== "");
  return entries.length ? `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString()}` : "";
}

/** The URL of a route with its params filled in (each encoded) and its query. */
function apiUrl<R extends ApiRoute>(route: R, ...[call]: CallArgs<R>): string {
  const path = route
    .slice(route.indexOf(" ") + 1)
    .replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(paramsOf(call)[name]));
  return path + queryString(call?.query);
}

/** Calls a route and answers what its shared schema says it answers. */
export async function api<R extends ApiRoute>(route: R, ...args: CallArgs<R>): Promise<ApiAnswer<R>> {
  const method = route.slice(0, route.indexOf(" "));
  const [call] = args;
  const url = apiUrl(route, ...args);
  const res =
    method === "GET"
      ? await fetch(url, { credentials: "include", signal: call?.signal })
      : await send(method, url, call?.body, call?.headers);
  await throwIfResNotOk(res);
  return (await res.json()) as ApiAnswer<R>;
}

/**
 * `useQuery(apiQuery("GET /api/funnels"))`: the key of apiKey, the answer typed by the route. A plain
 * object rather than TanStack's queryOptions, so the paywall's bundle (which shares this file) stays small.
 */
export const apiQuery = <R extends GetRoute>(route: R, ...args: CallArgs<R>) => ({
  queryKey: apiKey(route, ...args),
  queryFn: ({ signal }: { signal: AbortSignal }) => api(route, ...([{ ...args[0], signal }] as CallArgs<R>)),
});
