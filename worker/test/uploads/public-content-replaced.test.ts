// A change to what items' public answers show (the creator's profile, an order bump, an add-on, a
// funnel step making an item upsell-only) replaces their cached GET /api/content/{id} answers with
// ones read from the primary at once, as an edit does, rather than dropping them: a visitor's next
// read comes from a replica that may not have the change yet, which would keep the old answer for
// a minute (worker/lib/public-content-refresh.ts, docs/payments.md "The paywall page").
import { describe, expect, it } from "vitest";
import { call, contentForm, env, postForm, postJson, signIn } from "../support/helpers";

async function publish(cookie: string, title: string, price = "5") {
  const form = contentForm({ title, price, accessType: "link", linkUrl: "https://example.com/notes" });
  const res = await postForm("/api/content", form, cookie);
  if (res.status !== 201) throw new Error(`publish failed ${res.status}: ${await res.text()}`);
  return (await res.json<{ id: string }>()).id;
}

type Answer = {
  title: string;
  availability: string;
  creator: { name: string | null };
  bump: { id: string; title: string } | null;
};
async function read(id: string): Promise<Answer> {
  const res = await call(`/api/content/${id}`);
  expect(res.status).toBe(200);
  return res.json<Answer>();
}

/**
 * The title only a read after the change would see: written behind the API's back, as a lagging
 * replica would answer with something other than the primary had at the change.
 */
const retitleInD1 = (ids: string[], title: string) =>
  env.DB.batch(ids.map((id) => env.DB.prepare("update content set title = ? where id = ?").bind(title, id)));

const send = (method: string, path: string, body: unknown, cookie: string) =>
  call(path, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body), cookie });

describe("a change replaces the public answers it touches, read from the primary", () => {
  it("a profile change: the answer has the new name at once, and is the one read at the change", async () => {
    const owner = await signIn("replaced-profile@example.com");
    const id = await publish(owner, "Profile item");
    await read(id);
    expect((await send("PUT", "/api/profile", { displayName: "Ada Ape", bio: "" }, owner)).status).toBe(200);
    await retitleInD1([id], "Read after the change");
    expect(await read(id)).toMatchObject({ title: "Profile item", creator: { name: "Ada Ape" } });
  });

  it("setting and removing an order bump", async () => {
    const owner = await signIn("replaced-bump@example.com");
    const id = await publish(owner, "Bump item");
    const addOn = await publish(owner, "Bump add-on", "3");
    await read(id);
    expect((await send("PUT", `/api/content/${id}/bump`, { contentId: addOn, price: "2" }, owner)).status).toBe(200);
    await retitleInD1([id], "Read after the change");
    expect(await read(id)).toMatchObject({ title: "Bump item", bump: { id: addOn, title: "Bump add-on" } });

    await retitleInD1([id], "Bump item");
    expect((await call(`/api/content/${id}/bump`, { method: "DELETE", cookie: owner })).status).toBe(200);
    await retitleInD1([id], "Read after the change");
    expect(await read(id)).toMatchObject({ title: "Bump item", bump: null });
  });

  it("an edit of the add-on, for every item offering it", async () => {
    const owner = await signIn("replaced-addon@example.com");
    const id = await publish(owner, "Offering item");
    const addOn = await publish(owner, "Old add-on", "3");
    expect((await send("PUT", `/api/content/${id}/bump`, { contentId: addOn, price: "2" }, owner)).status).toBe(200);
    await read(id);
    expect((await send("PATCH", `/api/content/${addOn}`, { title: "New add-on" }, owner)).status).toBe(200);
    await retitleInD1([id], "Read after the change");
    expect(await read(id)).toMatchObject({ title: "Offering item", bump: { title: "New add-on" } });
  });

  it("a funnel step that makes an item upsell-only", async () => {
    const owner = await signIn("replaced-upsell@example.com");
    const main = await publish(owner, "Funnel main", "12");
    const extra = await publish(owner, "Funnel extra", "7");
    await read(extra);
    const { id: funnelId } = await (await postJson("/api/funnels/for-item", { contentId: main }, owner)).json<{
      id: string;
    }>();
    const step = await postJson(
      `/api/funnels/${funnelId}/steps`,
      { title: "Funnel extra", contentId: extra, price: "7", upsellOnly: true },
      owner,
    );
    expect(step.status).toBe(201);
    await retitleInD1([extra], "Read after the change");
    expect(await read(extra)).toMatchObject({ title: "Funnel extra", availability: "upsell_only" });
  });

  it("a creator with more items than one change replaces: the rest are dropped and show the change too", async () => {
    const owner = await signIn("replaced-many@example.com");
    const ids: string[] = [];
    for (let i = 0; i < 22; i++) ids.push(await publish(owner, `Many ${i}`));
    for (const id of ids) await read(id);
    expect((await send("PUT", "/api/profile", { displayName: "Many Items", bio: "" }, owner)).status).toBe(200);
    for (const id of ids) expect((await read(id)).creator.name).toBe("Many Items");
  });
});
