// What a mail transport is (transport.ts picks one; dev-mailbox.ts is the local one).
import type { MailEventType } from "../../../shared/mail";

type OutgoingMail = { from: string; to: string; subject: string; text: string; html: string; replyTo?: string };
export interface MailTransport {
  /** `idempotencyKey`: the job id; the provider sends a repeated request with the same key once. */
  /**
   * `id`: the provider's message id. `events`: what the provider will report about it, when the
   * transport knows at once (the dev mailbox); Resend's come later, by webhook (./mail-events.ts).
   */
  send(mail: OutgoingMail, opts: { idempotencyKey: string }): Promise<{ id: string; events?: MailEventType[] }>;
}
