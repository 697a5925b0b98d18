// `npm start`: build, migrate, seed, and run the whole app locally on http://127.0.0.1:8787.
import { build, ensureDevVars, prepareData, startServer } from "./local-app.mjs";

const PORT = Number(process.env.PORT ?? 8787);
const STATE = ".wrangler/state";

console.log("Preparing ApeWall…");
ensureDevVars();
build();
prepareData(STATE);
const { child, url } = await startServer({ port: PORT, persistTo: STATE, quiet: true, vars: { APP_URL: `http://127.0.0.1:${PORT}` } });
child.stdout.pipe(process.stdout);
child.stderr.pipe(process.stderr);

console.log(`
  ApeWall is running locally.

  App          ${url}
  Dev outbox   ${url}/dev/mail   (sign-in links and every other email)
  Demo item    ${url}/p/demoFieldGuide01

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
