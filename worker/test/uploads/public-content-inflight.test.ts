// A GET /api/content/{id} read still under way when its creator changes the item must not put the
// old answer back over the replacement (worker/lib/public-content-cache.ts keepPublicContent): its
// read started before the change, so what it read may be the item as it was (docs/payments.md).
import { describe, expect, it } from "vitest";
import {
  answerOf,
  cachedPublicContent,
  forgetPublicContent,
  keepPublicContent,
  publicContentKey,
  replacePublicContent,
} from "../../lib/public-content-cache";

const env = { CF_VERSION_METADATA: { id: "inflight-test", tag: "", timestamp: "" } };
const url = (id: string) => `https://apewall.test/api/content/${id}`;

/** A waitUntil whose promises the test can wait for (the edge copy is written in the background). */
function context() {
  const pending: Promise<unknown>[] = [];
  return { ctx: { waitUntil: (p: Promise<unknown>) => void pending.push(p) }, settled: () => Promise.all(pending) };
}

const titleOf = async (key: string) => {
  const kept = await cachedPublicContent(key);
  return kept?.body ? (JSON.parse(new TextDecoder().decode(kept.body)) as { title: string }).title : undefined;
};
const edgeTitle = async (key: string) => {
  const stored = await caches.default.match(new Request(key));
  return stored ? (await stored.json<{ title: string }>()).title : undefined;
};
const later = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("a read under way while the item changes", () => {
  it("does not put its answer back over the edit's replacement, in memory or at the edge", async () => {
    const key = publicContentKey(env, url("inflightEdit1"), "inflightEdit1");
    const readStartedAt = Date.now();
    await later();
    await replacePublicContent(key, answerOf({ title: "After the edit" }));
    const { ctx, settled } = context();
    keepPublicContent(ctx, key, answerOf({ title: "Before the edit" }), readStartedAt);
    await settled();
    expect(await titleOf(key)).toBe("After the edit");
    expect(await edgeTitle(key)).toBe("After the edit");
  });

  it("does not keep its answer after the item's answer was dropped", async () => {
    const key = publicContentKey(env, url("inflightDrop1"), "inflightDrop1");
    const readStartedAt = Date.now();
    await later();
    await forgetPublicContent(env, url("inflightDrop1"), ["inflightDrop1"]);
    const { ctx, settled } = context();
    keepPublicContent(ctx, key, answerOf({ title: "Before the change" }), readStartedAt);
    await settled();
    expect(await titleOf(key)).toBeUndefined();
  });

  it("keeps a read that started after the change", async () => {
    const key = publicContentKey(env, url("inflightAfter1"), "inflightAfter1");
    await forgetPublicContent(env, url("inflightAfter1"), ["inflightAfter1"]);
    await later();
    const { ctx, settled } = context();
    keepPublicContent(ctx, key, answerOf({ title: "Read after" }), Date.now());
    await settled();
    expect(await titleOf(key)).toBe("Read after");
    expect(await edgeTitle(key)).toBe("Read after");
  });
});
