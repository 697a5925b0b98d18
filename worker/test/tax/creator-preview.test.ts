// Review of the creator's tax preview (docs/tax.md "What the creator sees"): each price not cached
// costs five Stripe Tax calculations, so a creator typing price after price must be bounded; the
// KV cache is an optimisation, so a write it refuses must not fail the answer.
import { describe, expect, it } from "vitest";
import { TOO_MANY_REQUESTS } from "../../lib/rate-limit";
import { stripeClient } from "../../services/stripe";
import { taxPreview } from "../../services/tax/preview";
import { call, env, signIn, startOfLimitWindow } from "../support/helpers";

describe("the tax preview's calls to Stripe", () => {
  it("are limited per creator on prices not cached; a cached price still answers", async () => {
    const cookie = await signIn(`review-preview-${Date.now()}@example.com`);
    await startOfLimitWindow();
    // Prices nobody else previews, so none is cached.
    const base = 600_000 + Math.floor(Math.random() * 30_000) * 10;
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await call(`/api/settings/tax/preview?priceCents=${base + i}&behavior=exclusive`, { cookie });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(await res.json()).toMatchObject({ message: TOO_MANY_REQUESTS });
        expect(res.headers.get("retry-after")).toBe("60");
      }
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.slice(10)).toEqual([429, 429]);
    // Nothing is cached for a refused price; a cached one is served without asking Stripe.
    expect(await env.SESSIONS.get(`tax-preview:v1:${base + 11}:exclusive`)).toBeNull();
    const cached = await call(`/api/settings/tax/preview?priceCents=${base}&behavior=exclusive`, { cookie });
    expect(cached.status).toBe(200);
    // Another creator is not held back by this one.
    const other = await signIn(`review-preview-other-${Date.now()}@example.com`);
    const res = await call(`/api/settings/tax/preview?priceCents=${base + 11}&behavior=exclusive`, { cookie: other });
    expect(res.status).toBe(200);
  });
});

describe("the tax preview's cache", () => {
  it("a KV write refused (one write a second per key: two creators at once) still answers the preview", async () => {
    const kv = {
      get: async () => null,
      put: async () => {
        throw new Error("KV PUT failed: 429 Too Many Requests");
      },
    } as unknown as KVNamespace;
    const stripe = () => stripeClient(env);
    const preview = await taxPreview({ stripe, kv }, 1234, "inclusive", "free");
    expect(preview.rows).toHaveLength(5);
    expect(preview.rows[0]).toMatchObject({ id: "fr", buyerPays: 12.34 });
  });
});
