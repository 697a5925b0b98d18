// The rollups' local tools (GET /dev/rollups/compare, POST /dev/rollups/rebuild, GET /dev/explain,
// POST /dev/seed-sales; docs/money.md "Rollups") exist only where APP_ENV=development: anywhere else
// they answer 404 and change nothing (a rebuild in production would rewrite every creator's rollup).
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../app";
import { BASE, call, contentForm, env, postForm, row, signIn } from "../support/helpers";

async function creator() {
  const email = `rdr${Math.random().toString(36).slice(2, 10)}@example.com`;
  const cookie = await signIn(email);
  const id = (await row<{ id: string }>("select id from users where email = ?", email))!.id;
  const res = await postForm(
    "/api/content",
    contentForm({ title: "Guide", price: "20", accessType: "link", linkUrl: "https://example.com/guide" }),
    cookie,
  );
  expect(res.status).toBe(201);
  return { id, cookie, itemId: (await res.json<{ id: string }>()).id };
}

async function fetchAs(APP_ENV: string, path: string, body?: unknown, cookie?: string) {
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(new URL(path, BASE), {
      method: body ? "POST" : "GET",
      headers: { "content-type": "application/json", origin: BASE, ...(cookie ? { cookie } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    }),
    { ...(env as object), APP_ENV } as never,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

describe("the rollups' dev routes", () => {
  it("answer 404 outside development, even to a signed-in creator, and rebuild nothing", async () => {
    const c = await creator();
    await env.DB.prepare(
      "insert into ledger_daily (user_id, day, content_id, kind, cents, entries) values (?, '2026-01-02', ?, 'sale', 999, 1)",
    )
      .bind(c.id, c.itemId)
      .run();
    for (const APP_ENV of ["production", "staging", ""]) {
      for (const [path, body] of [
        [`/dev/rollups/compare?userId=${c.id}`, undefined],
        ["/dev/rollups/rebuild", { userId: c.id }],
        ["/dev/rollups/rebuild", {}],
        [`/dev/explain?userId=${c.id}`, undefined],
        ["/dev/seed-sales", { userId: c.id, sales: 10 }],
      ] as const) {
        const res = await fetchAs(APP_ENV, path, body, c.cookie);
        expect(res.status, `${APP_ENV} ${path}`).toBe(404);
      }
    }
    // The tampered row is still there (no rebuild ran) and no sale was seeded.
    expect(await row("select cents from ledger_daily where user_id = ? and day = '2026-01-02'", c.id)).toEqual({
      cents: 999,
    });
    expect(await row("select count(*) as n from purchases where creator_id = ?", c.id)).toEqual({ n: 0 });
    // In development, compare reports it.
    const res = await call(`/dev/rollups/compare?userId=${c.id}`);
    expect(res.status).toBe(200);
    expect((await res.json<{ differences: unknown[] }>()).differences.length).toBeGreaterThan(0);
  });
});
