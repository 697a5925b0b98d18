// The answer of GET /api/content/{id} (what anyone may see of an item before paying) is the same for
// every visitor, so it is kept like the paywall page (./paywall-cache.ts): this isolate's memory in
// front of the data center's edge cache (the Cache API), keyed by item and deploy, and replaced or
// dropped where the page is (docs/payments.md, "The paywall page").
import type { Bindings as EnvBindings } from "./env";

type Bindings = Pick<EnvBindings, "CF_VERSION_METADATA">;

/** As long as a paywall page is kept (PAYWALL_CACHE_SECONDS): what a stale copy could show is public. */
const KEEP_SECONDS = 60;
/** How long a 404 for an id that was never there is remembered (as the paywall page's). */
const UNKNOWN_ID_SECONDS = 30;
/** Answers this isolate keeps (about 1 KB each), the least recently used dropped first. */
const MEMORY_ANSWERS = 500;

/** An answer as sent: its JSON bytes, or null for an item that is gone (the mark that answers 404). */
export type KeptAnswer = { body: Uint8Array<ArrayBuffer> | null; keptAt: number; keepSeconds: number };

// Inside the edge copy only, never sent to a caller.
const KEPT_AT_HEADER = "x-apewall-kept-at";
const KEEP_HEADER = "x-apewall-keep-seconds";
const GONE_HEADER = "x-apewall-gone";

const memory = new Map<string, KeptAnswer>();
const expiresAt = (a: KeptAnswer) => a.keptAt + a.keepSeconds * 1000;

/** The cache key of an item's answer: the item and this deploy (a deploy never serves an older answer). */
export function publicContentKey(env: Bindings, requestUrl: string, id: string): string {
  const deploy = env.CF_VERSION_METADATA?.id ?? "local";
  const origin = requestUrl.slice(0, requestUrl.indexOf("/", requestUrl.indexOf("//") + 2));
  return `${origin}/api/content/${encodeURIComponent(id)}?public-answer&deploy=${encodeURIComponent(deploy)}`;
}

/**
 * An answer to keep: the item's visible fields as JSON, or, for an id the primary does not have, the
 * 404 mark for UNKNOWN_ID_SECONDS (random ids then cost one read per isolate and data center each half
 * minute, not one each).
 */
export function answerOf(visible: object | null): KeptAnswer {
  if (!visible) return { body: null, keptAt: Date.now(), keepSeconds: UNKNOWN_ID_SECONDS };
  // encode() always makes a fresh ArrayBuffer.
  const body = new TextEncoder().encode(JSON.stringify(visible)) as Uint8Array<ArrayBuffer>;
  return { body, keptAt: Date.now(), keepSeconds: KEEP_SECONDS };
}

/**
 * A deleted item's mark: it answers 404 for as long as an answer would have been kept, so a read
 * replica that has not yet seen the delete cannot bring the item back.
 */
export const goneAnswer = (): KeptAnswer => ({ body: null, keptAt: Date.now(), keepSeconds: KEEP_SECONDS });

function remember(key: string, answer: KeptAnswer): void {
  memory.delete(key);
  if (expiresAt(answer) <= Date.now()) return;
  memory.set(key, answer);
  if (memory.size > MEMORY_ANSWERS) memory.delete(memory.keys().next().value!);
}

function edgeCopy(answer: KeptAnswer): Response {
  const left = Math.max(1, Math.ceil((expiresAt(answer) - Date.now()) / 1000));
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "cache-control": `public, max-age=${left}`,
    [KEPT_AT_HEADER]: String(answer.keptAt),
    [KEEP_HEADER]: String(answer.keepSeconds),
  };
  if (!answer.body) headers[GONE_HEADER] = "1";
  return new Response(answer.body, { headers });
}

/** An item's answer from this isolate's memory, else from this data center's edge cache. */
export async function cachedPublicContent(key: string): Promise<KeptAnswer | undefined> {
  const remembered = memory.get(key);
  if (remembered && expiresAt(remembered) > Date.now()) {
    // Most recently used last.
    memory.delete(key);
    memory.set(key, remembered);
    return remembered;
  }
  memory.delete(key);
  const stored = await caches.default.match(new Request(key));
  if (!stored) return undefined;
  let body: Uint8Array<ArrayBuffer> | null = null;
  if (stored.headers.has(GONE_HEADER)) await stored.body?.cancel();
  else body = new Uint8Array(await stored.arrayBuffer());
  const answer = {
    body,
    keptAt: Number(stored.headers.get(KEPT_AT_HEADER)) || Date.now(),
    keepSeconds: Number(stored.headers.get(KEEP_HEADER)) || KEEP_SECONDS,
  };
  remember(key, answer);
  return answer;
}

/** Keeps an answer in this isolate's memory and, in the background, in the edge cache. */
export function keepPublicContent(ctx: Pick<ExecutionContext, "waitUntil">, key: string, answer: KeptAnswer): void {
  remember(key, answer);
  ctx.waitUntil(caches.default.put(new Request(key), edgeCopy(answer)));
}

/**
 * Replaces an item's answer after its creator changed or deleted it (`answer` read from the primary
 * database, or the 404 mark), in this isolate and this data center at once; other isolates and data
 * centers drop theirs within KEEP_SECONDS.
 */
export async function replacePublicContent(key: string, answer: KeptAnswer): Promise<void> {
  remember(key, answer);
  await caches.default.put(new Request(key), edgeCopy(answer));
}

/**
 * Drops items' answers (something they show changed, such as the creator's profile or the item's
 * order bump) from this isolate and this data center, so the next caller gets one read anew.
 */
export async function forgetPublicContent(env: Bindings, requestUrl: string, ids: string[]): Promise<void> {
  await Promise.all(
    ids.map(async (id) => {
      const key = publicContentKey(env, requestUrl, id);
      memory.delete(key);
      await caches.default.delete(new Request(key));
    }),
  );
}
