// The content call's answers an isolate keeps in memory are bounded in bytes as well as in number
// (worker/lib/public-content-cache.ts): a long description makes an answer of tens of KB, and 500 of
// them would hold 15 MB of an isolate's 128 MB (docs/payments.md, "The paywall page").
import { describe, expect, it } from "vitest";
import { answerOf, cachedPublicContent, keepPublicContent, publicContentKey } from "../../lib/public-content-cache";

const env = { CF_VERSION_METADATA: { id: "memory-test", tag: "", timestamp: "" } };

describe("the content call's answers in memory", () => {
  it("drop the least recently used once they hold more than 2 MB, though fewer than 500", async () => {
    const pending: Promise<unknown>[] = [];
    const ctx = { waitUntil: (p: Promise<unknown>) => void pending.push(p) };
    const keys = Array.from({ length: 100 }, (_, i) =>
      publicContentKey(env, "https://apewall.test/api/content/x", `memoryTest${i}`),
    );
    const description = "a".repeat(25_000);
    for (const key of keys) keepPublicContent(ctx, key, answerOf({ description }), Date.now());
    await Promise.all(pending);
    // Without the edge copies, only what memory holds is found.
    await Promise.all(keys.map((key) => caches.default.delete(new Request(key))));
    expect(await cachedPublicContent(keys[0]!)).toBeUndefined();
    expect(await cachedPublicContent(keys[99]!)).toBeDefined();
    let held = 0;
    for (const key of keys.slice().reverse()) if (await cachedPublicContent(key)) held++;
    expect(held).toBeGreaterThan(50);
    expect(held).toBeLessThanOrEqual(80);
  });
});
