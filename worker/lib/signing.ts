// HMAC-SHA256 signatures for the tokens and links the worker hands out (access tokens, download links,
// reminder and unsubscribe links). Each use names its purpose, and the signed message is
// `{purpose}:{part}:{part}…`: a purpose has no colon, so a signature made for one purpose never
// verifies for another. These are the exact bytes every token kind has always signed, so links
// already sent keep working. Outgoing webhooks are signed by the `standardwebhooks` package instead.
const encoder = new TextEncoder();

/** What a signature is for; its text is the signed message's first part. */
export type SigningPurpose = "access" | "download" | "invoice" | "recover" | "unsubscribe";

/** Bytes as base64url without padding. */
export function base64Url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** base64url(HMAC-SHA256(secret, `{purpose}:{parts joined by ":"}`)). */
export async function sign(secret: string, purpose: SigningPurpose, ...parts: (string | number)[]): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const message = [purpose, ...parts].join(":");
  return base64Url(new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(message))));
}

/** True when `signature` is sign(secret, purpose, ...parts). Compared in constant time. */
export async function verify(
  secret: string,
  purpose: SigningPurpose,
  signature: string,
  ...parts: (string | number)[]
): Promise<boolean> {
  return sameText(signature, await sign(secret, purpose, ...parts));
}

/** String equality whose time depends only on the lengths, not on where the texts differ. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
