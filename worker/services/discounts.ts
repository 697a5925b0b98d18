// Discount codes (issue 19). A checkout started with a code is charged the price the server computes
// (shared/discounts.ts `discountedCents`), never one the browser sends, and holds one use of the code:
//
//   1. reserveUse: ONE conditional INSERT of a redemption row, whose WHERE counts the code's uses (in
//      total, and by this buyer) inside the same statement. D1 runs each statement alone, so 200
//      concurrent checkouts of a 100-use code insert exactly 100 rows; a refused insert is a 409.
//   2. The PaymentIntent is created for the discounted amount (its metadata names the code); if
//      that fails, the hold is dropped (releaseHold) and nothing else was written.
//   3. The purchase row names the code and what it took off (discount_code_id, discount_cents).
//
// Whether a redemption is a use is derived, never counted: its purchase is paid or disputed, or its
// checkout is younger than DISCOUNT_HOLD_MINUTES (held for a buyer who is paying). A fully refunded
// sale is `refunded`, so it frees its use with no write of its own. Known limit: a checkout paid
// more than DISCOUNT_HOLD_MINUTES after it started still gets its price (the PaymentIntent already
// has it) and then counts, so a limit can be passed by such late payers, never by concurrent ones.
import { DISCOUNT_HOLD_MINUTES, DISCOUNT_MESSAGES, discountedCents, discountLabel, MAX_DISCOUNT_CODES, type DiscountCode, type DiscountFields, type DiscountQuote, type DiscountStatus } from "../../shared/discounts";
import { ApiError, notFound } from "../lib/errors";
import { newId } from "../lib/ids";

type CodeRow = {
  id: string;
  user_id: string;
  code: string;
  kind: "percent" | "fixed";
  percent_off: number | null;
  amount_off_cents: number | null;
  content_id: string | null;
  expires_at: number | null;
  max_uses: number | null;
  max_uses_per_buyer: number | null;
  archived_at: number | null;
  created_at: number;
};

type Item = { id: string; userId: string; pricingModel: string; priceCents: number; minimumPriceCents: number | null };

const rule = (c: CodeRow) => ({ kind: c.kind, percentOff: c.percent_off, amountOffCents: c.amount_off_cents });
const holdCutoff = (now: number) => now - DISCOUNT_HOLD_MINUTES * 60_000;

/** The SQL condition "redemption r is a use now" (?cutoff: the oldest checkout still holding one). */
const IS_USE = `(p.status in ('paid', 'disputed') or ((p.id is null or p.status = 'pending') and r.created_at > ?cutoff))`;

/** The item's floor for a code: its pay-what-you-want minimum, else Stripe's minimum (applied in discountedCents). */
const floorOf = (item: Item) => (item.pricingModel === "pay_what_you_want" ? (item.minimumPriceCents ?? item.priceCents) : 0);

async function codeOf(d1: D1Database, creatorId: string, text: string): Promise<CodeRow | null> {
  return d1.prepare("select * from discount_codes where user_id = ? and code = ?").bind(creatorId, text.trim().toUpperCase()).first<CodeRow>();
}

/** Why `code` cannot be used on `item` now, or null. */
function problemOf(code: CodeRow | null, item: Item, now: number): string | null {
  if (!code || code.archived_at !== null) return DISCOUNT_MESSAGES.unknown;
  if (code.expires_at !== null && code.expires_at < now) return DISCOUNT_MESSAGES.expired;
  if (code.content_id !== null && code.content_id !== item.id) return DISCOUNT_MESSAGES.notForItem;
  return null;
}

