// A stateful local stand-in for the part of Stripe's API ApeWall uses. It speaks Stripe's wire
// format (form-encoded /v1 requests, Stripe-shaped objects and errors, Idempotency-Key replay),
// keeps state in memory, sends signed webhooks, and serves a stand-in Stripe.js at /v3.
// It exists for local runs and tests only; the Worker reaches it through STRIPE_API_BASE.
// This file wires the resource modules (each takes the `kit`: state and shared helpers) and serves
// their routes; behaviour is described in docs/payments.md.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { accountLinks } from "./account-links.mjs";
import { accounts } from "./accounts.mjs";
import { balance } from "./balance.mjs";
import { CARDS, TEST_PAYMENT_METHODS } from "./cards.mjs";
import { catalogRoutes } from "./catalog.mjs";
import { charges } from "./charges.mjs";
import { confirmationTokens } from "./confirmation-tokens.mjs";
import { customers } from "./customers.mjs";
import { disputes } from "./disputes.mjs";
import { badParam, missing, missingParam, StripeError } from "./errors.mjs";
import { parseForm } from "./form.mjs";
import { invoices } from "./invoices.mjs";
import { paymentIntents } from "./payment-intents.mjs";
import { paymentMethods } from "./payment-methods.mjs";
import { refunds } from "./refunds.mjs";
import { createStore } from "./store.mjs";
import { subscriptions } from "./subscriptions.mjs";
import { tax } from "./tax.mjs";
import { taxTransactions } from "./tax-transactions.mjs";
import { testClocks } from "./test-clocks.mjs";
import { transfers } from "./transfers.mjs";
import { createWebhooks } from "./webhooks.mjs";
import { API_VERSION, expandOf, int, list, metadata, now, publicJson, RAW, raw, rid } from "./wire.mjs";

// Stripe.js as the stand-in serves it at /v3: the Payment Element's billing fields, then the rest.
const STRIPE_JS = [new URL("./stripe-js-billing.js", import.meta.url), new URL("./stripe-js.js", import.meta.url)]
  .map((file) => readFileSync(file, "utf8"))
  .join("\n");

/**
 * `stateFile`: where to keep state across restarts (npm start); without it, state lives in memory.
 * Webhook endpoints, as a Stripe account has them (webhooks.mjs): `webhookUrls` get the events about
 * the platform's own objects, signed with `webhookSecret`; `connectWebhookUrls` only those about a
 * connected account, signed with `connectWebhookSecret`.
 */
