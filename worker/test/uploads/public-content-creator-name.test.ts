// A creator who signed up by emailed link has no name until a first GitHub or Google sign-in fills it
// in: their items' public answers (GET /api/content/{id}: "by {name}", user.firstName) show it at once,
// though the old answer was cached (worker/lib/public-content-refresh.ts, docs/payments.md).
import { afterEach, describe, expect, it, vi } from "vitest";
import { call, contentForm, postForm, signIn } from "../support/helpers";

afterEach(() => vi.restoreAllMocks());

type Answer = { user: { firstName: string | null }; creator: { name: string | null } };
const read = async (id: string) => (await call(`/api/content/${id}`)).json<Answer>();

async function signInWithGithub(email: string) {
  const start = await call("/api/auth/oauth/github?returnTo=/upload");
  const state = new URL(start.headers.get("location")!).searchParams.get("state")!;
  const cookies = start.headers
    .getSetCookie()
    .map((h) => h.split(";")[0])
    .join("; ");
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.href === "https://github.com/login/oauth/access_token")
      return Response.json({ access_token: "gho_test", token_type: "bearer", scope: "read:user,user:email" });
    if (url.href === "https://api.github.com/user")
      return Response.json({ id: 5151, login: "ada", name: "Ada Lovelace" });
    if (url.href === "https://api.github.com/user/emails")
      return Response.json([{ email, primary: true, verified: true }]);
    throw new Error(`unexpected fetch ${url}`);
  });
  const res = await call(`/api/auth/oauth/github/callback?code=abc&state=${state}`, { cookie: cookies });
  vi.restoreAllMocks();
  return res;
}

describe("the name a sign-in fills in", () => {
  it("shows on the creator's items' public answers at once", async () => {
    const email = "named-later@example.com";
    const owner = await signIn(email);
    const form = contentForm({
      title: "Named later",
      price: "5",
      accessType: "link",
      linkUrl: "https://example.com/n",
    });
    const published = await postForm("/api/content", form, owner);
    expect(published.status).toBe(201);
    const { id } = await published.json<{ id: string }>();
    const before = await read(id);
    expect(before.user.firstName).toBeNull();
    expect(before.creator.name).not.toBe("Ada Lovelace");

    expect((await signInWithGithub(email)).status).toBe(302);
    const after = await read(id);
    expect(after.user.firstName).toBe("Ada");
    expect(after.creator.name).toBe("Ada Lovelace");
  });
});
