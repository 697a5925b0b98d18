// The VIEWS queue consumer: paywall views arrive as messages of one or more views of an item on a
// day (each isolate gathers its views for a second) and are written as one upsert per item and day
// for the whole batch.
import { sql } from "drizzle-orm";
import { createDb } from "../db/client";
import { contentViewsDaily } from "../db/schema";
import type { Bindings } from "../lib/env";
import type { ViewEvent } from "../services/content-views";

export async function handleViewBatch(batch: MessageBatch<ViewEvent>, env: Bindings): Promise<void> {
  const counts = new Map<string, { contentId: string; day: string; n: number }>();
  for (const { body } of batch.messages) {
    const key = `${body.contentId}|${body.day}`;
    const entry = counts.get(key) ?? { contentId: body.contentId, day: body.day, n: 0 };
    entry.n += body.n ?? 1;
    counts.set(key, entry);
  }
  if (counts.size === 0) return;
  const db = createDb(env.DB);
  const [first, ...rest] = [...counts.values()].map(({ contentId, day, n }) =>
    db
      .insert(contentViewsDaily)
      .values({ contentId, day, views: n })
      .onConflictDoUpdate({
        target: [contentViewsDaily.contentId, contentViewsDaily.day],
        set: { views: sql`${contentViewsDaily.views} + ${n}` },
      }),
  );
  // One transaction: a retried batch counts its views again only if nothing of it was written.
  await db.batch([first, ...rest]);
  batch.ackAll();
}
