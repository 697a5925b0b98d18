// /library as the Worker renders it (docs/library.md, docs/pages.md): signed out, the link form's texts;
// with a valid library cookie, that buyer's purchases only, finished in the HTML, a page at a time;
// an ended or forged cookie gets the form; bad query input a 4xx; the policy; the plain form posts.
import { describe, expect, it } from "vitest";
import { LIBRARY_PAGE_SIZE, LIBRARY_TEXT } from "../../../shared/library";
import { LIBRARY_PAGE_TEXT as T } from "../../../shared/library-text";
import { LOST_ACCESS_TEXT } from "../../../shared/paywall";
import { BASE, call, env, row, rows } from "../support/helpers";
import { libraryCookie, paidWith } from "../library/library-fixtures";

const html = async (res: Response) => {
  expect(res.headers.get("content-type")).toContain("text/html");
  return res.text();
};

/** `count` more paid purchases like `purchaseId`, each a second older than the last. */
async function cloneOlder(purchaseId: string, count: number) {
  const columns = (await rows<{ name: string }>("select name from pragma_table_info('purchases')")).map((c) => c.name);
  const base = (await row<{ at: number }>("select paid_at as at from purchases where id = ?", purchaseId))!.at;
  const values = columns.map((name) =>
    name === "id"
      ? "?1"
      : name === "payment_intent_id" || name === "access_token_hash"
        ? "?1 || 'x'"
        : name === "paid_at" || name === "created_at"
          ? "?2"
          : name,
  );
  const sql = `insert into purchases (${columns.join(", ")}) select ${values.join(", ")} from purchases where id = ?3`;
  await env.DB.batch(
    Array.from({ length: count }, (_, i) =>
      env.DB.prepare(sql).bind(`libhtml${String(i + 1).padStart(4, "0")}`, base - (i + 1) * 1000, purchaseId),
    ),
  );
}

const form = (body: Record<string, string>, origin = BASE) =>
  call("/library", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin },
    body: new URLSearchParams(body).toString(),
  });

describe("/library signed out", () => {
  it("is the link form, word for word, readable with no script; the link's two states are in the page", async () => {
    const res = await call("/library");
    expect(res.status).toBe(200);
    const page = await html(res);
    for (const text of [T.title, T.emailLabel, T.requestLink, T.openTitle, T.open, LIBRARY_TEXT.linkInvalid])
      expect(page).toContain(text);
    expect(page).toContain(T.intro.replace("'", "&#39;"));
    expect(page).toContain('<form method="post" action="/library"');
    expect(page).not.toContain("library-session-ended");
    // Private: never kept by a shared cache; the site's policy with Turnstile's origin for the bot check.
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    expect(res.headers.get("x-page-cache")).toBeNull();
    const csp = res.headers.get("content-security-policy")!;
    const turnstile = new URL((env as unknown as { TURNSTILE_SCRIPT_URL: string }).TURNSTILE_SCRIPT_URL).origin;
    expect(csp).toContain(`script-src 'self' ${turnstile};`);
    expect(csp).toContain("connect-src 'self';");
    // A bought stream plays in the page, from this origin.
    expect(csp).toContain("media-src 'self';");
    expect(page.match(/<script\b[^>]*\bsrc=/g)).toHaveLength(1);
    expect(page).toContain('<meta name="robots" content="noindex" />');
  });

  it("says the session ended when the island comes back with ?ended=1", async () => {
    const page = await html(await call("/library?ended=1"));
    expect(page).toContain('data-testid="library-session-ended"');
    expect(page).toContain(T.sessionEnded);
  });

  it("answers bad query input with a 400, not a 5xx", async () => {
    for (const query of ["cursor=bad", "cursor=1.%3Cscript%3E", `cursor=${"9".repeat(20)}.a`, "ended=yes"]) {
      const res = await call(`/library?${query}`);
      expect(res.status, query).toBe(400);
    }
  });

  it("a creator's session gives no library, even for the creator's own address", async () => {
    const { creatorCookie } = await paidWith("lib-html-creator@example.com", "lib-html-creator@example.com");
    const page = await html(await call("/library", { cookie: creatorCookie }));
    expect(page).toContain(T.requestLink);
    expect(page).not.toContain("Signed in as");
  });

  it("an ended or forged library cookie gets the form", async () => {
    const cookie = await libraryCookie("lib-html-ended@example.com");
    expect(await html(await call("/library", { cookie }))).toContain("Signed in as lib-html-ended@example.com");
    expect((await call("/api/library/sign-out", { method: "POST", cookie })).status).toBe(200);
    for (const stale of [cookie, "aw_library=forgedforgedforgedforgedforged", "aw_library=<script>"]) {
      const page = await html(await call("/library", { cookie: stale }));
      expect(page).toContain(T.requestLink);
      expect(page).not.toContain("Signed in as");
    }
  });
});

