// Where outgoing mail goes. Production posts to an HTTP email API (Resend-compatible); local runs
// keep messages in the dev mailbox (./dev-mailbox.ts). Which one is configuration (MAIL_TRANSPORT), not code paths.
import type { Bindings } from "../../lib/env";
import { isDevelopment } from "../../lib/env";
import { devMailboxTransport } from "./dev-mailbox";
import type { MailTransport } from "./types";

export type { MailTransport };

/** Resend takes keys of at most 256 characters; a longer job id is sent as its SHA-256. */
async function idempotencyKeyFor(jobId: string): Promise<string> {
  if (jobId.length <= 256) return jobId;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(jobId)));
  return `sha256:${[...digest].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

const toApi = ({ replyTo, ...mail }: Parameters<MailTransport["send"]>[0]) =>
  replyTo ? { ...mail, reply_to: replyTo } : mail;

/** Resend's `POST /emails`; any provider with the same shape works by changing MAIL_API_BASE. */
export function httpTransport(apiBase: string, apiKey: string, fetchFn: typeof fetch = fetch): MailTransport {
  return {
    async send(mail, opts) {
      const res = await fetchFn(`${apiBase.replace(/\/$/, "")}/emails`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${apiKey}`,
          "content-type": "application/json",
          // A retry after a lost answer (timeout, crash before we wrote it down) is not a second email.
          "idempotency-key": await idempotencyKeyFor(opts.idempotencyKey),
        },
        // The API names the Reply-To header `reply_to`.
        body: JSON.stringify(toApi(mail)),
      });
      if (!res.ok) throw new Error(`mail API answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
      const body = (await res.json()) as { id?: string };
      return { id: body.id ?? "" };
    },
  };
}

export function mailTransportFor(env: Bindings): MailTransport {
  if (env.MAIL_TRANSPORT === "outbox") {
    // The outbox shows every message (and its sign-in links) to whoever opens /dev/mail.
    if (!isDevelopment(env)) throw new Error("MAIL_TRANSPORT=outbox is only allowed when APP_ENV=development");
    return devMailboxTransport(env.SESSIONS);
  }
  if (!env.MAIL_API_KEY) throw new Error("MAIL_API_KEY is not set");
  return httpTransport(env.MAIL_API_BASE, env.MAIL_API_KEY);
}
