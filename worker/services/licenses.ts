// License keys: one per purchase of an item that issues them; apps verify them and activate seats.
// Issued in fulfil's own batch (one per purchase); status derived from the purchase, never stored;
// a seat is one row per (key, instance), taken by one statement that also checks the limit.
// Behaviour: docs/api-and-webhooks.md ("License keys").
import type { PurchaseState } from "./purchases/states";
import type { CreatorLicense, LicenseStatus, LicenseVerification } from "../../shared/licenses";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import { dispatchWebhooks, webhookStatements } from "./webhooks/delivery";
import type { LicenseAction } from "../../shared/licenses";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** AW-XXXXX-XXXXX-XXXXX-XXXXX: 100 random bits in Crockford base32 (no I, L, O, U). */
export function newLicenseKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(13)); // 104 bits, the first 100 used
  let bits = 0n;
  for (const b of bytes) bits = (bits << 8n) | BigInt(b);
  bits >>= 4n;
  let chars = "";
  for (let i = 0; i < 20; i++) chars = CROCKFORD[Number((bits >> BigInt(5 * i)) & 31n)] + chars;
  return `AW-${chars.match(/.{5}/g)!.join("-")}`;
}

/** What the purchase's state means for its key (a key its creator disabled is "disabled" whatever this says). */
const STATUS_BY_PURCHASE: Record<PurchaseState, LicenseStatus> = {
  paid: "valid", // includes partly refunded
  refunded: "refunded", // refunded in full
  disputed: "disabled", // a chargeback withdrew the funds (open or lost)
};

function licenseStatus(key: { disabledAt: number | null }, purchaseStatus: string): LicenseStatus {
  if (key.disabledAt !== null) return "disabled";
  return STATUS_BY_PURCHASE[purchaseStatus as PurchaseState] ?? "disabled";
}

/**
 * The key insert for fulfil's batch: only if that batch marked `purchaseId` paid at `paidAt` and the
 * item issues keys; a second one for the same purchase is a no-op (unique purchase_id). `key` is
 * passed in so the receipt written in the same batch can name it.
 */
export function issueLicenseStatement(
  d1: D1Database,
  purchaseId: string,
  paidAt: number,
  key = newLicenseKey(),
): D1PreparedStatement {
  return d1
    .prepare(
      `insert into license_keys (id, key, purchase_id, content_id, user_id, created_at)
       select ?, ?, p.id, p.content_id, p.creator_id, ? from purchases p join content c on c.id = p.content_id
       where p.id = ? and p.status = 'paid' and p.paid_at = ? and c.issue_license_keys = 1
       on conflict do nothing`,
    )
    .bind(newId(), key, paidAt, purchaseId, paidAt);
}

type KeyRow = {
  id: string;
  user_id: string;
  purchase_id: string;
  content_id: string;
  title: string;
  disabled_at: number | null;
  status: string;
  limit: number | null;
  activations: number;
};

const KEY_SQL = `select k.id, k.user_id, k.purchase_id, k.content_id, c.title, k.disabled_at, p.status, c.license_activation_limit as "limit",
  (select count(*) from license_activations a where a.license_id = k.id) as activations
  from license_keys k join purchases p on p.id = k.purchase_id join content c on c.id = k.content_id`;

const findKey = (d1: D1Database, key: string) => d1.prepare(`${KEY_SQL} where k.key = ?`).bind(key).first<KeyRow>();

/**
 * The statements that record an activation of `licenseId` on `instance`, for one D1 batch: the
 * insert takes a seat only while one is free (or the instance already has one) and is a no-op for
 * an instance already there. verifyLicense adds the `license.activated` webhook to the same batch,
 * guarded by the row this batch added (only that batch wrote its created_at).
 */
function activationStatements(
  d1: D1Database,
  licenseId: string,
  instance: string,
  limit: number | null,
  now: number,
): D1PreparedStatement[] {
  return [
    d1
      .prepare(
        `insert into license_activations (license_id, instance, created_at)
         select ?1, ?2, ?3 where ?4 is null or (select count(*) from license_activations where license_id = ?1) < ?4
         on conflict do nothing`,
      )
      .bind(licenseId, instance, now, limit),
  ];
}

