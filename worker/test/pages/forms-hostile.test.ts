// The public pages' plain form posts (docs/pages.md, "Forms without JavaScript") under hostile input:
// wrong or broken content types, repeated fields, bad percent-encoding, huge bodies, another site.
// None answers 5xx, and the page forms answer with their page (text/html), never the API's JSON.
import { describe, expect, it } from "vitest";
import { BASE, call } from "../support/helpers";

const FORM = "application/x-www-form-urlencoded";
const JUNK: [string, Record<string, string>, string][] = [
  ["broken multipart", { "content-type": "multipart/form-data; boundary=zz" }, "--zz\r\nnonsense"],
  ["multipart without a boundary", { "content-type": "multipart/form-data" }, "email=a@example.com"],
  ["JSON with an array", { "content-type": "application/json" }, '{"email":["a@example.com"]}'],
  ["text/plain", { "content-type": "text/plain" }, "email=a@example.com"],
  ["no content type", {}, "email=a@example.com"],
  ["repeated fields", { "content-type": FORM }, "email=&email=a@example.com&email[]=x&subject=a&subject=b"],
  ["bad percent-encoding", { "content-type": FORM }, "email=%E0%A4%A&subject=%ZZ&message=%"],
  ["a huge body", { "content-type": FORM }, `email=${"a".repeat(200_000)}`],
];

describe("the page forms under junk", () => {
  for (const path of ["/sign-in", "/feedback", "/library"]) {
    it(`POST ${path}: never a 5xx, always the page`, async () => {
      for (const [name, headers, body] of JUNK) {
        const res = await call(path, { method: "POST", headers: { ...headers, origin: BASE }, body });
        expect(res.status, `${path} ${name}`).toBeLessThan(500);
        expect(res.headers.get("content-type"), `${path} ${name}`).toContain("text/html");
        expect(res.headers.get("cache-control"), `${path} ${name}`).toBe("private, no-store");
      }
    });

    it(`POST ${path} from another site: 403, with the page`, async () => {
      for (const origin of ["https://evil.example", "null"]) {
        const res = await call(path, {
          method: "POST",
          headers: { "content-type": FORM, origin },
          body: "email=a@example.com",
        });
        expect(res.status, origin).toBe(403);
        expect(res.headers.get("content-type")).toContain("text/html");
      }
    });
  }

  it("POST /library with a body over the cap: 413 with the page", async () => {
    const res = await call("/library", {
      method: "POST",
      headers: { "content-type": FORM, origin: BASE },
      body: `email=a@example.com&pad=${"x".repeat(40_000)}`,
    });
    expect(res.status).toBe(413);
    expect(await res.text()).toContain("This form is too large.");
  });

  it("POST /library/sign-out under junk: never a 5xx", async () => {
    for (const [name, headers, body] of JUNK) {
      const res = await call("/library/sign-out", { method: "POST", headers: { ...headers, origin: BASE }, body });
      expect(res.status, name).toBeLessThan(500);
    }
  });
});

describe("the 'Show more' form (a GET) with a mangled cursor", () => {
  it("is a 400 with the library page from its start, never the API's JSON", async () => {
    for (const query of ["cursor=bad", "cursor=%00", `cursor=${"1".repeat(3000)}`, "ended=yes"]) {
      const res = await call(`/library?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.headers.get("content-type"), query).toContain("text/html");
      expect(res.headers.get("cache-control"), query).toBe("private, no-store");
      expect(await res.text(), query).toContain('<form method="post" action="/library"');
    }
  });
});
