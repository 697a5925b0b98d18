import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  getQueueResult,
  waitOnExecutionContext,
} from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { UPLOAD_PART_SIZE } from "../../../shared/uploads";
import worker from "../../index";
import { call, contentForm, env, partBytes, PNG_1X1, postForm, postJson, signIn } from "../support/helpers";

type Item = {
  id: string;
  title: string;
  price: number;
  minimumPrice: number | null;
  fileName: string | null;
  fileSize: number | null;
  previewImage: string | null;
  linkUrl: string | null;
  textContent: string | null;
  unlockCount: number;
  totalEarnings: number;
  accessType: string;
};

const pdf = (bytes = 1234) => new File([new Uint8Array(bytes).fill(7)], "guide.pdf", { type: "application/pdf" });

async function publish(cookie: string, fields: Record<string, string | Blob>) {
  const res = await postForm("/api/content", contentForm(fields), cookie);
  if (res.status !== 201) throw new Error(`publish failed ${res.status}: ${await res.text()}`);
  return res.json<Item>();
}

async function runDailySweep(at = Date.now()) {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ cron: "30 3 * * *", scheduledTime: at }), env, ctx);
  await waitOnExecutionContext(ctx);
}

describe("publishing content", () => {
  it("publishes a small file inline with a preview image", async () => {
    const cookie = await signIn("inline@example.com");
    const item = await publish(cookie, {
      title: "Guide",
      description: "A guide",
      price: "9.99",
      pricingModel: "fixed",
      category: "document",
      accessType: "download",
      file: pdf(),
      previewImage: new File([PNG_1X1], "cover.png", { type: "image/png" }),
    });
    expect(item).toMatchObject({
      title: "Guide",
      price: 9.99,
      fileName: "guide.pdf",
      fileSize: 1234,
      accessType: "download",
      unlockCount: 0,
      totalEarnings: 0,
    });
    expect(item.previewImage).toBe(`/api/content/${item.id}/preview-image`);
    expect(item.id).toMatch(/^[A-Za-z0-9]{12}$/);

    const image = await call(item.previewImage!);
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(image.headers.get("cache-control")).toContain("max-age=");
    expect(image.headers.get("x-content-type-options")).toBe("nosniff");
    expect(new Uint8Array(await image.arrayBuffer())).toEqual(PNG_1X1);
    const again = await call(item.previewImage!, { headers: { "if-none-match": image.headers.get("etag")! } });
    expect(again.status).toBe(304);
  });

  it("publishes a finished multipart upload, once", async () => {
    const cookie = await signIn("multi@example.com");
    const size = UPLOAD_PART_SIZE + 10;
    const up = await (
      await postJson("/api/uploads", { fileName: "course.mp4", size, contentType: "video/mp4" }, cookie)
    ).json<{ id: string }>();
    const put = (n: number, body: Uint8Array) =>
      call(`/api/uploads/${up.id}/parts/${n}`, {
        method: "PUT",
        body,
        cookie,
        headers: { "content-length": String(body.length) },
      });
    await put(1, partBytes(UPLOAD_PART_SIZE, 1));

    // Not finished yet: refused.
    const early = await postForm(
      "/api/content",
      contentForm({ title: "Course", price: "20", accessType: "stream", uploadId: up.id }),
      cookie,
    );
    expect(early.status).toBe(409);

    await put(2, partBytes(10, 2));
    await call(`/api/uploads/${up.id}/complete`, { method: "POST", cookie });
    const item = await publish(cookie, {
      title: "Course",
      price: "20",
      accessType: "stream",
      category: "video-course",
      uploadId: up.id,
    });
    expect(item).toMatchObject({ fileName: "course.mp4", fileSize: size, accessType: "stream" });

    const twice = await postForm(
      "/api/content",
      contentForm({ title: "Course 2", price: "20", uploadId: up.id }),
      cookie,
    );
    expect(twice.status).toBe(409);

    // Two publishes of one upload at the same moment: one wins, the other is told.
    const up2 = await (
      await postJson("/api/uploads", { fileName: "b.mp4", size: 10, contentType: "video/mp4" }, cookie)
    ).json<{ id: string }>();
    await call(`/api/uploads/${up2.id}/parts/1`, {
      method: "PUT",
      body: partBytes(10, 1),
      cookie,
      headers: { "content-length": "10" },
    });
    await call(`/api/uploads/${up2.id}/complete`, { method: "POST", cookie });
    const raced = await Promise.all(
      [1, 2].map((n) =>
        postForm("/api/content", contentForm({ title: `Race ${n}`, price: "5", uploadId: up2.id }), cookie),
      ),
    );
    expect(raced.map((r) => r.status).sort()).toEqual([201, 409]);
    // Another creator cannot publish someone's upload.
    const thief = await signIn("thief@example.com");
    expect(
      (await postForm("/api/content", contentForm({ title: "Mine", price: "20", uploadId: up.id }), thief)).status,
    ).toBe(404);
  });

  it("publishes a link and a text without a file", async () => {
    const cookie = await signIn("linktext@example.com");
    const link = await publish(cookie, {
      title: "Playlist",
      price: "3",
      accessType: "link",
      linkUrl: "https://example.com/private",
    });
    expect(link).toMatchObject({ accessType: "link", linkUrl: "https://example.com/private", fileName: null });
    const text = await publish(cookie, {
      title: "Recipe",
      pricingModel: "pay_what_you_want",
      minimumPrice: "2.50",
      price: "99",
      accessType: "view",
      textContent: "Secret",
    });
    // Spec §5: for pay-what-you-want the price is the minimum.
    expect(text).toMatchObject({ accessType: "view", textContent: "Secret", price: 2.5, minimumPrice: 2.5 });
  });

  it("answers the spec's validation messages and stores nothing", async () => {
    const cookie = await signIn("invalid@example.com");
    const cases: [Record<string, string | Blob>, string][] = [
      [{ price: "5", file: pdf() }, "Please fill in title and price"],
      [{ title: "No price", file: pdf() }, "Please fill in title and price"],
      [
        { title: "PWYW", pricingModel: "pay_what_you_want", file: pdf() },
        "Please set a minimum price for pay-what-you-want content",
      ],
      [{ title: "No file", price: "5", accessType: "download" }, "Please select a file to upload"],
      [{ title: "No link", price: "5", accessType: "link" }, "Please provide a link URL"],
      [{ title: "Bad link", price: "5", accessType: "link", linkUrl: "javascript:alert(1)" }, "http:// or https://"],
      [{ title: "Cheap", price: "0.01", file: pdf() }, "Price must be between $0.50 and $10,000"],
      [{ title: "Odd", price: "1.234", file: pdf() }, "Price must be between"],
      [{ title: "Cat", price: "5", category: "weapons", file: pdf() }, "category must be one of"],
      [
        {
          title: "Preview",
          price: "5",
          file: pdf(),
          previewImage: new File(["<svg onload=alert(1)>"], "x.png", { type: "image/png" }),
        },
        "Preview image must be a PNG, JPEG, GIF or WebP image",
      ],
      [
        { title: "Preview", price: "5", file: pdf(), previewImage: "data:image/png;base64,PHN2Zz4=" },
        "Preview image must be",
      ],
    ];
    for (const [fields, message] of cases) {
      const res = await postForm("/api/content", contentForm(fields), cookie);
      expect(res.status, message).toBe(400);
      expect((await res.json<{ message: string }>()).message).toContain(message);
    }
    expect(await (await call("/api/content", { cookie })).json()).toEqual([]);
    const objects = await env.FILES.list({ prefix: "files/" });
    expect(objects.objects.filter((o) => o.key.includes("guide"))).toEqual([]);
  });

  it("accepts a preview image sent as a data URL", async () => {
    const cookie = await signIn("dataurl@example.com");
    const dataUrl = `data:image/png;base64,${btoa(String.fromCharCode(...PNG_1X1))}`;
    const item = await publish(cookie, {
      title: "Upsell",
      price: "5",
      accessType: "view",
      textContent: "x",
      previewImage: dataUrl,
    });
    expect((await call(item.previewImage!)).headers.get("content-type")).toBe("image/png");
  });

  it("refuses publishing when signed out", async () => {
    expect((await postForm("/api/content", contentForm({ title: "x", price: "5", file: pdf() }))).status).toBe(401);
  });
});