/** What the code makes of the item's price, or why it cannot be used (a 400 naming `code`). */
export async function quote(d1: D1Database, item: Item & { title?: string }, text: string, now = Date.now()): Promise<DiscountQuote> {
  const code = await codeOf(d1, item.userId, text);
  const problem = problemOf(code, item, now);
  if (problem) throw new ApiError(400, `code: ${problem}`);
  const list = item.pricingModel === "pay_what_you_want" ? (item.minimumPriceCents ?? item.priceCents) : item.priceCents;
  const pwyw = item.pricingModel === "pay_what_you_want";
  return {
    code: code!.code,
    label: discountLabel(rule(code!)),
    listPrice: (pwyw ? item.priceCents : list) / 100,
    price: discountedCents(pwyw ? item.priceCents : list, rule(code!), floorOf(item)) / 100,
    pricingModel: pwyw ? "pay_what_you_want" : "fixed",
    minimumPrice: pwyw ? (item.minimumPriceCents ?? item.priceCents) / 100 : null,
  };
}

/**
 * Holds one use of the code for the checkout `purchaseId` and returns the price to charge: 400 for a
 * code that does not apply, 409 when its uses (in total, or this buyer's) are taken.
 */
export async function reserveUse(
  d1: D1Database,
  input: { item: Item; text: string; listCents: number; buyer: string; purchaseId: string },
  now = Date.now(),
): Promise<{ codeId: string; code: string; priceCents: number; discountCents: number }> {
  const code = await codeOf(d1, input.item.userId, input.text);
  const problem = problemOf(code, input.item, now);
  if (problem) throw new ApiError(400, `discountCode: ${problem}`);
  const c = code!;
  const priceCents = discountedCents(input.listCents, rule(c), floorOf(input.item));
  const uses = (byBuyer: boolean) =>
    `(select count(*) from discount_redemptions r left join purchases p on p.id = r.purchase_id where r.code_id = ?2 ${byBuyer ? "and r.buyer = ?4" : ""} and ${IS_USE})`;
  const inserted = await d1
    .prepare(
      `insert into discount_redemptions (id, code_id, purchase_id, buyer, created_at)
       select ?1, ?2, ?3, ?4, ?5
       where (?6 is null or ${uses(false)} < ?6) and (?7 is null or ${uses(true)} < ?7)`.replaceAll("?cutoff", "?8"),
    )
    .bind(newId(), c.id, input.purchaseId, input.buyer, now, c.max_uses, c.max_uses_per_buyer, holdCutoff(now))
    .run();
  if (inserted.meta.changes !== 1) {
    // Which limit: the buyer's own, when they alone have reached it.
    const mine = c.max_uses_per_buyer === null ? 0 : ((await d1.prepare(`select ${uses(true).replaceAll("?cutoff", "?8")} as n`).bind(null, c.id, null, input.buyer, null, null, null, holdCutoff(now)).first<{ n: number }>())?.n ?? 0);
    throw new ApiError(409, c.max_uses_per_buyer !== null && mine >= c.max_uses_per_buyer ? DISCOUNT_MESSAGES.usedByBuyer : DISCOUNT_MESSAGES.usedUp);
  }
  return { codeId: c.id, code: c.code, priceCents, discountCents: input.listCents - priceCents };
}

/** Drops the hold of a checkout that never got its PaymentIntent. */
export async function releaseHold(d1: D1Database, purchaseId: string): Promise<void> {
  await d1.prepare("delete from discount_redemptions where purchase_id = ? and not exists (select 1 from purchases where id = ?)").bind(purchaseId, purchaseId).run();
}

// ---- the creator's codes ----

type ListedRow = CodeRow & { content_title: string | null; uses: number; held: number; revenue_cents: number; discount_cents: number };

