import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../index";
import { retryDelaySeconds } from "../../queue/emails";
import type { EmailJob } from "../../services/mail/templates";
import { httpTransport } from "../../services/mail/transport";
import { env, outbox, row, standinBase } from "../support/helpers";

const job = (dedupeKey: string, to: string): EmailJob => ({
  dedupeKey,
  to,
  template: "purchase-access",
  data: { title: "Beats", amountCents: 500, orderId: "ord1", accessUrl: "http://127.0.0.1:8787/success?access=x" },
});

async function runBatch(messages: EmailJob[], bindings: object = env) {
  const batch = createMessageBatch<EmailJob>(
    "apewall-emails",
    messages.map((body, i) => ({ id: `m${i}`, timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, bindings as never, ctx);
  return getQueueResult(batch, ctx);
}

describe("the email queue consumer", () => {
  it("sends a receipt with the access link in HTML and text", async () => {
    const result = await runBatch([job("receipt-1", "receipt@example.com")]);
    expect(result.explicitAcks).toEqual(["m0"]);
    const [mail] = (await outbox()).filter((m) => m.to === "receipt@example.com");
    expect(mail.subject).toBe("Your access to Beats");
    expect(mail.text).toContain("Order #ord1 · $5.00");
    expect(mail.html).toContain("Access your purchase");
    expect(mail.links).toContain("http://127.0.0.1:8787/success?access=x");
  });

  it("a duplicated message sends one email", async () => {
    const first = await runBatch([job("dup-1", "dup@example.com"), job("dup-1", "dup@example.com")]);
    const second = await runBatch([job("dup-1", "dup@example.com")]);
    expect(first.explicitAcks).toEqual(["m0", "m1"]);
    expect(second.explicitAcks).toEqual(["m0"]);
    expect((await outbox()).filter((m) => m.to === "dup@example.com")).toHaveLength(1);
  });

  it("retries with growing backoff when the mail service fails, and lets the next attempt send", async () => {
    // A mail service that answers with an error (the Stripe stand-in plays one: it knows no /emails).
    const failing = { ...env, MAIL_TRANSPORT: "http", MAIL_API_KEY: "key", MAIL_API_BASE: standinBase() };
    const result = await runBatch([job("retry-1", "retry@example.com")], failing);
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages.map((m) => m.msgId)).toEqual(["m0"]);
    // The failed attempt released its claim: the retry is not mistaken for a concurrent delivery.
    expect(await row("select * from emails_sent where dedupe_key = ?", "retry-1")).toBeNull();

    expect([1, 2, 4, 10].map(retryDelaySeconds)).toEqual([10, 20, 80, 600]);

    expect((await runBatch([job("retry-1", "retry@example.com")])).explicitAcks).toEqual(["m0"]);
    expect((await outbox()).filter((m) => m.to === "retry@example.com")).toHaveLength(1);
  });

  it("the mail API call carries the job id as its Idempotency-Key, so a retried send is one email", async () => {
    const seen: { key: string | null; body: string }[] = [];
    const provider = async (_url: RequestInfo | URL, init?: RequestInit) => {
      seen.push({ key: new Headers(init?.headers).get("idempotency-key"), body: String(init?.body) });
      return Response.json({ id: "email_1" });
    };
    const transport = httpTransport("https://mail.example", "key", provider as typeof fetch);
    const mail = { from: "a@example.com", to: "b@example.com", subject: "s", text: "t", html: "h" };
    await transport.send(mail, { idempotencyKey: "purchase-access:p1" });
    await transport.send(mail, { idempotencyKey: "x".repeat(300) });
    expect(seen[0].key).toBe("purchase-access:p1");
    // Resend takes at most 256 characters: a longer id goes as its digest, the same every time.
    expect(seen[1].key).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("refuses the dev outbox outside development", async () => {
    const prod = { ...env, APP_ENV: "production" };
    await expect(runBatch([job("prod-1", "prod@example.com")], prod)).rejects.toThrow(
      /only allowed when APP_ENV=development/,
    );
  });
});