describe("the creator's list and the public detail", () => {
  it("lists only the creator's own items; the public detail hides the file, link and text", async () => {
    const alice = await signIn("alice@example.com");
    const bob = await signIn("bob@example.com");
    const file = await publish(alice, { title: "Alice file", price: "5", file: pdf() });
    const link = await publish(alice, {
      title: "Alice link",
      price: "5",
      accessType: "link",
      linkUrl: "https://example.com/secret-link",
    });
    const text = await publish(alice, {
      title: "Alice text",
      price: "5",
      accessType: "view",
      textContent: "the secret text",
    });
    await publish(bob, { title: "Bob file", price: "5", file: pdf() });

    const mine = await (await call("/api/content", { cookie: alice })).json<Item[]>();
    expect(mine.map((i) => i.title)).toEqual(["Alice text", "Alice link", "Alice file"]);
    expect((await call("/api/content")).status).toBe(401);

    for (const item of [file, link, text]) {
      const res = await call(`/api/content/${item.id}`);
      expect(res.status).toBe(200);
      const body = await res.text();
      expect(body).not.toContain("secret-link");
      expect(body).not.toContain("the secret text");
      expect(body).not.toContain("files/");
      expect(body).not.toMatch(/fileKey|linkUrl|textContent|alice@example.com/);
      expect(JSON.parse(body)).toMatchObject({ id: item.id, title: item.title, price: 5 });
    }
  });

  it("counts visits to the paywall page per item per day, but not previews, the owner's own or data calls", async () => {
    const owner = await signIn("viewed@example.com");
    const item = await publish(owner, { title: "Viewed", price: "5", file: pdf() });
    await call(`/p/${item.id}`);
    await call(`/paywall/${item.id}`);
    await call(`/p/${item.id}?preview=1`);
    await call(`/p/${item.id}`, { cookie: owner });
    // Checkout reads the item again: that is no second view.
    await call(`/api/content/${item.id}`);
    await expect
      .poll(
        async () =>
          (
            await env.DB.prepare("select views from content_views_daily where content_id = ?")
              .bind(item.id)
              .first<{ views: number }>()
          )?.views,
        { timeout: 15_000, interval: 200 },
      )
      .toBe(2);
  });
});

