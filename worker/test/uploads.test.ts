import { createScheduledController, createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import worker from "../index";
import { describe, expect, it } from "vitest";
import { UPLOAD_PART_SIZE } from "../../shared/constants";
import { call, env, partBytes, postJson, signIn } from "./helpers";

const MiB = 1024 * 1024;

async function startUpload(cookie: string, size: number, fileName = "movie.mp4") {
  const res = await postJson("/api/uploads", { fileName, size, contentType: "video/mp4" }, cookie);
  expect(res.status).toBe(201);
  return res.json<{ id: string; partSize: number; partCount: number; uploadedParts: number[] }>();
}

const putPart = (cookie: string, id: string, n: number, body: Uint8Array) =>
  call(`/api/uploads/${id}/parts/${n}`, { method: "PUT", body, cookie, headers: { "content-length": String(body.length) } });

describe("multipart uploads", () => {
  it("takes parts out of order, reports what arrived so a client can resume, and completes", async () => {
    const cookie = await signIn("uploader@example.com");
    const size = 2 * UPLOAD_PART_SIZE + 3 * MiB;
    const upload = await startUpload(cookie, size);
    expect(upload).toMatchObject({ partSize: UPLOAD_PART_SIZE, partCount: 3, uploadedParts: [] });

    expect((await putPart(cookie, upload.id, 3, partBytes(3 * MiB, 3))).status).toBe(200);
    expect((await putPart(cookie, upload.id, 1, partBytes(UPLOAD_PART_SIZE, 1))).status).toBe(200);

    // A resuming client asks what R2 already has and sends only the rest.
    const state = await (await call(`/api/uploads/${upload.id}`, { cookie })).json<{ uploadedParts: number[]; status: string }>();
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

    const row = await env.DB.prepare("select object_key from uploads where id = ?").bind(upload.id).first<{ object_key: string }>();
    const object = await env.FILES.head(row!.object_key);
    expect(object?.size).toBe(size);
    // Parts landed in their places: the byte at each part's start is its number.
    for (const [offset, fill] of [[0, 1], [UPLOAD_PART_SIZE, 2], [2 * UPLOAD_PART_SIZE, 3]] as const) {
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
    expect(await (await call(`/api/uploads/${upload.id}`, { cookie })).json()).toMatchObject({ status: "aborted", uploadedParts: [] });
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
    await env.DB.prepare("update uploads set created_at = ? where id = ?").bind(Date.now() - 25 * 3600 * 1000, stale.id).run();

    const controller = createScheduledController({ cron: "30 3 * * *", scheduledTime: Date.now() });
    const ctx = createExecutionContext();
    await worker.scheduled(controller, env, ctx);
    await waitOnExecutionContext(ctx);

    expect(await (await call(`/api/uploads/${stale.id}`, { cookie })).json()).toMatchObject({ status: "aborted" });
    expect(await (await call(`/api/uploads/${fresh.id}`, { cookie })).json()).toMatchObject({ status: "uploading" });
  });
});
