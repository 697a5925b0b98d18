// A local stand-in for Cloudflare Turnstile: the widget script (api.js) and the siteverify endpoint,
// answering as Cloudflare documents its test keys (developers.cloudflare.com/turnstile/troubleshooting/testing/).
// It exists for local runs and tests only; the app reaches it through TURNSTILE_SCRIPT_URL and
// TURNSTILE_VERIFY_URL. Behaviour: docs/security.md, "Bot protection".
//
//   GET  /turnstile/v0/api.js       the widget API (./widget.js)
//   POST /turnstile/v0/siteverify   form-encoded or JSON `secret`, `response`, `remoteip`, `idempotency_key`
//   POST /_standin/status/{code}/turnstile/v0/siteverify   answers {code} (an outage, reached by configuration)
//   POST /_standin/hang/turnstile/v0/siteverify            never answers (a timeout)
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const WIDGET_JS = readFileSync(new URL("./widget.js", import.meta.url), "utf8");

/** The token every test sitekey produces; test secrets accept only it, real secrets never. */
const DUMMY_TOKEN = "XXXX.DUMMY.TOKEN.XXXX";

/** Cloudflare's test secret keys and what siteverify answers with each. */
const TEST_SECRETS = {
  pass: "1x0000000000000000000000000000000AA",
  fail: "2x0000000000000000000000000000000AA",
  spent: "3x0000000000000000000000000000000AA",
};

const MAX_TOKEN_LENGTH = 2048;

/** Siteverify's answer for these parameters, as the documentation gives it for the test secrets. */
function siteverify({ secret, response }) {
  const failure = (code) => ({ success: false, "error-codes": [code], messages: [] });
  if (!secret) return failure("missing-input-secret");
  if (!Object.values(TEST_SECRETS).includes(secret)) return failure("invalid-input-secret");
  if (!response) return failure("missing-input-response");
  if (response.length > MAX_TOKEN_LENGTH) return failure("invalid-input-response");
  if (secret === TEST_SECRETS.fail) return failure("invalid-input-response");
  if (secret === TEST_SECRETS.spent) return failure("timeout-or-duplicate");
  // Test secrets accept only the dummy token: anything else is a forged or real token.
  if (response !== DUMMY_TOKEN) return failure("invalid-input-response");
  return {
    success: true,
    challenge_ts: new Date().toISOString(),
    hostname: "localhost",
    "error-codes": [],
    action: "test",
    cdata: "test-data",
    metadata: { interactive: false },
  };
}

function parseBody(req, text) {
  const type = String(req.headers["content-type"] ?? "");
  if (type.includes("application/json")) {
    try {
      const json = JSON.parse(text);
      return json && typeof json === "object" ? json : null;
    } catch {
      return null;
    }
  }
  if (type.includes("application/x-www-form-urlencoded")) return Object.fromEntries(new URLSearchParams(text));
  return null;
}

export function createTurnstileStandin({ log = () => {} } = {}) {
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const text = Buffer.concat(chunks).toString("utf8");
    const path = new URL(req.url ?? "/", "http://standin").pathname;
    const json = (status, body) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (req.method === "GET" && path === "/turnstile/v0/api.js") {
      return res
        .writeHead(200, { "content-type": "application/javascript; charset=utf-8", "cache-control": "no-store" })
        .end(WIDGET_JS);
    }
    if (req.method === "GET" && path === "/_standin/health") return res.writeHead(200).end("ok");
    const outage = /^\/_standin\/status\/(\d{3})\/turnstile\/v0\/siteverify$/.exec(path);
    if (req.method === "POST" && outage) {
      log(`POST ${path} -> ${outage[1]} (outage)`);
      return res.writeHead(Number(outage[1]), { "content-type": "text/html" }).end("<h1>Service unavailable</h1>");
    }
    if (req.method === "POST" && path === "/_standin/hang/turnstile/v0/siteverify") return log(`POST ${path} (hangs)`);
    if (req.method === "POST" && path === "/turnstile/v0/siteverify") {
      const params = parseBody(req, text);
      const answer = params
        ? siteverify({ secret: String(params.secret ?? ""), response: String(params.response ?? "") })
        : { success: false, "error-codes": ["bad-request"], messages: [] };
      log(`POST ${path} -> ${answer.success ? "success" : answer["error-codes"].join(",")}`);
      return json(200, answer);
    }
    res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
  });
  return {
    server,
    listen(port = 0, host = "127.0.0.1") {
      return new Promise((resolve) =>
        server.listen(port, host, () => resolve(`http://${host}:${server.address().port}`)),
      );
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
