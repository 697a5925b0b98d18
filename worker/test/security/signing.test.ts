import { describe, expect, it } from "vitest";
import { signedDownloadPath } from "../../services/download-links";
import { accessTokenFor, purchaseIdFromToken } from "../../services/purchases/access-tokens";
import { recoverToken, unsubscribeToken } from "../../services/purchases/recovery";
import { sign, verify } from "../../lib/signing";

// HMAC-SHA256("test-secret", message) as base64url, computed outside the worker (node:crypto): the
// bytes each token kind signed before lib/signing.ts existed, so links already sent keep working.
const SECRET = "test-secret";
const VECTORS = {
  access: "JnMGRAHOQb6SO_Z6Y83JBJthybsSvwzJF0AS5mJDz3k", // "access:AbC123"
  download: "sDRy_txHww9jB5Iz00b26zTvMIOFb_HP8lkmH0eNzLk", // "download:AbC123:1767225600"
  recover: "ya4_aaJUshdTsIliBj7mUbsbMuFabwGr5Hl28tzRGhw", // "recover:AbC123:1767225600000:buyer@example.com"
  unsubscribe: "E3hDfBE5RZH56SbUs6a_iLOZ9hygnK1HO0LGx-VXG2Q", // "unsubscribe:buyer@example.com"
};

describe("signing", () => {
  it("signs each token kind's message as it always has", async () => {
    expect(await accessTokenFor(SECRET, "AbC123")).toBe(`AbC123.${VECTORS.access}`);
    const expires = 1767225600;
    const link = await signedDownloadPath(SECRET, "AbC123", (expires - 5 * 60) * 1000);
    expect(new URL(link.url, "http://x").searchParams.get("sig")).toBe(VECTORS.download);
    const recoverAt = 1767225600000 - 7 * 24 * 3600 * 1000;
    expect(await recoverToken(SECRET, "AbC123", "Buyer@Example.com", recoverAt)).toBe(
      `AbC123.1767225600000.${VECTORS.recover}`,
    );
    expect((await unsubscribeToken(SECRET, "buyer@example.com")).split(".")[1]).toBe(VECTORS.unsubscribe);
  });

  it("verifies a signature only for its own purpose, parts and secret", async () => {
    expect(await purchaseIdFromToken(SECRET, `AbC123.${VECTORS.access}`)).toBe("AbC123");
    expect(await verify(SECRET, "download", VECTORS.download, "AbC123", 1767225600)).toBe(true);
    // The same parts under another purpose, other parts, another secret or a cut signature: refused.
    expect(
      await verify(SECRET, "recover", await sign(SECRET, "download", "AbC123", 1767225600), "AbC123", 1767225600),
    ).toBe(false);
    expect(await verify(SECRET, "download", VECTORS.download, "AbC123", 1767225601)).toBe(false);
    expect(await verify("other-secret", "access", VECTORS.access, "AbC123")).toBe(false);
    expect(await verify(SECRET, "access", VECTORS.access.slice(0, -1), "AbC123")).toBe(false);
    expect(await purchaseIdFromToken(SECRET, `AbC124.${VECTORS.access}`)).toBeNull();
  });
});