describe("the views queue consumer", () => {
  it("writes one count per item and day for a whole batch", async () => {
    const owner = await signIn("batched@example.com");
    const a = await publish(owner, { title: "A", price: "5", file: pdf() });
    const b = await publish(owner, { title: "B", price: "5", file: pdf() });
    // An isolate sends the views it gathered in a second as one message with their number.
    const bodies = [
      ...[a.id, a.id, a.id, b.id].map((contentId) => ({ contentId, day: "2026-11-22" })),
      { contentId: b.id, day: "2026-11-22", n: 4 },
    ];
    const batch = createMessageBatch(
      "apewall-views",
      bodies.map((body, i) => ({ id: `v${i}`, timestamp: new Date(), attempts: 1, body })),
    );
    const ctx = createExecutionContext();
    await worker.queue(batch as never, env, ctx);
    expect((await getQueueResult(batch, ctx)).ackAll).toBe(true);
    const count = async (id: string) =>
      (
        await env.DB.prepare("select views from content_views_daily where content_id = ? and day = '2026-11-22'")
          .bind(id)
          .first<{ views: number }>()
      )?.views;
    expect([await count(a.id), await count(b.id)]).toEqual([3, 5]);
  });
});

describe("deleting content", () => {
  it("only the owner deletes; the item leaves the list and the paywall", async () => {
    const owner = await signIn("deleter@example.com");
    const other = await signIn("not-owner@example.com");
    const item = await publish(owner, { title: "To delete", price: "5", file: pdf() });

    expect((await call(`/api/content/${item.id}`, { method: "DELETE", cookie: other })).status).toBe(404);
    expect((await call(`/api/content/${item.id}`, { method: "DELETE" })).status).toBe(401);
    expect((await call(`/api/content/${item.id}`)).status).toBe(200);

    expect((await call(`/api/content/${item.id}`, { method: "DELETE", cookie: owner })).status).toBe(204);
    expect(await (await call("/api/content", { cookie: owner })).json()).toEqual([]);
    const gone = await call(`/api/content/${item.id}`);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual({ message: "Content Not Found" });
    expect((await call(`/p/${item.id}`)).status).toBe(404);
    expect((await call(`/api/content/${item.id}`, { method: "DELETE", cookie: owner })).status).toBe(404);
  });

  it("keeps the bytes while a buyer needs them; the sweep removes them once nobody does", async () => {
    const owner = await signIn("bytes@example.com");
    const sold = await publish(owner, { title: "Sold", price: "5", file: pdf() });
    const unsold = await publish(owner, { title: "Unsold", price: "5", file: pdf() });
    const keyOf = async (id: string) =>
      (await env.DB.prepare("select file_key from content where id = ?").bind(id).first<{ file_key: string | null }>())
        ?.file_key;
    const soldKey = (await keyOf(sold.id))!;
    const unsoldKey = (await keyOf(unsold.id))!;
    const creator = await env.DB.prepare("select id from users where email = ?")
      .bind("bytes@example.com")
      .first<{ id: string }>();
    await env.DB.prepare(
      "insert into purchases (id, content_id, creator_id, amount_cents, status, payment_intent_id) values ('pur1', ?, ?, 500, 'paid', 'pi_1')",
    )
      .bind(sold.id, creator!.id)
      .run();
    for (const id of [sold.id, unsold.id]) await call(`/api/content/${id}`, { method: "DELETE", cookie: owner });

    // Within a day of deletion nothing is removed (a checkout may still be completing).
    await runDailySweep();
    expect(await env.FILES.head(unsoldKey)).not.toBeNull();

    await runDailySweep(Date.now() + 2 * 24 * 3600 * 1000);
    expect(await env.FILES.head(unsoldKey)).toBeNull();
    expect(await env.FILES.head(soldKey)).not.toBeNull();
    expect(await keyOf(sold.id)).toBe(soldKey);
  });
});

