// Runs before each worker test file. The files share one workerd (vitest.config.ts: `isolate: false`),
// so each starts by emptying what a runtime of its own would have started without: D1's rows, KV's
// keys, R2's objects and the payout runs' Workflow instances. Then the migrations (applied once).
import { applyD1Migrations, type D1Migration } from "cloudflare:test";
import { env } from "cloudflare:workers";

/** Years whose monthly payout runs (`payouts-YYYY-MM`, `-r2`, ...) tests start. */
const RUN_YEARS = [2023, 2024, 2025, 2026, 2027, 2028];

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

/**
 * Deletes the payout runs a file may have started. The binding's own `deleteInstance` answers
 * not_found quietly; looking an absent id up with `get` logs an uncaught error in the local engine.
 */
async function forgetPayoutRuns(): Promise<void> {
  const binding = (env.PAYOUT_RUN as unknown as { binding?: { deleteInstance?(id: string): Promise<void> } }).binding;
  const remove = binding?.deleteInstance
    ? (id: string) =>
        binding.deleteInstance!(id).then(
          () => true,
          () => false,
        )
    : (id: string) =>
        env.PAYOUT_RUN.get(id).then(
          (i) => i.delete().then(() => true),
          () => false,
        );
  const ids = RUN_YEARS.flatMap((y) =>
    Array.from({ length: 12 }, (_, m) => `payouts-${y}-${String(m + 1).padStart(2, "0")}`),
  );
  await Promise.all(
    ids.map(async (base) => {
      for (let n = 1; await remove(n === 1 ? base : `${base}-r${n}`); n++);
    }),
  );
}

await Promise.all([emptyD1(), emptyKv(), emptyR2(), forgetPayoutRuns()]);
await applyD1Migrations(env.DB, (env as unknown as { TEST_MIGRATIONS: D1Migration[] }).TEST_MIGRATIONS);
