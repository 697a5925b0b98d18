// A purchase's permanent access link: `${purchaseId}.${HMAC(secret, purchaseId)}`, so nothing secret
// is stored. Behaviour: docs/payments.md ("A purchase").
import { sign, verify } from "../../lib/signing";
import type { PurchaseDeps, PurchaseRow } from "./deps";

export async function accessTokenFor(secret: string, purchaseId: string): Promise<string> {
  return `${purchaseId}.${await sign(secret, "access", purchaseId)}`;
}

/** The purchase id a token grants, or null. Compared in constant time. */
export async function purchaseIdFromToken(secret: string, token: string | undefined | null): Promise<string | null> {
  if (!token) return null;
  const [id, sig] = token.split(".");
  if (!id || !sig || !/^[A-Za-z0-9]{1,32}$/.test(id)) return null;
  return (await verify(secret, "access", sig, id)) ? id : null;
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
