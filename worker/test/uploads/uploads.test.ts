import { createScheduledController, createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../index";
import { describe, expect, it } from "vitest";
import { MAX_OPEN_UPLOADS, UPLOAD_PART_SIZE } from "../../../shared/uploads";
import { call, contentForm, env, partBytes, postForm, postJson, signIn } from "../support/helpers";

const MiB = 1024 * 1024;

async function startUpload(cookie: string, size: number, fileName = "movie.mp4") {
  const res = await postJson("/api/uploads", { fileName, size, contentType: "video/mp4" }, cookie);
  expect(res.status).toBe(201);
  return res.json<{ id: string; partSize: number; partCount: number; uploadedParts: number[] }>();
}

const putPart = (cookie: string, id: string, n: number, body: Uint8Array) =>
  call(`/api/uploads/${id}/parts/${n}`, {
    method: "PUT",
    body,
    cookie,
    headers: { "content-length": String(body.length) },
  });

describe("multipart uploads", () => {
  it("takes parts out of order, reports what arrived so a client can resume, and completes", async () => {
    const cookie = await signIn("uploader@example.com");
    const size = 2 * UPLOAD_PART_SIZE + 3 * MiB;
    const upload = await startUpload(cookie, size);
    expect(upload).toMatchObject({ partSize: UPLOAD_PART_SIZE, partCount: 3, uploadedParts: [] });

    expect((await putPart(cookie, upload.id, 3, partBytes(3 * MiB, 3))).status).toBe(200);
    expect((await putPart(cookie, upload.id, 1, partBytes(UPLOAD_PART_SIZE, 1))).status).toBe(200);

    // A resuming client asks what R2 already has and sends only the rest.
    const state = await (await call(`/api/uploads/${upload.id}`, { cookie })).json<{
      uploadedParts: number[];
      status: string;
    }>();
    expect(state).toMatchObject({ uploadedParts: [1, 3], status: "uploading" });
    const early = await call(`/api/uploads/${upload.id}/complete`, { method: "POST", cookie });
    expect(early.status).toBe(409);
    expect(await early.text()).toContain("missing 1 part(s): 2");

    expect((await putPart(cookie, upload.id, 2, partBytes(UPLOAD_PART_SIZE, 2))).status).toBe(200);
    // Sending a part again (a retry) replaces it.
    expect((await putPart(cookie, upload.id, 2, partBytes(UPLOAD_PART_SIZE, 2))).status).toBe(200);
    const done = await call(`/api/uploads/${upload.id}/complete`, { method: "POST", cookie });
    expect(done.status).toBe(200);
    expect(await done.json()).toMatchObject({ status: "completed", uploadedParts: [1, 2, 3] });

    const row = await env.DB.prepare("select object_key from uploads where id = ?")
      .bind(upload.id)
      .first<{ object_key: string }>();
    const object = await env.FILES.head(row!.object_key);
    expect(object?.size).toBe(size);
    // Parts landed in their places: the byte at each part's start is its number.
    for (const [offset, fill] of [
      [0, 1],
      [UPLOAD_PART_SIZE, 2],
      [2 * UPLOAD_PART_SIZE, 3],
    ] as const) {
      const slice = await env.FILES.get(row!.object_key, { range: { offset, length: 1 } });
      expect(new Uint8Array(await slice!.arrayBuffer())[0]).toBe(fill);
    }
    // Completing twice is harmless.
    expect((await call(`/api/uploads/${upload.id}/complete`, { method: "POST", cookie })).status).toBe(200);
  });

  it("aborts an upload: no more parts, not completable", async () => {
    const cookie = await signIn("aborter@example.com");
    const upload = await startUpload(cookie, 6 * MiB);
    expect((await putPart(cookie, upload.id, 1, partBytes(6 * MiB, 1))).status).toBe(200);
    expect((await call(`/api/uploads/${upload.id}`, { method: "DELETE", cookie })).status).toBe(204);
    expect(await (await call(`/api/uploads/${upload.id}`, { cookie })).json()).toMatchObject({
      status: "aborted",
      uploadedParts: [],
    });
    expect((await putPart(cookie, upload.id, 1, partBytes(6 * MiB, 1))).status).toBe(409);
    expect((await call(`/api/uploads/${upload.id}/complete`, { method: "POST", cookie })).status).toBe(409);
  });

  it("refuses sizes over 5 GB, empty files and bad input, writing nothing", async () => {
    const cookie = await signIn("limits@example.com");
    const before = await env.DB.prepare("select count(*) as n from uploads").first<{ n: number }>();
    for (const [body, message] of [
      [{ fileName: "big.iso", size: 5 * 1024 ** 3 + 1 }, "5 GB"],
      [{ fileName: "empty.txt", size: 0 }, "more than 0"],
      [{ fileName: "", size: 10 }, "fileName is required"],
      [{ fileName: "x", size: 1.5 }, "whole number"],
      [{ fileName: "x", size: 10, contentType: "not a type" }, "MIME"],
    ] as const) {
      const res = await postJson("/api/uploads", body, cookie);
      expect(res.status).toBe(400);
      expect(await res.text()).toContain(message);
    }
    const after = await env.DB.prepare("select count(*) as n from uploads").first<{ n: number }>();
    expect(after?.n).toBe(before?.n);
    // Exactly 5 GB is allowed.
    expect((await postJson("/api/uploads", { fileName: "max.iso", size: 5 * 1024 ** 3 }, cookie)).status).toBe(201);
  });

  it("refuses part numbers out of range and parts of the wrong size", async () => {
    const cookie = await signIn("parts@example.com");
    const upload = await startUpload(cookie, UPLOAD_PART_SIZE + 1000);
    expect((await putPart(cookie, upload.id, 0, partBytes(10, 0))).status).toBe(400);
    expect((await putPart(cookie, upload.id, 3, partBytes(1000, 3))).status).toBe(400);
    const tooBig = await putPart(cookie, upload.id, 2, partBytes(1001, 2));
    expect(tooBig.status).toBe(400);
    expect(await tooBig.text()).toContain("exactly 1000 bytes");
    expect((await putPart(cookie, upload.id, 1, partBytes(UPLOAD_PART_SIZE - 1, 1))).status).toBe(400);
    // A body longer than its Content-Length claims is cut off by the runtime, never stored whole.
    const state = await (await call(`/api/uploads/${upload.id}`, { cookie })).json<{ uploadedParts: number[] }>();
    expect(state.uploadedParts).toEqual([]);
  });

  it("hides one creator's uploads from another", async () => {
    const owner = await signIn("owner-up@example.com");
    const other = await signIn("other-up@example.com");
    const upload = await startUpload(owner, 6 * MiB);
    expect((await call(`/api/uploads/${upload.id}`, { cookie: other })).status).toBe(404);
    expect((await putPart(other, upload.id, 1, partBytes(6 * MiB, 1))).status).toBe(404);
    expect((await call(`/api/uploads/${upload.id}/complete`, { method: "POST", cookie: other })).status).toBe(404);
    expect((await call(`/api/uploads/${upload.id}`, { method: "DELETE", cookie: other })).status).toBe(404);
    expect((await call(`/api/uploads/${upload.id}`, { cookie: owner })).status).toBe(200);
    expect((await postJson("/api/uploads", { fileName: "x", size: 10 })).status).toBe(401);
  });

  it("the daily sweep aborts uploads left unfinished for over 24 hours", async () => {
    const cookie = await signIn("sweeper@example.com");
    const stale = await startUpload(cookie, 6 * MiB, "stale.bin");
    const fresh = await startUpload(cookie, 6 * MiB, "fresh.bin");
    expect((await putPart(cookie, stale.id, 1, partBytes(6 * MiB, 1))).status).toBe(200);
    await env.DB.prepare("update uploads set created_at = ? where id = ?")
      .bind(Date.now() - 25 * 3600 * 1000, stale.id)
      .run();

    const controller = createScheduledController({ cron: "30 3 * * *", scheduledTime: Date.now() });
    const ctx = createExecutionContext();
    await worker.scheduled(controller, env, ctx);
    await waitOnExecutionContext(ctx);

    expect(await (await call(`/api/uploads/${stale.id}`, { cookie })).json()).toMatchObject({ status: "aborted" });
    expect(await (await call(`/api/uploads/${fresh.id}`, { cookie })).json()).toMatchObject({ status: "uploading" });
  });
});

/** Sends every part of a `size`-byte upload. */
async function sendAll(cookie: string, id: string, size: number) {
  const count = Math.max(1, Math.ceil(size / UPLOAD_PART_SIZE));
  for (let n = 1; n <= count; n++) {
    const length = n < count ? UPLOAD_PART_SIZE : size - UPLOAD_PART_SIZE * (count - 1);
    expect((await putPart(cookie, id, n, partBytes(length, n))).status).toBe(200);
  }
}

const uploadRow = (id: string) =>
  env.DB.prepare("select status, object_key from uploads where id = ?")
    .bind(id)
    .first<{ status: string; object_key: string }>();

describe("uploads under races, quotas and time", () => {
  it("two concurrent completes of one upload: one completes, the other is not a 5xx, one object", async () => {
    const cookie = await signIn("double-complete@example.com");
    const upload = await startUpload(cookie, 6 * MiB);
    await sendAll(cookie, upload.id, 6 * MiB);
    const answers = await Promise.all(
      [1, 2].map(() => call(`/api/uploads/${upload.id}/complete`, { method: "POST", cookie })),
    );
    for (const a of answers) expect(a.status, await a.clone().text()).toBeLessThan(500);
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(1);
    const row = await uploadRow(upload.id);
    expect(row?.status).toBe("completed");
    expect((await env.FILES.head(row!.object_key))?.size).toBe(6 * MiB);
    // Asked again once it settled, both callers see the finished upload.
    expect(await (await call(`/api/uploads/${upload.id}/complete`, { method: "POST", cookie })).json()).toMatchObject({
      status: "completed",
    });
  });

  it("complete racing abort: no 5xx, and never a stored object the rows do not account for", async () => {
    const cookie = await signIn("complete-abort@example.com");
    for (let round = 0; round < 3; round++) {
      const upload = await startUpload(cookie, 6 * MiB, `race-${round}.bin`);
      await sendAll(cookie, upload.id, 6 * MiB);
      const [complete, abort] = await Promise.all([
        call(`/api/uploads/${upload.id}/complete`, { method: "POST", cookie }),
        call(`/api/uploads/${upload.id}`, { method: "DELETE", cookie }),
      ]);
      expect(complete.status, await complete.clone().text()).toBeLessThan(500);
      expect(abort.status, await abort.clone().text()).toBeLessThan(500);
      const row = await uploadRow(upload.id);
      const object = await env.FILES.head(row!.object_key);
      if (row!.status === "completed") expect(object?.size).toBe(6 * MiB);
      else {
        expect(row!.status).toBe("aborted");
        expect(object).toBeNull();
      }
    }
  });

  it("refuses a sixth open upload and a file past the storage quota with a 4xx that says why", async () => {
    const cookie = await signIn("quota@example.com");
    for (let i = 0; i < MAX_OPEN_UPLOADS; i++) await startUpload(cookie, 6 * MiB, `open-${i}.bin`);
    const sixth = await postJson("/api/uploads", { fileName: "one-more.bin", size: 6 * MiB }, cookie);
    expect(sixth.status).toBe(409);
    expect((await sixth.json<{ message: string }>()).message).toBe(
      `You have ${MAX_OPEN_UPLOADS} uploads in progress. Finish or cancel one before starting another.`,
    );

    const big = await signIn("quota-bytes@example.com");
    const userId = (await env.DB.prepare("select id from users where email = ?")
      .bind("quota-bytes@example.com")
      .first<{ id: string }>())!.id;
    // 49 GB already stored (as finished uploads), then a 5 GB file.
    await env.DB.prepare(
      "insert into uploads (id, user_id, object_key, file_name, content_type, size_bytes, part_size, part_count, status, completed_at) values ('quotafill1', ?, 'files/quota/fill', 'fill.bin', 'application/octet-stream', ?, ?, 1, 'completed', ?)",
    )
      .bind(userId, 49 * 1024 ** 3, UPLOAD_PART_SIZE, Date.now())
      .run();
    const over = await postJson("/api/uploads", { fileName: "movie.mp4", size: 5 * 1024 ** 3 }, big);
    expect(over.status).toBe(413);
    expect((await over.json<{ message: string }>()).message).toMatch(/50 GB of storage/);
    expect((await postJson("/api/uploads", { fileName: "small.mp4", size: 1024 ** 3 }, big)).status).toBe(201);
  });

  it("the daily sweep removes a finished upload never published after 7 days, and keeps a published one", async () => {
    const cookie = await signIn("unpublished@example.com");
    const forgotten = await startUpload(cookie, 6 * MiB, "forgotten.bin");
    await sendAll(cookie, forgotten.id, 6 * MiB);
    expect((await call(`/api/uploads/${forgotten.id}/complete`, { method: "POST", cookie })).status).toBe(200);
    const published = await startUpload(cookie, 6 * MiB, "published.bin");
    await sendAll(cookie, published.id, 6 * MiB);
    expect((await call(`/api/uploads/${published.id}/complete`, { method: "POST", cookie })).status).toBe(200);
    const res = await postForm(
      "/api/content",
      contentForm({ title: "Kept", price: "5", uploadId: published.id }),
      cookie,
    );
    expect(res.status, await res.clone().text()).toBe(201);
    const eightDaysAgo = Date.now() - 8 * 24 * 3600 * 1000;
    await env.DB.prepare("update uploads set created_at = ?, completed_at = ? where id in (?, ?)")
      .bind(eightDaysAgo, eightDaysAgo, forgotten.id, published.id)
      .run();

    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "30 3 * * *", scheduledTime: Date.now() }), env, ctx);
    await waitOnExecutionContext(ctx);

    const gone = await uploadRow(forgotten.id);
    expect(gone === null || gone.status === "removed").toBe(true);
    expect(
      await env.FILES.head(
        `files/${(await env.DB.prepare("select id from users where email = ?").bind("unpublished@example.com").first<{ id: string }>())!.id}/${forgotten.id}`,
      ),
    ).toBeNull();
    const kept = await uploadRow(published.id);
    expect(kept?.status).toBe("completed");
    expect((await env.FILES.head(kept!.object_key))?.size).toBe(6 * MiB);
  });

  it("publishing an upload the sweep removed says to upload it again and publishes nothing", async () => {
    const cookie = await signIn("late-publisher@example.com");
    const late = await startUpload(cookie, 6 * MiB, "late.bin");
    await sendAll(cookie, late.id, 6 * MiB);
    expect((await call(`/api/uploads/${late.id}/complete`, { method: "POST", cookie })).status).toBe(200);
    const eightDaysAgo = Date.now() - 8 * 24 * 3600 * 1000;
    await env.DB.prepare("update uploads set created_at = ?, completed_at = ? where id = ?")
      .bind(eightDaysAgo, eightDaysAgo, late.id)
      .run();
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "30 3 * * *", scheduledTime: Date.now() }), env, ctx);
    await waitOnExecutionContext(ctx);

    const res = await postForm(
      "/api/content",
      contentForm({ title: "Too late", price: "5", uploadId: late.id }),
      cookie,
    );
    expect(res.status).toBe(410);
    expect((await res.json<{ message: string }>()).message).toBe(
      "This upload was removed because it was not published within 7 days. Please upload the file again.",
    );
    expect(
      await env.DB.prepare("select count(*) as n from content where title = 'Too late'").first<{ n: number }>(),
    ).toEqual({ n: 0 });
  });

  it("an upload whose start crashed before R2's id was saved refuses parts with 409 and frees its slot", async () => {
    const cookie = await signIn("half-started@example.com");
    const upload = await startUpload(cookie, 1024, "half.bin");
    // As if the Worker died between the row's insert and saving R2's multipart upload id.
    await env.DB.prepare("update uploads set r2_upload_id = null where id = ?").bind(upload.id).run();
    const res = await putPart(cookie, upload.id, 1, partBytes(1024, 1));
    expect(res.status).toBe(409);
    expect((await res.json<{ message: string }>()).message).toBe(
      "This upload did not start properly. Please start it again.",
    );
    expect((await uploadRow(upload.id))?.status).toBe("aborted");
  });
});
