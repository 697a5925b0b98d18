// What a mail transport is (transport.ts picks one; dev-mailbox.ts is the local one).
type OutgoingMail = { from: string; to: string; subject: string; text: string; html: string; replyTo?: string };
export interface MailTransport {
  /** `idempotencyKey`: the job id; the provider sends a repeated request with the same key once. */
  send(mail: OutgoingMail, opts: { idempotencyKey: string }): Promise<{ id: string }>;
}