function toCode(r: ListedRow, now: number): DiscountCode {
  const status: DiscountStatus =
    r.archived_at !== null ? "archived" : r.expires_at !== null && r.expires_at < now ? "expired" : r.max_uses !== null && r.uses + r.held >= r.max_uses ? "used_up" : "active";
  return {
    id: r.id,
    code: r.code,
    kind: r.kind,
    percentOff: r.percent_off,
    amountOff: r.amount_off_cents === null ? null : r.amount_off_cents / 100,
    label: discountLabel(rule(r)),
    contentId: r.content_id,
    contentTitle: r.content_title,
    expiresAt: r.expires_at === null ? null : new Date(r.expires_at).toISOString(),
    maxUses: r.max_uses,
    maxUsesPerBuyer: r.max_uses_per_buyer,
    status,
    uses: r.uses,
    held: r.held,
    revenue: r.revenue_cents / 100,
    discountGiven: r.discount_cents / 100,
    createdAt: new Date(r.created_at).toISOString(),
  };
}

export async function listCodes(d1: D1Database, userId: string, now = Date.now(), onlyId?: string): Promise<DiscountCode[]> {
  const { results } = await d1
    .prepare(
      `select d.*, c.title as content_title,
         (select count(*) from discount_redemptions r join purchases p on p.id = r.purchase_id where r.code_id = d.id and p.status in ('paid', 'disputed')) as uses,
         (select count(*) from discount_redemptions r left join purchases p on p.id = r.purchase_id where r.code_id = d.id and (p.id is null or p.status = 'pending') and r.created_at > ?2) as held,
         (select coalesce(sum(p.amount_cents), 0) from purchases p where p.discount_code_id = d.id and p.status in ('paid', 'disputed')) as revenue_cents,
         (select coalesce(sum(p.discount_cents), 0) from purchases p where p.discount_code_id = d.id and p.status in ('paid', 'disputed')) as discount_cents
       from discount_codes d left join content c on c.id = d.content_id
       where d.user_id = ?1 ${onlyId ? "and d.id = ?3" : ""}
       order by d.archived_at is not null, d.created_at desc`,
    )
    .bind(userId, holdCutoff(now), ...(onlyId ? [onlyId] : []))
    .all<ListedRow>();
  return results.map((r) => toCode(r, now));
}

export async function createCode(d1: D1Database, userId: string, input: DiscountFields, now = Date.now()): Promise<DiscountCode> {
  if (input.contentId) {
    const mine = await d1.prepare("select 1 from content where id = ? and user_id = ? and deleted_at is null").bind(input.contentId, userId).first();
    if (!mine) throw notFound("Content Not Found");
  }
  if (input.expiresAt !== null && input.expiresAt < now) throw new ApiError(400, "expiresOn: Expiry must be today or later");
  const id = newId();
  // At most MAX_DISCOUNT_CODES per creator, counted inside the insert; the name is unique per creator.
  const res = await d1
    .prepare(
      `insert into discount_codes (id, user_id, code, kind, percent_off, amount_off_cents, content_id, expires_at, max_uses, max_uses_per_buyer, created_at)
       select ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11
       where (select count(*) from discount_codes where user_id = ?2) < ?12
       on conflict (user_id, code) do nothing`,
    )
    .bind(id, userId, input.code, input.kind, input.percentOff, input.amountOffCents, input.contentId, input.expiresAt, input.maxUses, input.maxUsesPerBuyer, now, MAX_DISCOUNT_CODES)
    .run();
  if (res.meta.changes !== 1) {
    const taken = await d1.prepare("select 1 from discount_codes where user_id = ? and code = ?").bind(userId, input.code).first();
    throw new ApiError(409, taken ? `code: ${DISCOUNT_MESSAGES.taken}` : DISCOUNT_MESSAGES.tooMany);
  }
  return (await listCodes(d1, userId, now, id))[0];
}

/** Ends a code: it no longer applies; its sales keep it. Archiving twice is a no-op. */
export async function archiveCode(d1: D1Database, userId: string, id: string, now = Date.now()): Promise<DiscountCode> {
  await d1.prepare("update discount_codes set archived_at = ?3 where id = ?1 and user_id = ?2 and archived_at is null").bind(id, userId, now).run();
  const [code] = await listCodes(d1, userId, now, id);
  if (!code) throw notFound("Discount code not found");
  return code;
}