describe("the paywall page HTML", () => {
  it("carries the item's public data inline and Open Graph / Twitter tags", async () => {
    const owner = await signIn("og@example.com");
    const item = await publish(owner, {
      title: 'Guide to "quotes" $& </script><script>alert(1)</script>',
      description: "Everything about quotes",
      price: "12.50",
      file: pdf(),
      previewImage: new File([PNG_1X1], "c.png", { type: "image/png" }),
    });
    for (const path of [`/p/${item.id}`, `/paywall/${item.id}`]) {
      const res = await call(path);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/html");
      const html = await res.text();
      expect(html).toContain(
        '<meta property="og:title" content="Guide to &quot;quotes&quot; $&amp; &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; · $12.50" />',
      );
      expect(html).toContain('<meta property="og:description" content="Everything about quotes" />');
      expect(html).toContain(
        `<meta property="og:image" content="http://127.0.0.1:8787/api/content/${item.id}/preview-image" />`,
      );
      expect(html).toContain('<meta name="twitter:card" content="summary_large_image" />');
      // The 1×1 PNG's size, read from its header at publish time.
      expect(html).toContain('<meta property="og:image:width" content="1" />');
      expect(html).toContain('<meta property="og:image:height" content="1" />');
      expect(html).toContain('<meta property="product:price:amount" content="12.50" />');
      expect(html).toContain('<script type="application/json" id="paywall-data">');
      // The title cannot close the inline script.
      expect(html).not.toContain("</script><script>alert(1)");
      // The page itself is in the HTML, finished: no app shell, one script of its own.
      expect(html).not.toContain('<div id="root"></div>');
      expect(html).toContain(`<link rel="canonical" href="http://127.0.0.1:8787/p/${item.id}" />`);
      expect(html).toContain(
        '<h1 class="text-2xl font-bold tracking-tight sm:text-3xl">Guide to &quot;quotes&quot; $&amp; &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;</h1>',
      );
      expect(html).toContain(">$12.50</p>");
      expect(html).toMatch(/<button type="submit"[^>]*>.*Unlock<\/button>/s);
      expect(html.match(/<script\b[^>]*\bsrc=/g)).toHaveLength(1);
      expect(html).not.toContain('rel="stylesheet"');
      // The page runs its own script, and Stripe.js only (from Stripe's origin, here the configured
      // stand-in's) for the checkout 'Unlock' opens in place; its one inline stylesheet is the one the policy names.
      const csp = res.headers.get("content-security-policy")!;
      const stripeOrigin = new URL((env as unknown as { STRIPE_JS_URL: string }).STRIPE_JS_URL).origin;
      const turnstileOrigin = new URL((env as unknown as { TURNSTILE_SCRIPT_URL: string }).TURNSTILE_SCRIPT_URL).origin;
      expect(csp).toContain(`script-src 'self' ${stripeOrigin} ${turnstileOrigin};`);
      expect(csp).toContain(`frame-src ${stripeOrigin} ${turnstileOrigin};`);
      expect(csp).toContain("default-src 'none'");
      const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1];
      const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(style)));
      expect(csp).toContain(`style-src 'self' 'sha256-${btoa(String.fromCharCode(...digest))}'`);
      expect(html.match(/<script(?![^>]*\b(src=|type="application\/json"))/g)).toBeNull();
    }
  });

  it("answers a missing item with 'Content Not Found' in the HTML and status 404", async () => {
    const res = await call("/p/doesNotExist1");
    expect(res.status).toBe(404);
    const html = await res.text();
    expect(html).toContain("Content Not Found");
    expect(html).toContain("This content may have been removed or doesn&#39;t exist.");
    expect(html).not.toContain("paywall-data");
  });
});

