// Who the buyer pays: the creator's profile in /settings, and "by {name}" with the avatar
// and a contact link on the paywall and in the buyer's emails.
import { describe, expect, it } from "vitest";
import { PROFILE_MESSAGES } from "../../../shared/profile";
import {
  call,
  checkout,
  contentForm,
  deliver,
  env,
  eventFor,
  PNG_1X1,
  postForm,
  signIn,
  waitForMail,
} from "../support/helpers";

const putJson = (path: string, body: unknown, cookie?: string) =>
  call(path, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(body), cookie });
const putAvatar = (bytes: Uint8Array | string, type: string, cookie?: string) =>
  call("/api/profile/avatar", { method: "PUT", headers: { "content-type": type }, body: bytes, cookie });
const profile = { displayName: "", bio: "", supportEmail: "" };

async function publish(cookie: string, title = "Guide") {
  const res = await postForm(
    "/api/content",
    contentForm({ title, price: "10", accessType: "link", linkUrl: "https://example.com/guide" }),
    cookie,
  );
  if (res.status !== 201) throw new Error(await res.text());
  return (await res.json<{ id: string }>()).id;
}

async function paywall(id: string) {
  const res = await call(`/p/${id}`);
  expect(res.status).toBe(200);
  return { html: await res.text(), cache: res.headers.get("x-paywall-cache") };
}

describe("the creator's profile", () => {
  it("refuses each bad field with that field's own message", async () => {
    const cookie = await signIn("profile-validation@example.com");
    const refused = async (body: unknown) => {
      const res = await putJson("/api/profile", body, cookie);
      expect(res.status).toBe(400);
      return (await res.json<{ message: string }>()).message;
    };
    expect(await refused({ ...profile, displayName: "x".repeat(61) })).toBe(
      `displayName: ${PROFILE_MESSAGES.displayName}`,
    );
    expect(await refused({ ...profile, displayName: "two\nlines" })).toBe(
      `displayName: ${PROFILE_MESSAGES.displayNameLine}`,
    );
    expect(await refused({ ...profile, bio: "x".repeat(281) })).toBe(`bio: ${PROFILE_MESSAGES.bio}`);
    expect(await refused({ ...profile, supportEmail: "not-an-email" })).toBe(
      `supportEmail: ${PROFILE_MESSAGES.supportEmail}`,
    );
    expect(await refused({ displayName: 5, bio: "", supportEmail: "" })).toBe(
      `displayName: ${PROFILE_MESSAGES.displayName}`,
    );
    // Posing as us: our name in the display name, or one of our addresses as the support email.
    expect(await refused({ ...profile, displayName: "ApeWall Support" })).toBe(
      `displayName: ${PROFILE_MESSAGES.displayNameOurs}`,
    );
    expect(await refused({ ...profile, supportEmail: "help@apewall.test" })).toBe(
      `supportEmail: ${PROFILE_MESSAGES.supportEmailOurs}`,
    );
    expect(await refused({ ...profile, supportEmail: "billing@mail.ApeWall.com" })).toBe(
      `supportEmail: ${PROFILE_MESSAGES.supportEmailOurs}`,
    );

    // The longest allowed values are kept; saving twice is the same profile.
    const ok = { displayName: "x".repeat(60), bio: "y".repeat(280), supportEmail: "Help@Example.com" };
    const first = await putJson("/api/profile", ok, cookie);
    expect(first.status).toBe(200);
    const again = await putJson("/api/profile", ok, cookie);
    expect(await again.json()).toEqual(await first.json());
    expect(await (await call("/api/profile", { cookie })).json()).toMatchObject({
      displayName: "x".repeat(60),
      bio: "y".repeat(280),
      supportEmail: "help@example.com",
      avatarUrl: null,
    });
  });

  it("the sale-email switch saves alone: the text fields stay, even a name saved before today's rules", async () => {
    const cookie = await signIn("profile-switch@example.com");
    expect(
      (
        await putJson(
          "/api/profile",
          { displayName: "Switch Studio", bio: "Bio", supportEmail: "help@switch.example" },
          cookie,
        )
      ).status,
    ).toBe(200);
    // A name saved before the rule against our own name existed.
    await env.DB.prepare(
      "update creator_profiles set display_name = 'ApeWall Fans' where user_id = (select id from users where email = 'profile-switch@example.com')",
    ).run();
    const off = await putJson("/api/profile", { emailOnSale: false }, cookie);
    expect(off.status).toBe(200);
    expect(await off.json()).toMatchObject({
      displayName: "ApeWall Fans",
      bio: "Bio",
      supportEmail: "help@switch.example",
      emailOnSale: false,
    });
  });

  it("belongs to its creator: signed out is refused, and one creator's save never shows on another's paywall", async () => {
    expect((await call("/api/profile")).status).toBe(401);
    expect((await putJson("/api/profile", { ...profile, displayName: "Intruder" })).status).toBe(401);
    expect((await putAvatar(PNG_1X1, "image/png")).status).toBe(401);

    const alice = await signIn("profile-alice@example.com");
    const bob = await signIn("profile-bob@example.com");
    const bobsItem = await publish(bob);
    expect((await putJson("/api/profile", { ...profile, displayName: "Alice Studio" }, alice)).status).toBe(200);
    expect((await putAvatar(PNG_1X1, "image/png", alice)).status).toBe(200);
    expect(await (await call("/api/profile", { cookie: bob })).json()).toMatchObject({
      displayName: null,
      avatarUrl: null,
    });
    const { html } = await paywall(bobsItem);
    expect(html).not.toContain("Alice Studio");
    expect(html).toContain("by an ApeWall creator");
  });

  it("falls back to the account's first and last name, then to 'an ApeWall creator'", async () => {
    const cookie = await signIn("profile-fallback@example.com");
    const id = await publish(cookie);
    expect((await paywall(id)).html).toContain("by an ApeWall creator");
    await env.DB.prepare(
      "update users set first_name = 'Ada', last_name = 'Lovelace' where email = 'profile-fallback@example.com'",
    ).run();
    await putJson("/api/profile", profile, cookie);
    expect((await paywall(id)).html).toContain("by Ada Lovelace");
  });
});

