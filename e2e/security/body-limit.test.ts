// A body over a route's size limit, sent to the app as `npm start` serves it (wrangler dev on
// 127.0.0.1): the client gets the 413 and its message, not a dropped connection or a 500, whether
// the body's length is declared up front or it is streamed in chunks.
import { request } from "node:http";
import type { Browser } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { baseUrl, launch, newPage, signIn, uniqueEmail } from "../support/browser";

const MB = 1024 * 1024;

/** Sends `body` with Node's own HTTP client: with Content-Length, or chunked (no length known). */
function send(
  method: string,
  path: string,
  body: Buffer,
  { chunked = false, headers = {} as Record<string, string> } = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const all: Record<string, string | number> = { "content-type": "application/json", origin: baseUrl(), ...headers };
    if (!chunked) all["content-length"] = body.byteLength;
    const req = request(new URL(path, baseUrl()), { method, headers: all }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      res.on("error", reject);
    });
    req.on("error", reject);
    if (chunked) {
      for (let at = 0; at < body.byteLength; at += MB) req.write(body.subarray(at, at + MB));
      req.end();
    } else req.end(body);
  });
}

/** A JSON object of `size` bytes: {"message":"yyyy…"}. */
const jsonOf = (size: number) => {
  const b = Buffer.alloc(size, "y");
  b.write('{"message":"', 0);
  b.write('"}', size - 2);
  return b;
};

let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
});

describe("a request body over the size limit", () => {
  it("32 MB of JSON to an API route answers 413 with the message, declared or chunked; the next request is served", async () => {
    for (const chunked of [false, true]) {
      const res = await send("POST", "/api/feedback", jsonOf(32 * MB), { chunked });
      expect({ chunked, status: res.status }).toEqual({ chunked, status: 413 });
      expect(JSON.parse(res.text)).toEqual({ message: "The request body is too large (at most 64 KB)" });
    }
    expect((await fetch(new URL("/api/auth/providers", baseUrl()))).status).toBe(200);
  });

  it("32 MB to the publish form and the avatar (routes with their own limits) answers their 413 and message", async () => {
    browser = await launch();
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("body-limit"));
    const session = (await context.cookies()).find((c) => c.name === "aw_session")!;
    const cookie = `aw_session=${session.value}`;
    await context.close();
    const junk = Buffer.alloc(32 * MB, "z");
    const form = await send("POST", "/api/content", junk, {
      headers: { cookie, "content-type": "multipart/form-data; boundary=xyz" },
    });
    expect(form.status).toBe(413);
    expect(JSON.parse(form.text)).toEqual({ message: "The form is too large: send files over 8 MB as an upload" });
    const avatar = await send("PUT", "/api/profile/avatar", junk, { headers: { cookie, "content-type": "image/png" } });
    expect(avatar.status).toBe(413);
    expect(JSON.parse(avatar.text).message).toMatch(/MB/);
  });
});
