// A body over the API's size limit, sent to the app as `npm start` serves it (wrangler dev on
// 127.0.0.1): the client gets the 413 and its message, not a dropped connection or a 500, whether
// the body's length is declared up front or it is streamed in chunks.
import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { baseUrl } from "./browser";

const MB = 1024 * 1024;

/** POSTs `body` with Node's own HTTP client: with Content-Length, or chunked (no length known). */
function post(path: string, body: Buffer, { chunked = false } = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { "content-type": "application/json", origin: baseUrl() };
    if (!chunked) headers["content-length"] = body.byteLength;
    const req = request(new URL(path, baseUrl()), { method: "POST", headers }, (res) => {
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
  const head = '{"message":"';
  const b = Buffer.alloc(size, "y");
  b.write(head, 0);
  b.write('"}', size - 2);
  return b;
};

describe("a request body over the size limit", () => {
  it("32 MB of JSON to an API route answers 413 with the message, declared or chunked; the next request is served", async () => {
    for (const chunked of [false, true]) {
      const res = await post("/api/feedback", jsonOf(32 * MB), { chunked });
      expect({ chunked, status: res.status }).toEqual({ chunked, status: 413 });
      expect(JSON.parse(res.text)).toEqual({ message: "The request body is too large (at most 64 KB)" });
    }
    expect((await fetch(new URL("/api/auth/providers", baseUrl()))).status).toBe(200);
  });
});
