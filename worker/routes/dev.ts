// Local-only pages: the dev outbox. They answer 404 unless APP_ENV=development, so they never
// exist in production.
import { Hono } from "hono";
import { html } from "hono/html";
import type { AppEnv } from "../middleware/context";
import { isDevelopment } from "../lib/env";
import { listDevMailbox } from "../services/mail/dev-mailbox";
import { devLedgerRoutes } from "./dev-ledger";
import { devRollupRoutes } from "./dev-rollups";
import { devSeedRoutes } from "./dev-seed";
import { devTaxRoutes } from "./dev-tax";

export const devRoutes = new Hono<AppEnv>()
  .use("*", async (c, next) => {
    if (!isDevelopment(c.env)) return c.text("Not Found", 404);
    await next();
  })
  .route("/", devLedgerRoutes)
  .route("/", devRollupRoutes)
  .route("/", devSeedRoutes)
  .route("/", devTaxRoutes)
  // ?limit= (1-1000, default 50): tests that count one address's mails read a window wide enough that
  // none of that address's older mails slides out of it while they wait for a new one.
  .get("/mail.json", async (c) => {
    const limit = Number(c.req.query("limit") ?? 50);
    return c.json(
      await listDevMailbox(c.env.SESSIONS, Number.isInteger(limit) && limit >= 1 && limit <= 1000 ? limit : 50),
    );
  })
  .get("/mail", async (c) => {
    const messages = await listDevMailbox(c.env.SESSIONS);
    return c.html(html`<!doctype html>
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>Dev outbox · ApeWall</title>
          <style>
            body { font-family: system-ui, sans-serif; margin: 0; background: #f6f7fb; color: #111827; }
            main { max-width: 880px; margin: 0 auto; padding: 32px 16px; }
            article { background: #fff; border-radius: 12px; padding: 16px 20px; margin: 12px 0; box-shadow: 0 1px 2px #0001; }
            .meta { color: #6b7280; font-size: 13px; }
            pre { white-space: pre-wrap; font-size: 14px; }
            a { color: #7c3aed; word-break: break-all; }
          </style>
        </head>
        <body>
          <main>
            <h1>Dev outbox</h1>
            <p class="meta">Emails the app sent while running locally, newest first. JSON: <a href="/dev/mail.json">/dev/mail.json</a></p>
            ${messages.length === 0 ? html`<p>No emails yet.</p>` : ""}
            ${messages.map(
              (m) => html`<article>
                <div class="meta">${m.createdAt} · to ${m.to}${m.replyTo ? ` · Reply-To ${m.replyTo}` : ""}</div>
                <h2>${m.subject}</h2>
                <pre>${m.text}</pre>
                ${m.links.map((l) => html`<div><a href="${l}">${l}</a></div>`)}
                <details><summary class="meta">HTML version</summary><iframe sandbox srcdoc="${m.html}" style="width:100%;height:360px;border:0"></iframe></details>
              </article>`,
            )}
          </main>
        </body>
      </html>`);
  });
