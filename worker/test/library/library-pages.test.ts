// The library's list a page at a time: a buyer with more purchases than one page reaches every one
// of them through nextCursor, newest first, none twice; a malformed cursor is a 400; the page's
// query is served by the index purchases_buyer_email_lower (docs/library.md).
import { describe, expect, it } from "vitest";
import { LIBRARY_PAGE_SIZE, type LibraryList } from "../../../shared/library";
import { createDb } from "../../db/client";
import { libraryPageQuery } from "../../services/library/purchases";
import { call, env, row, rows } from "../support/helpers";
import { libraryCookie, paidWith } from "./library-fixtures";

/** `count` more paid purchases like `purchaseId`, each a second older than the last (pairs share a second). */
async function cloneOlder(purchaseId: string, count: number) {
  const columns = (await rows<{ name: string }>("select name from pragma_table_info('purchases')")).map((c) => c.name);
  const base = (await row<{ at: number }>("select paid_at as at from purchases where id = ?", purchaseId))!.at;
  const made = [];
  for (let i = 1; i <= count; i++) {
    const id = `libpage${String(i).padStart(4, "0")}${purchaseId.slice(0, 8)}`;
    const at = base - Math.ceil(i / 2) * 1000;
    const values = columns.map((name) =>
      name === "id"
        ? "?1"
        : name === "payment_intent_id" || name === "access_token_hash"
          ? "?1 || 'x'"
          : name === "paid_at" || name === "created_at"
            ? "?2"
            : name,
    );
    made.push(
      env.DB.prepare(
        `insert into purchases (${columns.join(", ")}) select ${values.join(", ")} from purchases where id = ?3`,
      ).bind(id, at, purchaseId),
    );
  }
  await env.DB.batch(made);
}

const page = async (cookie: string, cursor?: string) => {
  const res = await call(`/api/library/purchases${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ""}`, {
    cookie,
  });
  expect(res.status).toBe(200);
  return res.json<LibraryList>();
};

describe("the library's list, a page at a time", () => {
  it("reaches every purchase of a buyer with more than a page, newest first, none twice", async () => {
    const buyer = "lib-pages@example.com";
    const first = await paidWith("lib-pages-creator@example.com", buyer, { title: "Many things" });
    const total = 2 * LIBRARY_PAGE_SIZE + 21;
    await cloneOlder(first.purchaseId, total - 1);
    const cookie = await libraryCookie(buyer);

    const seen: LibraryList["purchases"] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const answer = await page(cookie, cursor);
      expect(answer.email).toBe(buyer);
      expect(answer.purchases.length).toBeLessThanOrEqual(LIBRARY_PAGE_SIZE);
      seen.push(...answer.purchases);
      cursor = answer.nextCursor ?? undefined;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(total);
    expect(new Set(seen.map((p) => p.id)).size).toBe(total);
    expect(seen[0]!.id).toBe(first.purchaseId);
    // Newest first, ties (the same second) by id, descending.
    for (let i = 1; i < seen.length; i++) {
      const [a, b] = [seen[i - 1]!, seen[i]!];
      const order = Date.parse(a.purchasedAt) - Date.parse(b.purchasedAt) || (a.id > b.id ? 1 : -1);
      expect(order, `${a.id} before ${b.id}`).toBeGreaterThan(0);
    }
  });

  it("a buyer with one page gets nextCursor null", async () => {
    const cookie = await libraryCookie("lib-pages-one@example.com");
    const answer = await page(cookie);
    expect(answer.purchases).toHaveLength(1);
    expect(answer.nextCursor).toBeNull();
  });

  it("a malformed cursor is a 400 that says so, never a 5xx", async () => {
    const cookie = await libraryCookie("lib-pages-bad@example.com");
    for (const cursor of ["nope", "12.", ".abc", "1.a-b", `${"9".repeat(40)}.abc`, "1.abc'--"]) {
      const res = await call(`/api/library/purchases?cursor=${encodeURIComponent(cursor)}`, { cookie });
      expect(res.status, cursor).toBe(400);
      expect(JSON.stringify(await res.json()), cursor).toContain("cursor is malformed");
    }
  });

  it("the page's query is served by the index purchases_buyer_email_lower", async () => {
    const db = createDb(env.DB);
    for (const cursor of [undefined, "1700000000000.abc"]) {
      const { sql, params } = libraryPageQuery(db, "lib-plan@example.com", cursor).toSQL();
      const plan = await env.DB.prepare(`explain query plan ${sql}`)
        .bind(...params)
        .all<{ detail: string }>();
      const details = plan.results.map((r) => r.detail).join("\n");
      expect(details).toMatch(/SEARCH purchases USING INDEX purchases_buyer_email_lower/);
      expect(details).not.toMatch(/SCAN purchases/);
    }
  });
});
