// Runs before each worker test file. The files share one workerd (vitest.config.ts: `isolate: false`),
// so each starts by emptying what a runtime of its own would have started without: D1's rows, KV's
// keys, R2's objects and the payout runs' Workflow instances. Then the migrations (applied once).
import { applyD1Migrations, type D1Migration } from "cloudflare:test";
import { env } from "cloudflare:workers";

/** The payout runs started so far (instance ids), kept on the binding, which outlives a file. */
const STARTED = Symbol.for("apewall.test.startedPayoutRuns");
const runs = env.PAYOUT_RUN as Workflow & { [STARTED]?: Set<string> };
if (!runs[STARTED]) {
  const started = new Set<string>();
  const create = runs.create.bind(runs);
  runs.create = async (options) => {
    const instance = await create(options);
    started.add(instance.id);
    return instance;
  };
  runs[STARTED] = started;
}

async function emptyD1(): Promise<void> {
  const { results } = await env.DB.prepare(
    "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '\\_cf\\_%' escape '\\' and name <> 'd1_migrations'",
  ).all<{ name: string }>();
  if (!results.length) return;
  const hasSequence = await env.DB.prepare("select 1 from sqlite_master where name = 'sqlite_sequence'").first();
  await env.DB.batch([
    env.DB.prepare("pragma defer_foreign_keys = on"),
    ...results.map(({ name }) => env.DB.prepare(`delete from "${name}"`)),
    ...(hasSequence ? [env.DB.prepare("delete from sqlite_sequence")] : []),
  ]);
}

async function emptyKv(): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await env.SESSIONS.list({ cursor });
    await Promise.all(page.keys.map((k) => env.SESSIONS.delete(k.name)));
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor);
}

async function emptyR2(): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await env.FILES.list({ cursor });
    if (page.objects.length) await env.FILES.delete(page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
}

/** Deletes the payout runs earlier files started: a run's id is its period's, which a later file may use. */
async function forgetPayoutRuns(): Promise<void> {
  const started = runs[STARTED] ?? new Set<string>();
  await Promise.all(
    [...started].map((id) =>
      runs
        .get(id)
        .then((instance) => instance.delete())
        .catch(() => undefined),
    ),
  );
  started.clear();
}

await Promise.all([emptyD1(), emptyKv(), emptyR2(), forgetPayoutRuns()]);
await applyD1Migrations(env.DB, (env as unknown as { TEST_MIGRATIONS: D1Migration[] }).TEST_MIGRATIONS);
