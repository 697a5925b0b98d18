// The SPA's one way to call the API. Every call sends cookies; a failure becomes
// Error("{status}: {message}") as spec §8 words it.
import type { QueryFunction } from "@tanstack/react-query";

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

export async function apiRequest(method: string, url: string, data?: unknown): Promise<Response> {
  const isForm = typeof FormData !== "undefined" && data instanceof FormData;
  const res = await fetch(url, {
    method,
    headers: data !== undefined && !isForm ? { "Content-Type": "application/json" } : {},
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

type UnauthorizedBehavior = "returnNull" | "throw";

/** GET on the path joined from the query key's segments (spec §7). */
export const getQueryFn =
  <T>({ on401 }: { on401: UnauthorizedBehavior }): QueryFunction<T> =>
  async ({ queryKey, signal }) => {
    const res = await fetch(queryKey.join("/"), { credentials: "include", signal });
    if (on401 === "returnNull" && res.status === 401) return null as T;
    await throwIfResNotOk(res);
    return (await res.json()) as T;
  };