describe("the paywall says who the buyer pays", () => {
  it("shows the new name, avatar and contact link right after a change, though the page was cached", async () => {
    const cookie = await signIn("profile-cache@example.com");
    const id = await publish(cookie);
    await putJson("/api/profile", { ...profile, displayName: "Old Name" }, cookie);
    let page = await paywall(id);
    for (let i = 0; i < 20 && page.cache !== "HIT"; i++) page = await paywall(id);
    expect(page.cache).toBe("HIT");
    expect(page.html).toContain("by Old Name");

    expect(
      (
        await putJson(
          "/api/profile",
          { displayName: "New Name", bio: "I make guides.", supportEmail: "help@new.example" },
          cookie,
        )
      ).status,
    ).toBe(200);
    const avatar = await putAvatar(PNG_1X1, "image/png", cookie);
    expect(avatar.status).toBe(200);
    const { avatarUrl } = await avatar.json<{ avatarUrl: string }>();

    const after = await paywall(id);
    expect(after.html).toContain("by New Name");
    expect(after.html).not.toContain("Old Name");
    expect(after.html).toContain(`src="${avatarUrl}"`);
    expect(after.html).toContain('href="mailto:help@new.example"');
    expect(after.html).toContain("I make guides.");
    // The item's public detail (checkout reads it) says the same.
    const detail = await (await call(`/api/content/${id}`)).json<{ creator: unknown }>();
    expect(detail.creator).toEqual({
      name: "New Name",
      avatarUrl,
      bio: "I make guides.",
      supportEmail: "help@new.example",
    });
  });

  it("escapes what the creator typed, on the paywall and in the receipt email", async () => {
    const cookie = await signIn("profile-xss@example.com");
    const id = await publish(cookie);
    const name = `<script>alert(1)</script>"><img src=x onerror=alert(2)>`;
    expect(
      (await putJson("/api/profile", { displayName: name, bio: "<b>bold</b>", supportEmail: "x@example.com" }, cookie))
        .status,
    ).toBe(200);

    const { html } = await paywall(id);
    expect(html).not.toContain("<script>alert(1)");
    expect(html).not.toContain("<img src=x");
    expect(html).not.toContain("<b>bold</b>");
    expect(html).toContain("by &lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;");

    const { paymentIntent, buyerCookie } = await checkout(id, { email: "profile-xss-buyer@example.com" });
    expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
    // The success page's data names the same creator (React escapes it there).
    const verified = await call(`/api/purchase/verify?payment_intent=${paymentIntent}&content_id=${id}`, {
      cookie: buyerCookie,
    });
    expect(
      (await verified.json<{ content: { creator: { name: string; supportEmail: string } } }>()).content.creator,
    ).toMatchObject({ name, supportEmail: "x@example.com" });
    const mail = await waitForMail("profile-xss-buyer@example.com");
    expect(mail.html).not.toContain("<script>alert(1)");
    expect(mail.html).not.toContain("<img src=x");
    expect(mail.html).toContain("by &lt;script&gt;alert(1)&lt;/script&gt;");
    expect(mail.html).toContain('href="mailto:x@example.com"');
    expect(mail.text).toContain(`by ${name}`);
  });
});

describe("the avatar", () => {
  it("refuses what is not a JPEG, PNG or WebP image, and serves the one kept with its own type and nosniff", async () => {
    const cookie = await signIn("profile-avatar@example.com");
    const html = "<html><script>alert(1)</script></html>";
    expect((await putAvatar(html, "text/html", cookie)).status).toBe(415);
    const disguised = await putAvatar(html, "image/png", cookie);
    expect(disguised.status).toBe(400);
    expect((await disguised.json<{ message: string }>()).message).toBe(PROFILE_MESSAGES.avatarType);
    const svg = `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`;
    expect((await putAvatar(svg, "image/svg+xml", cookie)).status).toBe(400);
    const gif = new TextEncoder().encode("GIF89a\x01\x00\x01\x00\x00\x00\x00;");
    expect((await putAvatar(gif, "image/gif", cookie)).status).toBe(400);
    expect((await putAvatar(new Uint8Array(5 * 1024 * 1024 + 1), "image/png", cookie)).status).toBe(413);
    expect(await (await call("/api/profile", { cookie })).json()).toMatchObject({ avatarUrl: null });

    const saved = await putAvatar(PNG_1X1, "image/png", cookie);
    expect(saved.status).toBe(200);
    const { avatarUrl } = await saved.json<{ avatarUrl: string }>();
    // The same image again is the same avatar.
    expect((await (await putAvatar(PNG_1X1, "image/png", cookie)).json<{ avatarUrl: string }>()).avatarUrl).toBe(
      avatarUrl,
    );
    const served = await call(avatarUrl);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(served.headers.get("x-content-type-options")).toBe("nosniff");
    expect(served.headers.get("content-security-policy")).toContain("sandbox");
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(PNG_1X1);

    // Removed, its address answers 404.
    expect((await call("/api/profile/avatar", { method: "DELETE", cookie })).status).toBe(200);
    expect((await call(avatarUrl)).status).toBe(404);
  });
});
