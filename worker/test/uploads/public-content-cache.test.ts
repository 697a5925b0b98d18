// GET /api/content/{id} answered from the isolate's memory and the edge cache like the paywall page
// (worker/lib/public-content-cache.ts): the same answer as a fresh read, replaced or dropped at once
// where the creator changes what it shows, 404 kept for a deleted item and briefly for an unknown id.
import { describe, expect, it } from "vitest";
import { call, contentForm, env, postForm, postJson, signIn } from "../support/helpers";

type Answer = {
  id: string;
  title: string;
  price: number;
  availability: string;
  creator: { name: string | null; bio: string | null };
  bump: { id: string; title: string; price: number } | null;
};

async function publish(cookie: string, title: string, price = "5") {
  const form = contentForm({ title, price, accessType: "link", linkUrl: "https://example.com/notes" });
  const res = await postForm("/api/content", form, cookie);
  if (res.status !== 201) throw new Error(`publish failed ${res.status}: ${await res.text()}`);
  return (await res.json<{ id: string }>()).id;
}

async function read(id: string, cookie?: string) {
  const res = await call(`/api/content/${id}`, { cookie });
  const text = await res.text();
  return {
    status: res.status,
    text,
    headers: res.headers,
    body: res.status === 200 ? (JSON.parse(text) as Answer) : null,
  };
}

/** Changes the row behind the API's back (as another data center's copy would be): a cached answer does not show it. */
const retitleInD1 = (id: string, title: string) =>
  env.DB.prepare("update content set title = ? where id = ?").bind(title, id).run();

const sendJson = (method: string, path: string, body: unknown, cookie: string) =>
  call(path, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body), cookie });