describe("/library signed in", () => {
  it("renders that buyer's purchases only, finished in the HTML, never another email's", async () => {
    const mine = await paidWith("lib-html-seller-a@example.com", "lib-html-mine@example.com", {
      title: 'Field <recordings> & "notes"',
    });
    await paidWith("lib-html-seller-b@example.com", "lib-html-other@example.com", { title: "Someone else's item" });
    const cookie = await libraryCookie("LIB-HTML-MINE@example.com");
    const res = await call("/library", { cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    const page = await html(res);
    expect(page).toContain("Signed in as lib-html-mine@example.com");
    expect(page).toContain("Field &lt;recordings&gt; &amp; &quot;notes&quot;");
    expect(page).not.toContain("<recordings>");
    expect(page).not.toContain("Someone else");
    expect(page).not.toContain("lib-html-other@example.com");
    // The card: its creator, price, date, order; its access link, receipt and 'Change email'.
    expect(page).toContain(`data-purchase-id="${mine.purchaseId}"`);
    expect(page).toContain("$10.00");
    expect(page).toContain(`Order #${mine.purchaseId}`);
    expect(page).toContain(T.openAccess);
    expect(page).toMatch(/href="http:\/\/127\.0\.0\.1:8787\/success\?payment_intent=[^"]*&amp;access=[^"]+"/);
    expect(page).toContain(`popovertarget="receipt-${mine.purchaseId}"`);
    expect(page).toContain("Receipt sent to");
    expect(page).toContain(T.changeEmail);
    expect(page).toContain('<form method="post" action="/library/sign-out"');
    expect(page).not.toContain(T.showMore);
    // The empty state is there for the island, hidden while purchases are listed.
    expect(page).toMatch(/data-part="library-empty" hidden/);
  });

  it("pages a long library on the server: 50 cards, 'Show more' with the next cursor, then the rest", async () => {
    const first = await paidWith("lib-html-many-seller@example.com", "lib-html-many@example.com", { title: "Many" });
    await cloneOlder(first.purchaseId, LIBRARY_PAGE_SIZE);
    const cookie = await libraryCookie("lib-html-many@example.com");
    const page = await html(await call("/library", { cookie }));
    expect(page.match(/data-testid="library-purchase"/g)).toHaveLength(LIBRARY_PAGE_SIZE);
    expect(page).toContain(T.showMore);
    const cursor = /name="cursor" value="([^"]+)"/.exec(page)![1];
    const rest = await html(await call(`/library?cursor=${encodeURIComponent(cursor)}`, { cookie }));
    expect(rest.match(/data-testid="library-purchase"/g)).toHaveLength(1);
    expect(rest).toContain(`data-purchase-id="libhtml${String(LIBRARY_PAGE_SIZE).padStart(4, "0")}"`);
    expect(rest).not.toContain(T.showMore);
    expect(rest).toContain(T.newest);
  });
});

describe("the plain form posts (no script)", () => {
  it("'Email me a sign-in link' answers as the API does, and a bad address changes nothing", async () => {
    const sent = await form({ email: "lib-html-nobody@example.com" });
    expect(sent.status).toBe(200);
    expect(await html(sent)).toContain(LIBRARY_TEXT.linkSent);
    const empty = await form({ email: " " });
    expect(empty.status).toBe(400);
    expect(await html(empty)).toContain(LOST_ACCESS_TEXT.emptyEmail);
    const bad = await form({ email: "not-an-address" });
    expect(bad.status).toBe(400);
    expect(await html(bad)).toContain(LOST_ACCESS_TEXT.invalidEmail);
    const stored = await row<{ n: number }>(
      "select count(*) as n from library_tokens where email = ?",
      "lib-html-nobody@example.com",
    );
    expect(stored!.n).toBe(1);
    // Another site's form cannot post here.
    expect((await form({ email: "lib-html-nobody@example.com" }, "https://evil.example")).status).toBe(403);
  });

  it("'Sign out' ends the session and returns to the form", async () => {
    const cookie = await libraryCookie("lib-html-out@example.com");
    const res = await call("/library/sign-out", { method: "POST", cookie });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/library");
    expect((await call("/api/library/session", { cookie })).status).toBe(401);
  });
});
