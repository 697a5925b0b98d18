// Views of paywall pages: each is counted per item and UTC day through the VIEWS queue, gathered in
// the isolate for a moment so a busy page sends one message a second, not one per visitor.
// The consumer that adds them up is worker/queue/views.ts.

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** `n` views (1 when absent) of an item on a UTC day: a VIEWS queue message. */
export type ViewEvent = { contentId: string; day: string; n?: number };

/** How long an isolate gathers views before sending them: one message per item and day, not per view. */
const VIEW_FLUSH_MS = 1000;
const pendingViews = new Map<string, ViewEvent>();
let flushing: Promise<void> | null = null;

function addPendingViews(views: ViewEvent): void {
  const key = `${views.contentId}|${views.day}`;
  const pending = pendingViews.get(key);
  if (pending) pending.n = (pending.n ?? 1) + (views.n ?? 1);
  else pendingViews.set(key, { ...views });
}

/**
 * Counts a view of an item for today (UTC), through the VIEWS queue. Views gathered in this isolate
 * over VIEW_FLUSH_MS go out together as one message per item and day (a hot paywall makes one queue
 * message a second, not one per visitor); the request that opens the window keeps it open
 * (`waitUntil`), so every view is sent even if no other request comes.
 */
export function recordView(
  views: Queue,
  ctx: Pick<ExecutionContext, "waitUntil">,
  contentId: string,
  now = Date.now(),
): void {
  addPendingViews({ contentId, day: utcDay(now), n: 1 });
  if (flushing) return;
  flushing = new Promise<void>((resolve) => setTimeout(resolve, VIEW_FLUSH_MS)).then(async () => {
    const batch = [...pendingViews.values()];
    pendingViews.clear();
    flushing = null;
    // sendBatch takes at most 100 messages.
    for (let i = 0; i < batch.length; i += 100) {
      try {
        await views.sendBatch(batch.slice(i, i + 100).map((body) => ({ body })));
      } catch (err) {
        // Not sent: the views wait for the next window of this isolate (the next view opens one).
        for (const unsent of batch.slice(i)) addPendingViews(unsent);
        throw err;
      }
    }
  });
  ctx.waitUntil(flushing.catch((err) => console.warn("view count failed; kept for the next send", err)));
}
