// Short-lived download URLs signed for one purchase. The paywall and success page navigate to one,
// so the browser streams the file to disk as it arrives (never a blob of up to 5 GB in memory),
// and a URL copied out of the browser stops working after a few minutes.
import { sign, verify } from "../lib/signing";

/** How long a signed download URL works. Long enough to start a download, short enough that a shared copy dies. */
const DOWNLOAD_URL_TTL_SECONDS = 5 * 60;

/** `/api/purchases/{id}/download?expires=…&sig=…`, valid for DOWNLOAD_URL_TTL_SECONDS from `nowMs`. */
export async function signedDownloadPath(
  secret: string,
  purchaseId: string,
  nowMs = Date.now(),
): Promise<{ url: string; expiresAt: string }> {
  const expires = Math.floor(nowMs / 1000) + DOWNLOAD_URL_TTL_SECONDS;
  const q = new URLSearchParams({ expires: String(expires), sig: await sign(secret, "download", purchaseId, expires) });
  return { url: `/api/purchases/${purchaseId}/download?${q}`, expiresAt: new Date(expires * 1000).toISOString() };
}

/** True when `sig` was made by signedDownloadPath for this purchase and has not expired. Constant-time compare. */
export async function downloadSignatureValid(
  secret: string,
  purchaseId: string,
  expiresParam: string | undefined,
  sig: string | undefined,
  nowMs = Date.now(),
): Promise<boolean> {
  if (!expiresParam || !sig || !/^\d{1,12}$/.test(expiresParam)) return false;
  const expires = Number(expiresParam);
  const now = Math.floor(nowMs / 1000);
  if (expires < now || expires > now + DOWNLOAD_URL_TTL_SECONDS) return false;
  return verify(secret, "download", sig, purchaseId, expires);
}