describe("the paywall page's edge cache", () => {
  const views = async (id: string) =>
    (await env.DB.prepare("select coalesce(sum(views), 0) as n from content_views_daily where content_id = ?")
      .bind(id)
      .first<{ n: number }>())!.n;

  /** Opens the page until the edge cache answers it; returns how many times it was opened. */
  async function openUntilCached(id: string): Promise<number> {
    for (let opened = 1; opened <= 20; opened++) {
      const res = await call(`/p/${id}`);
      expect(res.status).toBe(200);
      await res.text();
      if (res.headers.get("x-paywall-cache") === "HIT") return opened;
    }
    throw new Error("the page never came from the cache");
  }

  it("serves the page from the cache and still counts every view", async () => {
    const owner = await signIn("cached@example.com");
    const item = await publish(owner, { title: "Cached", price: "5", file: pdf() });
    const opened = await openUntilCached(item.id);
    expect(opened).toBeGreaterThanOrEqual(2);
    const hit = await call(`/p/${item.id}`);
    expect(hit.headers.get("x-paywall-cache")).toBe("HIT");
    expect(await hit.text()).toContain(">Cached</h1>");
    // Nothing of the cached copy's own bookkeeping reaches the visitor.
    expect(hit.headers.get("x-apewall-creator")).toBeNull();
    expect(hit.headers.get("cache-control")).toBe("public, max-age=0, must-revalidate");
    // The creator's own visit, cached or not, is still no view.
    await (await call(`/p/${item.id}`, { cookie: owner })).text();
    await expect.poll(() => views(item.id), { timeout: 15_000, interval: 200 }).toBe(opened + 1);
  });

  it("purges the page when its item is deleted", async () => {
    const owner = await signIn("purged@example.com");
    const item = await publish(owner, { title: "Soon gone", price: "5", file: pdf() });
    await openUntilCached(item.id);
    expect((await call(`/api/content/${item.id}`, { method: "DELETE", cookie: owner })).status).toBe(204);
    const gone = await call(`/p/${item.id}`);
    expect(gone.status).toBe(404);
    expect(await gone.text()).toContain("Content Not Found");
    // A read replica may not have seen the delete yet: reading the item as it was must not bring its
    // page back while a page could still be cached.
    await env.DB.prepare("update content set deleted_at = null where id = ?").bind(item.id).run();
    const stale = await call(`/p/${item.id}`);
    expect(stale.status).toBe(404);
    expect(await stale.text()).toContain("Content Not Found");
  });

  it("remembers a 404 for an id the primary does not have: an id that appears at once is still 404 (random ids must not each read the primary)", async () => {
    const missing = await call("/p/publishedLater1");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("cache-control")).toBe("no-store");
    expect(missing.headers.get("x-paywall-cache")).toBe("MISS");
    await missing.text();
    const owner = await signIn("later@example.com");
    const item = await publish(owner, { title: "Published later", price: "5", file: pdf() });
    await env.DB.prepare("update content set id = 'publishedLater1' where id = ?").bind(item.id).run();
    const found = await call("/p/publishedLater1");
    expect(found.status).toBe(404);
    expect(found.headers.get("x-paywall-cache")).toBe("HIT");
  });
});
