// The library's sign-in: the same answer for any address, one-time links that expire, a limit per
// mailbox, and a session of its own that is no creator account (docs/library.md).
import { describe, expect, it } from "vitest";
import { LIBRARY_TEXT } from "../../../shared/library";
import { LIBRARY_LINKS_PER_WINDOW } from "../../services/library/links";
import { call, cookieValue, outbox, postJson, rows, signIn } from "../support/helpers";
import { LINK_SUBJECT, libraryCookie, paidWith, requestLibraryLink, signInWith } from "./library-fixtures";

const sha256Hex = async (s: string) =>
  [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s)))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");

describe("asking for a library link", () => {
  it("answers an address that bought and one never seen alike: same status, same body, same row; only a buyer is mailed", async () => {
    await paidWith("lib-same-creator@example.com", "lib-known@example.com");
    const known = await requestLibraryLink("Lib-Known@Example.com ");
    const unknown = await postJson("/api/library/link", { email: "lib-never-seen@example.com" });
    expect(known.res.status).toBe(202);
    expect(unknown.status).toBe(known.res.status);
    const [a, b] = [await known.res.json(), await unknown.json()];
    expect(a).toEqual({ message: LIBRARY_TEXT.linkSent });
    expect(b).toEqual(a);
    // Both do the same work (a token stored, hashed only); the queue sends only to the address that bought.
    for (const email of ["lib-known@example.com", "lib-never-seen@example.com"])
      expect(await rows("select token_hash from library_tokens where email = ?", email)).toHaveLength(1);
    expect(JSON.stringify(await rows("select * from library_tokens"))).not.toContain(known.token);
    expect(JSON.stringify(await rows("select job from outbox_emails"))).not.toContain(known.token);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await outbox()).filter((m) => m.to === "lib-never-seen@example.com")).toEqual([]);
  });

  it("refuses a malformed address with a clear message and sends nothing", async () => {
    const res = await postJson("/api/library/link", { email: "not-an-email" });
    expect(res.status).toBe(400);
    expect((await res.json<{ message: string }>()).message).toContain("valid email");
  });

  it(`sends a mailbox at most ${LIBRARY_LINKS_PER_WINDOW} links per window; more are answered alike and not sent`, async () => {
    const email = "lib-flooded@example.com";
    await paidWith("lib-flooded-seller@example.com", email);
    const answers = await Promise.all(
      Array.from({ length: LIBRARY_LINKS_PER_WINDOW + 3 }, () => postJson("/api/library/link", { email })),
    );
    for (const res of answers) {
      expect(res.status).toBe(202);
      expect(await res.json()).toEqual({ message: LIBRARY_TEXT.linkSent });
    }
    expect(await rows("select * from library_tokens where email = ?", email)).toHaveLength(LIBRARY_LINKS_PER_WINDOW);
    await new Promise((r) => setTimeout(r, 1500));
    const sent = (await outbox()).filter((m) => m.to === email && m.subject === LINK_SUBJECT);
    expect(sent).toHaveLength(LIBRARY_LINKS_PER_WINDOW);
  });
});

describe("the emailed link", () => {
  it("opens the /library page, which signs in only on the button's POST, once", async () => {
    const { token, link } = await requestLibraryLink("lib-once@example.com");
    expect(link.pathname).toBe("/library");
    // Opening the page (a mail scanner does) uses nothing up.
    expect((await call(link.pathname + link.search)).status).toBe(200);
    const first = await signInWith(token);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ email: "lib-once@example.com" });
    const cookie = first.headers.getSetCookie().find((h) => h.startsWith("aw_library="))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    const second = await signInWith(token);
    expect(second.status).toBe(400);
    expect(await second.json()).toEqual({ message: LIBRARY_TEXT.linkInvalid });
    expect(cookieValue(second, "aw_library")).toBeUndefined();
  });

  it("two uses at once: exactly one signs in", async () => {
    const { token } = await requestLibraryLink("lib-race@example.com");
    const answers = await Promise.all([signInWith(token), signInWith(token), signInWith(token)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400, 400]);
  });

  it("after 15 minutes it is refused", async () => {
    const { token } = await requestLibraryLink("lib-expired@example.com");
    // Fifteen minutes pass.
    await rows(
      "update library_tokens set expires_at = ?, created_at = ? where token_hash = ?",
      Date.now() - 1,
      Date.now() - 15 * 60_000 - 1,
      await sha256Hex(token),
    );
    const res = await signInWith(token);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: LIBRARY_TEXT.linkInvalid });
  });

  it("a made-up or malformed token is refused, never a 5xx", async () => {
    expect((await signInWith("A".repeat(43))).status).toBe(400);
    expect((await signInWith("")).status).toBe(400);
    expect((await signInWith("x".repeat(500))).status).toBe(400);
  });
});

describe("the library session", () => {
  it("names its email, is no creator session, and signs out", async () => {
    const cookie = await libraryCookie("lib-session@example.com");
    const me = await call("/api/library/session", { cookie });
    expect(await me.json()).toEqual({ email: "lib-session@example.com" });
    // No creator power: the creator's API sees nobody signed in.
    expect((await call("/api/auth/user", { cookie })).status).toBe(401);
    expect((await call("/api/content", { cookie })).status).toBe(401);
    const out = await call("/api/library/sign-out", { method: "POST", cookie });
    expect(await out.json()).toEqual({ signedOut: true });
    expect((await call("/api/library/session", { cookie })).status).toBe(401);
    expect((await call("/api/library/purchases", { cookie })).status).toBe(401);
  });

  it("a creator's session gives no library, even for the creator's own address", async () => {
    const creator = await signIn("lib-creator-only@example.com");
    await paidWith("lib-creator-seller@example.com", "lib-creator-only@example.com");
    expect((await call("/api/library/session", { cookie: creator })).status).toBe(401);
    const list = await call("/api/library/purchases", { cookie: creator });
    expect(list.status).toBe(401);
    expect(await list.json()).toEqual({ message: "Not signed in to the library" });
  });

  it("a forged or ended cookie is nobody", async () => {
    for (const cookie of ["aw_library=forged-forged-forged-forged-forged", "aw_library=%00bad", "aw_library="]) {
      expect((await call("/api/library/purchases", { cookie })).status).toBe(401);
    }
  });
});
