// Why a webhook attempt failed, in the creator's words: never the runtime's own message, which can
// name internals ("internal error; reference = …"). What workerd and Cloudflare's edge report for
// each failure, and why each maps as it does: docs/api-and-webhooks.md ("Webhooks").

export const WEBHOOK_TIMEOUT_MS = 10_000;

const ATTEMPT_CAUSES = {
  timeout: `Timed out after ${WEBHOOK_TIMEOUT_MS / 1000} s`,
  dns: "Could not resolve host",
  refused: "Connection refused or closed",
  unknown: "Could not connect",
} as const;

const KNOWN: readonly string[] = Object.values(ATTEMPT_CAUSES);

/**
 * The cause of a fetch() that threw. workerd throws "Network connection lost." when the port refuses
 * the connection, or closes it before any answer; anything else (its opaque "internal error", a TLS
 * failure) is "Could not connect".
 */
export function thrownCause(err: unknown): string {
  const e = err as { name?: unknown; message?: unknown } | null;
  if (e?.name === "TimeoutError") return ATTEMPT_CAUSES.timeout;
  if (typeof e?.message === "string" && /^Network connection lost/i.test(e.message)) return ATTEMPT_CAUSES.refused;
  return ATTEMPT_CAUSES.unknown;
}

/**
 * The cause of an answer that came back, when it is not the receiver's own: Cloudflare's edge answers
 * a Worker's fetch() to a name that does not resolve with 530 and "error code: 1016".
 */
export function answeredCause(status: number, body: string): string | null {
  return status === 530 && /\b1016\b/.test(body) ? ATTEMPT_CAUSES.dns : null;
}

/**
 * What the delivery log says of one attempt: the recorded cause, else "Answered {status}". An error
 * recorded before causes were (a raw runtime message) is read through `thrownCause`'s rules.
 */
export function attemptCause(status: number | null, error: string | null): string {
  if (error) {
    if (KNOWN.includes(error) || error.startsWith("Not sent: ")) return error;
    if (/^No answer within/.test(error)) return ATTEMPT_CAUSES.timeout;
    return thrownCause({ message: error });
  }
  return status === null ? ATTEMPT_CAUSES.unknown : `Answered ${status}`;
}
