// `npm start`: build, migrate, seed, and run the whole app locally on http://127.0.0.1:8787.
import { readFileSync } from "node:fs";
import {
  build,
  ensureDevVars,
  prepareData,
  startServer,
  startStripeStandin,
  startTurnstileStandin,
} from "./local-app.mjs";
import { createTaxRegistrations } from "./tax-registrations.mjs";

const PORT = Number(process.env.PORT ?? 8787);
const STRIPE_PORT = Number(process.env.STRIPE_STANDIN_PORT ?? 12111);
const TURNSTILE_PORT = Number(process.env.TURNSTILE_STANDIN_PORT ?? 12112);
const STATE = ".wrangler/state";

console.log("Preparing ApeWall…");
ensureDevVars();
build();
prepareData(STATE);
// The stand-in keeps its state beside the app's, so a restart forgets no payment.
const { url: stripeUrl } = await startStripeStandin({
  port: STRIPE_PORT,
  appUrl: `http://127.0.0.1:${PORT}`,
  log: true,
  stateFile: `${STATE}/stripe-standin.json`,
});
console.log(`  ✓ Stripe stand-in on ${stripeUrl}`);
await createTaxRegistrations({ apiBase: stripeUrl, secretKey: "sk_test_standin" });
// The keys are .dev.vars' (Cloudflare's test keys); the stand-in answers for the script and siteverify
// while .dev.vars' URLs name a local address (its port may be another here). URLs of Cloudflare's there
// are used as they are: real Turnstile, with the widget's own keys (.dev.vars.example says how).
const standinTurnstile = /^TURNSTILE_VERIFY_URL=https?:\/\/(127\.0\.0\.1|localhost)[:/]/m.test(
  readFileSync(new URL("../.dev.vars", import.meta.url), "utf8"),
);
const { url: turnstileUrl } = await startTurnstileStandin({ port: TURNSTILE_PORT, log: true });
console.log(
  standinTurnstile ? `  ✓ Turnstile stand-in on ${turnstileUrl}` : "  ✓ Turnstile: Cloudflare's, as .dev.vars says",
);
const { child, url } = await startServer({
  port: PORT,
  persistTo: STATE,
  quiet: true,
  vars: {
    APP_URL: `http://127.0.0.1:${PORT}`,
    STRIPE_API_BASE: stripeUrl,
    STRIPE_JS_URL: `${stripeUrl}/v3`,
    ...(standinTurnstile
      ? {
          TURNSTILE_SCRIPT_URL: `${turnstileUrl}/turnstile/v0/api.js`,
          TURNSTILE_VERIFY_URL: `${turnstileUrl}/turnstile/v0/siteverify`,
        }
      : {}),
  },
});
child.stdout.pipe(process.stdout);
child.stderr.pipe(process.stderr);

console.log(`
  ApeWall is running locally.

  App          ${url}
  Dev outbox   ${url}/dev/mail   (sign-in links and every other email)
  Demo item    ${url}/p/demoFieldGuide01
  Stripe       ${stripeUrl}   (local stand-in: pay with 4242 4242 4242 4242, any future date, any CVC;
                                4000 0000 0000 0002 is declined, 4000 0025 0000 3155 asks to authenticate)
  Turnstile    ${turnstileUrl}   (local stand-in for the bot check: Cloudflare's test keys in .dev.vars)

  Sign in with any email address; the link arrives in the dev outbox.
  Stop with Ctrl+C.
`);

const stop = () => {
  child.kill("SIGTERM");
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
child.on("exit", (code) => process.exit(code ?? 0));
