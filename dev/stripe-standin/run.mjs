// Runs the Stripe stand-in on its own: node dev/stripe-standin/run.mjs [port] [webhook url]
import { createStandin } from "./server.mjs";

const port = Number(process.argv[2] ?? process.env.STRIPE_STANDIN_PORT ?? 12111);
const webhook = process.argv[3] ?? process.env.STRIPE_STANDIN_WEBHOOK_URL;
const standin = createStandin({
  webhookUrls: webhook ? [webhook] : [],
  connectWebhookUrls: webhook ? [webhook] : [],
  webhookSecret: process.env.STRIPE_WEBHOOK_SECRET ?? "whsec_standin",
  connectWebhookSecret: process.env.STRIPE_CONNECT_WEBHOOK_SECRET ?? "whsec_standin_connect",
  log: (line) => console.log(`[stripe-standin] ${line}`),
});
console.log(`[stripe-standin] listening on ${await standin.listen(port)}${webhook ? `, webhooks to ${webhook}` : ""}`);
