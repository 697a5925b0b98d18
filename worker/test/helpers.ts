// Test helpers: call the Worker as a browser would and sign in through the real emailed-link flow.
import { env, exports } from "cloudflare:workers";
import { vi } from "vitest";

export const BASE = "http://127.0.0.1:8787";

export function call(path: string, init: RequestInit & { cookie?: string } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.cookie) headers.set("cookie", init.cookie);
  // Browsers send Origin with every non-GET request; the CSRF guard expects it.
  if (init.method && !["GET", "HEAD"].includes(init.method) && !headers.has("origin")) headers.set("origin", BASE);
  return exports.default.fetch(new Request(new URL(path, BASE), { ...init, headers, redirect: "manual" }));
}

export const postJson = (path: string, body: unknown, cookie?: string) =>
  call(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), cookie });

type OutboxMessage = { to: string; subject: string; text: string; html: string; links: string[] };

export async function outbox(): Promise<OutboxMessage[]> {
  return (await call("/dev/mail.json")).json();
}

/** Waits for the queue consumer to deliver a mail to `to` and returns the newest one. */
export async function waitForMail(to: string, since = 0): Promise<OutboxMessage> {
  return vi.waitUntil(
    async () => {
      const mails = (await outbox()).filter((m) => m.to === to);
      return mails.length > since ? mails[0] : undefined;
    },
    { timeout: 10_000, interval: 100 },
  );
}

export const cookieValue = (res: Response, name: string) => {
  for (const header of res.headers.getSetCookie()) {
    const [pair] = header.split(";");
    const [k, v] = pair.split("=");
    if (k.trim() === name) return v;
  }
  return undefined;
};

/** Requests a sign-in link for `email`, opens it, and returns the session cookie header. */
export async function signIn(email: string): Promise<string> {
  const before = (await outbox()).filter((m) => m.to === email).length;
  const res = await postJson("/api/auth/email", { email });
  if (res.status !== 202) throw new Error(`sign-in request failed: ${res.status}`);
  const mail = await waitForMail(email, before);
  const link = new URL(mail.links[0]);
  const callback = await call(link.pathname + link.search);
  const token = cookieValue(callback, "aw_session");
  if (!token) throw new Error(`no session cookie, status ${callback.status}`);
  return `aw_session=${token}`;
}

export { env };

/** A 1×1 PNG. */
export const PNG_1X1 = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="),
  (ch) => ch.charCodeAt(0),
);

export function contentForm(fields: Record<string, string | Blob>): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  return form;
}

export const postForm = (path: string, form: FormData, cookie?: string) => call(path, { method: "POST", body: form, cookie });

/** Deterministic bytes: part `n` of a file is filled with `n`, so misplaced parts are visible. */
export const partBytes = (size: number, fill: number) => new Uint8Array(size).fill(fill);