export function createStandin({
  webhookUrls = [],
  connectWebhookUrls = [],
  webhookSecret = "whsec_standin",
  connectWebhookSecret = webhookSecret,
  log = () => {},
  stateFile,
} = {}) {
  const { db, save, get } = createStore(stateFile);
  const webhooks = createWebhooks({ db, webhookUrls, connectWebhookUrls, webhookSecret, connectWebhookSecret, log });
  const { emit } = webhooks;

  // Every resource module gets the same kit; a module's helpers join it for the modules after it.
  const kit = {
    db,
    save,
    emit,
    get,
    metadata,
    int,
    rid,
    now,
    list,
    StripeError,
    missing,
    badParam,
    missingParam,
    on: webhooks.on,
    raw,
    CARDS,
    TEST_PAYMENT_METHODS,
    expandOf,
  };
  const use = (module) => {
    const { routes = [], ...helpers } = module(kit);
    Object.assign(kit, helpers);
    return routes;
  };
  // [method, path pattern, who may call ("secret" | "publishable" | "either" | "public"), handler(params, match, ctx)]
  const routes = [
    ...use(balance),
    ...use(customers),
    ...use(paymentMethods),
    ...use(confirmationTokens),
    ...use(charges),
    ...use(tax),
    ...use(paymentIntents),
    ...webhooks.routes,
    ...catalogRoutes(kit),
    ...use(accounts),
    ...use(accountLinks),
    ...use(transfers),
    ...use(invoices),
    ...use(subscriptions),
    ...use(testClocks),
    ...use(disputes),
    ...use(refunds),
    ...use(taxTransactions),
  ];
  const { publicPm } = kit;

  function authenticate(req) {
    const header = req.headers.authorization ?? "";
    let key = /^Bearer (.+)$/.exec(header)?.[1];
    if (!key && header.startsWith("Basic ")) key = Buffer.from(header.slice(6), "base64").toString().split(":")[0];
    if (!key) throw new StripeError(401, "invalid_request_error", "You did not provide an API key.");
    if (/^(sk|pk|rk)_live_/.test(key))
      throw new StripeError(
        401,
        "invalid_request_error",
        "The ApeWall Stripe stand-in refuses live keys: it only plays Stripe's test mode.",
      );
    if (key.startsWith("sk_test_") || key.startsWith("rk_test_")) return { auth: "secret", key };
    if (key.startsWith("pk_test_")) return { auth: "publishable", key };
    throw new StripeError(401, "invalid_request_error", `Invalid API Key provided: ${key.slice(0, 8)}****`);
  }

  async function handle(req, body, base) {
    const url = new URL(req.url, base);
    const params = req.method === "GET" ? parseForm(url.searchParams.toString()) : parseForm(body);
    const route = routes.find(([method, pattern]) => method === req.method && pattern.test(url.pathname));
    if (!route)
      throw new StripeError(404, "invalid_request_error", `Unrecognized request URL (${req.method}: ${url.pathname}).`);
    // "public" routes are the pages a browser opens (hosted onboarding and the like): no API key.
    const ctx = route[2] === "public" ? { auth: "public", key: "", base } : { ...authenticate(req), base };
    if (route[2] === "secret" && ctx.auth !== "secret")
      throw new StripeError(
        401,
        "invalid_request_error",
        "This API call cannot be made with a publishable API key. Please use a secret API key.",
      );
    const idemKey = req.method === "POST" ? req.headers["idempotency-key"] : undefined;
    const scope = idemKey && `${ctx.key}:${idemKey}`;
    if (scope && db.idempotency.has(scope)) {
      const saved = db.idempotency.get(scope);
      if (saved.fingerprint !== `${url.pathname}?${body}`) {
        throw new StripeError(
          400,
          "idempotency_error",
          `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idemKey}' if you meant to execute a different request.`,
        );
      }
      return { status: saved.status, body: saved.body, replayed: true };
    }
    let status = 200;
    let result;
    try {
      result = route[3](params, url.pathname.match(route[1]), ctx);
      if (result?.[RAW]) {
        if (req.method === "POST") save();
        return result[RAW];
      }
      result = result?._number ? publicPm(result) : result;
    } catch (err) {
      if (!(err instanceof StripeError)) throw err;
      // Stripe keeps a result only once the endpoint began executing: a request refused by
      // validation can be corrected and retried under the same key.
      if (err.validation) return { status: err.status, body: publicJson(err.body, 2) };
      status = err.status;
      result = err.body;
    }
    const json = publicJson(result, 2);
    if (scope) db.idempotency.set(scope, { fingerprint: `${url.pathname}?${body}`, status, body: json });
    if (req.method === "POST") save();
    return { status, body: json };
  }

  const server = createServer(async (req, res) => {
    const base = `http://${req.headers.host}`;
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks).toString("utf8");
    const cors = {
      "access-control-allow-origin": "*",
      "access-control-allow-headers": "authorization, content-type, idempotency-key, stripe-version, cf-connecting-ip",
      "access-control-allow-methods": "GET, POST, OPTIONS",
    };
    if (req.method === "OPTIONS") return res.writeHead(204, cors).end();
    if (req.method === "GET" && (req.url === "/v3" || req.url === "/v3/")) {
      return res
        .writeHead(200, {
          ...cors,
          "content-type": "application/javascript; charset=utf-8",
          "cache-control": "no-store",
        })
        .end(STRIPE_JS.replace("__STANDIN_BASE__", base));
    }
    if (req.method === "GET" && req.url === "/_standin/health") return res.writeHead(200, cors).end("ok");
    const requestId = rid("req", 14);
    try {
      const out = await handle(req, body, base);
      log(`${req.method} ${req.url} -> ${out.status}${out.replayed ? " (replayed)" : ""}`);
      if (out.headers) return res.writeHead(out.status, out.headers).end(out.body);
      res
        .writeHead(out.status, {
          ...cors,
          "content-type": "application/json",
          "request-id": requestId,
          "stripe-version": API_VERSION,
          ...(out.replayed ? { "idempotent-replayed": "true" } : {}),
        })
        .end(out.body);
    } catch (err) {
      const e = err instanceof StripeError ? err : new StripeError(500, "api_error", `Stand-in error: ${err.message}`);
      log(`${req.method} ${req.url} -> ${e.status} ${e.message}`);
      res
        .writeHead(e.status, { ...cors, "content-type": "application/json", "request-id": requestId })
        .end(JSON.stringify(e.body));
    }
  });

  return {
    server,
    db,
    emit,
    /** Resolves once every webhook sent so far was delivered (or gave up). */
    flushWebhooks: webhooks.flush,
    listen(port = 0, host = "127.0.0.1") {
      return new Promise((resolve) =>
        server.listen(port, host, () => resolve(`http://${host}:${server.address().port}`)),
      );
    },
    close: () =>
      new Promise((resolve) => {
        webhooks.stop();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