describe("the public content call's cache", () => {
  it("answers from the cache exactly what a fresh read answers, to every caller alike", async () => {
    const owner = await signIn("answer-cache@example.com");
    const id = await publish(owner, "Cached answer");
    const fresh = await read(id);
    expect(fresh.status).toBe(200);
    expect(fresh.body).toMatchObject({ id, title: "Cached answer", price: 5, availability: "on_sale" });
    // Nothing internal: not the creator's user id, not the cache's own bookkeeping.
    expect(fresh.text).not.toContain("creatorId");
    expect(fresh.text).not.toContain("previewImageSize");

    await retitleInD1(id, "Changed behind the API");
    const cached = await read(id);
    expect(cached.text).toBe(fresh.text);
    expect([...cached.headers].filter(([k]) => k !== "date")).toEqual([...fresh.headers].filter(([k]) => k !== "date"));
    expect(cached.headers.get("content-type")).toBe("application/json");
    expect([...cached.headers.keys()].filter((k) => k.startsWith("x-apewall"))).toEqual([]);
    // The owner's cookie changes nothing of it.
    expect((await read(id, owner)).text).toBe(fresh.text);
  });

  it("shows an edit and taking the item off sale at once, though the old answer was cached", async () => {
    const owner = await signIn("answer-edit@example.com");
    const id = await publish(owner, "Before the edit");
    expect((await read(id)).body?.title).toBe("Before the edit");
    const edited = await sendJson("PATCH", `/api/content/${id}`, { title: "After the edit", price: "7.50" }, owner);
    expect(edited.status).toBe(200);
    expect((await read(id)).body).toMatchObject({ title: "After the edit", price: 7.5 });

    const off = await sendJson("PUT", `/api/content/${id}/published`, { published: false }, owner);
    expect(off.status).toBe(200);
    expect((await read(id)).body?.availability).toBe("unpublished");
    // Each change replaced the answer (read from the primary): it is served from the cache again.
    await retitleInD1(id, "Changed behind the API");
    expect((await read(id)).body?.title).toBe("After the edit");
  });

  it("shows a change of the creator's profile, of the item's order bump and of the add-on itself at once", async () => {
    const owner = await signIn("answer-profile@example.com");
    const id = await publish(owner, "Main item");
    const addOn = await publish(owner, "The add-on", "3");
    expect((await read(id)).body?.creator.bio).toBeNull();

    const profile = await sendJson("PUT", "/api/profile", { displayName: "Ada Ape", bio: "Field notes" }, owner);
    expect(profile.status).toBe(200);
    expect((await read(id)).body?.creator).toMatchObject({ name: "Ada Ape", bio: "Field notes" });

    const bump = await sendJson("PUT", `/api/content/${id}/bump`, { contentId: addOn, price: "2" }, owner);
    expect(bump.status).toBe(200);
    expect((await read(id)).body?.bump).toEqual({ id: addOn, title: "The add-on", price: 2 });
    // A change to the add-on is a change to every item offering it.
    expect((await sendJson("PATCH", `/api/content/${addOn}`, { title: "The workbook" }, owner)).status).toBe(200);
    expect((await read(id)).body?.bump?.title).toBe("The workbook");
    expect((await sendJson("PUT", `/api/content/${addOn}/published`, { published: false }, owner)).status).toBe(200);
    expect((await read(id)).body?.bump).toBeNull();
    expect((await sendJson("PUT", `/api/content/${addOn}/published`, { published: true }, owner)).status).toBe(200);
    expect((await read(id)).body?.bump?.title).toBe("The workbook");
    expect((await call(`/api/content/${addOn}`, { method: "DELETE", cookie: owner })).status).toBe(204);
    expect((await read(id)).body?.bump).toBeNull();
    const another = await publish(owner, "Another add-on", "3");
    expect((await sendJson("PUT", `/api/content/${id}/bump`, { contentId: another, price: "2" }, owner)).status).toBe(
      200,
    );
    expect((await read(id)).body?.bump?.id).toBe(another);
    expect((await call(`/api/content/${id}/bump`, { method: "DELETE", cookie: owner })).status).toBe(200);
    expect((await read(id)).body?.bump).toBeNull();
  });

  it("shows an item made upsell-only by a funnel step at once", async () => {
    const owner = await signIn("answer-upsell@example.com");
    const main = await publish(owner, "Main course", "12");
    const extra = await publish(owner, "Bonus pack", "7");
    expect((await read(extra)).body?.availability).toBe("on_sale");
    const funnel = await postJson("/api/funnels/for-item", { contentId: main }, owner);
    const { id: funnelId } = await funnel.json<{ id: string }>();
    const step = await postJson(
      `/api/funnels/${funnelId}/steps`,
      { title: "Bonus pack", contentId: extra, price: "7", upsellOnly: true },
      owner,
    );
    expect(step.status).toBe(201);
    expect((await read(extra)).body?.availability).toBe("upsell_only");
  });

  it("answers 404 for a deleted item, even if a replica that has not seen the delete still has it", async () => {
    const owner = await signIn("answer-delete@example.com");
    const id = await publish(owner, "Soon gone");
    expect((await read(id)).status).toBe(200);
    expect((await call(`/api/content/${id}`, { method: "DELETE", cookie: owner })).status).toBe(204);
    const gone = await read(id);
    expect(gone.status).toBe(404);
    expect(JSON.parse(gone.text)).toEqual({ message: "Content Not Found" });
    await env.DB.prepare("update content set deleted_at = null where id = ?").bind(id).run();
    expect((await read(id)).status).toBe(404);
  });

  it("remembers a 404 for an id the primary does not have: one that appears at once is still 404", async () => {
    expect((await read("answerLater1")).status).toBe(404);
    const owner = await signIn("answer-later@example.com");
    const id = await publish(owner, "Published later");
    await env.DB.prepare("update content set id = 'answerLater1' where id = ?").bind(id).run();
    const still = await read("answerLater1");
    expect(still.status).toBe(404);
    expect(JSON.parse(still.text)).toEqual({ message: "Content Not Found" });
  });
});
