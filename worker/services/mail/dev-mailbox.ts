// The dev mailbox: the local mail transport keeps each message in KV (newest first) for /dev/mail to
// show, instead of sending it. Like the mail API it stands in for, a repeated Idempotency-Key is
// answered with the first message, unsent. It also plays the provider's delivery events, by address
// (`deliveryEventsFor`), which the consumer records as Resend's webhooks are (./mail-events.ts).
// (The D1 outbox of email jobs is ./email-outbox.ts.)
import type { MailEventType } from "../../../shared/mail";
import { newId } from "../../lib/ids";
import type { MailTransport } from "./types";

const PREFIX = "dev-outbox:";
const KEEP_SECONDS = 7 * 24 * 3600;
// Resend keeps idempotency keys for 24 hours.
const SEEN_PREFIX = "dev-outbox-key:";
const SEEN_SECONDS = 24 * 3600;
// Keys sort ascending, so a descending clock in the key lists the newest message first.
const MAX_TIME = 9_999_999_999_999;

export type DevMail = {
  id: string;
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string;
  /** Where a Reply goes (the Reply-To header), when the email sets one. */
  replyTo?: string;
  links: string[];
  createdAt: string;
};

/**
 * What Resend reports for an address: its test addresses as documented (`bounced@resend.dev`,
 * `complained@resend.dev`, `delivered@resend.dev`, each also with a `+label`, which is only a label
 * there), and on any other domain an address whose local part holds `+bounce` or `+complain`
 * (`buyer+bounce@example.com`); every other address is delivered.
 */
function deliveryEventsFor(to: string): MailEventType[] {
  const [local = "", domain = ""] = to.toLowerCase().split("@");
  const base = local.split("+")[0];
  const label = local.includes("+") ? local.slice(local.indexOf("+") + 1) : "";
  // On resend.dev the label is only a label, as Resend documents; elsewhere it is our local switch.
  if (domain === "resend.dev") {
    if (base === "bounced") return ["email.bounced"];
    if (base === "complained") return ["email.delivered", "email.complained"];
    return ["email.delivered"];
  }
  if (/(^|\+)bounce/.test(label)) return ["email.bounced"];
  if (/(^|\+)complain/.test(label)) return ["email.delivered", "email.complained"];
  return ["email.delivered"];
}

const extractLinks = (text: string) => [...new Set(text.match(/https?:\/\/[^\s<>"')]+/g) ?? [])];

export function devMailboxTransport(kv: KVNamespace): MailTransport {
  return {
    async send(mail, opts) {
      const seenKey = `${SEEN_PREFIX}${opts.idempotencyKey}`;
      const events = deliveryEventsFor(mail.to);
      const seen = await kv.get(seenKey);
      if (seen) return { id: seen, events };
      const id = newId();
      await kv.put(seenKey, id, { expirationTtl: SEEN_SECONDS });
      const message: DevMail = {
        id,
        ...mail,
        links: extractLinks(mail.text),
        createdAt: new Date().toISOString(),
      };
      const order = String(MAX_TIME - Date.now()).padStart(13, "0");
      await kv.put(`${PREFIX}${order}:${id}`, JSON.stringify(message), { expirationTtl: KEEP_SECONDS });
      return { id, events };
    },
  };
}

export async function listDevMailbox(kv: KVNamespace, limit = 50): Promise<DevMail[]> {
  const { keys } = await kv.list({ prefix: PREFIX, limit });
  const values = await Promise.all(keys.map((k) => kv.get<DevMail>(k.name, "json")));
  return values.filter((v): v is DevMail => v !== null);
}
