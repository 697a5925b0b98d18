// A purchase's permanent access link: `${purchaseId}.${HMAC(secret, purchaseId)}`, so nothing secret
// is stored. Behaviour: docs/payments.md ("A purchase").
import type { PurchaseDeps, PurchaseRow } from "./deps";

async function hmac(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const sig = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`access:${message}`)));
  return btoa(String.fromCharCode(...sig))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

export async function accessTokenFor(secret: string, purchaseId: string): Promise<string> {
  return `${purchaseId}.${await hmac(secret, purchaseId)}`;
}

/** The purchase id a token grants, or null. Compared in constant time. */
export async function purchaseIdFromToken(secret: string, token: string | undefined | null): Promise<string | null> {
  if (!token) return null;
  const [id, sig] = token.split(".");
  if (!id || !sig || !/^[A-Za-z0-9]{1,32}$/.test(id)) return null;
  const expected = await hmac(secret, id);
  if (expected.length !== sig.length) return null;
  let diff = 0;
  for (let i = 0; i < sig.length; i++) diff |= expected.charCodeAt(i) ^ sig.charCodeAt(i);
  return diff === 0 ? id : null;
}

export async function accessUrlFor(
  deps: Pick<PurchaseDeps, "appUrl" | "accessSecret">,
  p: Pick<PurchaseRow, "id" | "paymentIntentId" | "contentId">,
): Promise<string> {
  const url = new URL("/success", deps.appUrl);
  if (p.paymentIntentId) url.searchParams.set("payment_intent", p.paymentIntentId);
  url.searchParams.set("content_id", p.contentId);
  url.searchParams.set("access", await accessTokenFor(deps.accessSecret, p.id));
  return url.toString();
}