/** POST /api/licenses/verify: the key's status, and with `instance` a seat on a valid key. HTTP status beside it. */
export async function verifyLicense(
  d1: D1Database,
  input: { key: string; instance?: string },
  webhooks?: Queue,
): Promise<{ http: 200 | 404 | 409; body: LicenseVerification }> {
  const found = await findKey(d1, input.key);
  if (!found) return { http: 404, body: { status: "not_found", item: null, activations: 0, limit: null } };
  const status = licenseStatus({ disabledAt: found.disabled_at }, found.status);
  const item = { id: found.content_id, title: found.title };
  if (!input.instance || status !== "valid")
    return { http: 200, body: { status, item, activations: found.activations, limit: found.limit } };

  const now = Date.now();
  const hookKey = `license-activated:${found.id}:${input.instance}:${now}`;
  await d1.batch([
    ...activationStatements(d1, found.id, input.instance, found.limit, now),
    ...webhookStatements(
      d1,
      found.user_id,
      "license.activated",
      {
        licenseId: found.id,
        purchaseId: found.purchase_id,
        itemId: found.content_id,
        itemTitle: found.title,
        instance: input.instance,
        activations: found.activations + 1,
        limit: found.limit,
      },
      hookKey,
      now,
      {
        sql: "exists (select 1 from license_activations where license_id = ? and instance = ? and created_at = ?)",
        binds: [found.id, input.instance, now],
      },
    ),
  ]);
  await dispatchWebhooks(d1, webhooks, found.user_id, [hookKey], now);
  const after = await d1
    .prepare(
      "select (select count(*) from license_activations where license_id = ?1) as n, exists (select 1 from license_activations where license_id = ?1 and instance = ?2) as mine",
    )
    .bind(found.id, input.instance)
    .first<{ n: number; mine: number }>();
  const body = { item, activations: after?.n ?? 0, limit: found.limit };
  return after?.mine
    ? { http: 200, body: { ...body, status } }
    : { http: 409, body: { ...body, status: "limit_reached" } };
}

/** POST /api/licenses/deactivate: frees `instance`'s seat (no-op if it had none). */
export async function deactivateLicense(
  d1: D1Database,
  input: { key: string; instance: string },
): Promise<{ http: 200 | 404; body: LicenseVerification }> {
  const found = await findKey(d1, input.key);
  if (!found) return { http: 404, body: { status: "not_found", item: null, activations: 0, limit: null } };
  const res = await d1
    .prepare("delete from license_activations where license_id = ? and instance = ?")
    .bind(found.id, input.instance)
    .run();
  return {
    http: 200,
    body: {
      status: licenseStatus({ disabledAt: found.disabled_at }, found.status),
      item: { id: found.content_id, title: found.title },
      activations: found.activations - (res.meta.changes ?? 0),
      limit: found.limit,
    },
  };
}

/** The creator disables (reason) or re-enables their key; someone else's or an unknown id is 404. */
export async function setLicenseDisabled(
  d1: D1Database,
  userId: string,
  licenseId: string,
  disabled: { reason: string | null } | null,
): Promise<LicenseAction> {
  const updated = await d1
    .prepare("update license_keys set disabled_at = ?, disabled_reason = ? where id = ? and user_id = ? returning id")
    .bind(disabled ? Date.now() : null, disabled?.reason ?? null, licenseId, userId)
    .first<{ id: string }>();
  if (!updated) throw new ApiError(404, "License key not found");
  return (await creatorLicenses(d1, userId, { licenseId }))[0];
}

/** The creator's keys for these purchases (the sales table), or one key by id; owner-checked. */
async function creatorLicenses(
  d1: D1Database,
  userId: string,
  by: { purchaseIds?: string[]; licenseId?: string },
): Promise<(CreatorLicense & { purchaseId: string })[]> {
  const ids = by.purchaseIds ?? [];
  if (!by.licenseId && ids.length === 0) return [];
  const where = by.licenseId ? "k.id = ?" : `k.purchase_id in (${ids.map(() => "?").join(",")})`;
  const { results } = await d1
    .prepare(
      `${KEY_SQL.replace("select k.id,", "select k.id, k.key, k.purchase_id, k.disabled_reason,")} where k.user_id = ? and ${where}`,
    )
    .bind(userId, ...(by.licenseId ? [by.licenseId] : ids))
    .all<KeyRow & { key: string; purchase_id: string; disabled_reason: string | null }>();
  return results.map((r) => ({
    id: r.id,
    key: r.key,
    purchaseId: r.purchase_id,
    status: licenseStatus({ disabledAt: r.disabled_at }, r.status),
    activations: r.activations,
    limit: r.limit,
    disabledByCreator: r.disabled_at !== null,
    disabledReason: r.disabled_reason,
  }));
}

/** The sales table's rows with each sale's key (null when its item issues none). */
export async function withLicenses<S extends { id: string }>(
  d1: D1Database,
  userId: string,
  sales: S[],
): Promise<(S & { license: CreatorLicense | null })[]> {
  const keys = await creatorLicenses(d1, userId, { purchaseIds: sales.map((s) => s.id) });
  const byPurchase = new Map(keys.map(({ purchaseId, ...k }) => [purchaseId, k]));
  return sales.map((s) => ({ ...s, license: byPurchase.get(s.id) ?? null }));
}
