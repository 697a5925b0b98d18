// Discount codes: the creator's codes (list, create, archive), the quote, and a checkout's hold on one use.
// The server computes the charged price (shared/discounts.ts `discountedCents`); `reserveUse` is one
// conditional INSERT that counts the code's uses inside the statement, so a limit holds under
// concurrency; a use is derived (a paid or disputed sale, or a live hold), never counted by hand.
// Behaviour and its known limit: docs/checkout-and-codes.md ("Discount codes").
import {
  DISCOUNT_HOLD_MINUTES,
  DISCOUNT_MESSAGES,
  discountedCents,
  discountLabel,
  MAX_DISCOUNT_CODES,
  type DiscountCode,
  type DiscountFields,
  type DiscountQuote,
  type DiscountStatus,
} from "../../shared/discounts";
import { ApiError, notFound } from "../lib/errors";
import { newId } from "../lib/ids";

/** A checkout without an email holds its code's use this long only. */
const DISCOUNT_HOLD_NO_EMAIL_MINUTES = 5;
/** Uses of one code a browser may hold at once (its open checkouts of different items). */
const DISCOUNT_HOLDS_PER_BROWSER = 3;

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

/** Where a count finds its inputs: SQL placeholders (numbered, so one statement binds them once) or columns. */
type Slots = { code: string; buyer: string; browser: string; item: string; cutoff: string; shortCutoff: string };
/** ?2 the code, ?4 the buyer (email or `browser:{hash}`), ?5 the browser's hash, ?12 the item, ?10 and ?11 the hold cutoffs. */
const SLOTS: Slots = { code: "?2", buyer: "?4", browser: "?5", item: "?12", cutoff: "?10", shortCutoff: "?11" };

const paid = (byBuyer: boolean, s: Slots = SLOTS) =>
  `(select count(*) from purchases p where p.discount_code_id = ${s.code} and p.status in ('paid', 'disputed') ${byBuyer ? `and (lower(p.buyer_email) = ${s.buyer} or p.buyer_key_hash = ${s.browser})` : ""})`;
/** Holds; those of the browser's pending checkouts of the item are not counted (they are being started again). */
const held = (who: "all" | "buyer" | "browser", s: Slots = SLOTS) =>
  `(select count(*) from discount_redemptions r left join purchases p on p.id = r.purchase_id
    where r.code_id = ${s.code} ${who === "buyer" ? `and (r.buyer = ${s.buyer} or r.browser = ${s.browser})` : who === "browser" ? `and r.browser = ${s.browser}` : ""}
      and (p.id is null or p.status = 'pending') and r.created_at > ${s.cutoff} and (p.buyer_email is not null or r.created_at > ${s.shortCutoff})
      and coalesce(p.buyer_key_hash = ${s.browser} and p.content_id = ${s.item}, 0) = 0)`;
const USES = `${paid(false)} + ${held("all")}`;
const BUYER_USES = `${paid(true)} + ${held("buyer")}`;

/** The parameters of USES and friends, in their places (1, 3, 6-9 unused here: filled by the caller). */
function countBinds(
  code: string,
  who: { buyer?: string | null; browser?: string | null; contentId?: string | null },
  now: number,
  rest: Partial<Record<1 | 3 | 6 | 7 | 8 | 9, unknown>> = {},
): unknown[] {
  return [
    rest[1] ?? null,
    code,
    rest[3] ?? null,
    who.buyer ?? null,
    who.browser ?? null,
    rest[6] ?? null,
    rest[7] ?? null,
    rest[8] ?? null,
    rest[9] ?? null,
    now - DISCOUNT_HOLD_MINUTES * 60_000,
    now - DISCOUNT_HOLD_NO_EMAIL_MINUTES * 60_000,
    who.contentId ?? null,
  ];
}

/** The item's floor for a code: its pay-what-you-want minimum, else Stripe's minimum (applied in discountedCents). */
const floorOf = (item: Item) =>
  item.pricingModel === "pay_what_you_want" ? (item.minimumPriceCents ?? item.priceCents) : 0;

async function codeOf(
  d1: D1Database,
  creatorId: string,
  ref: { text: string } | { id: string },
): Promise<CodeRow | null> {
  return "id" in ref
    ? d1.prepare("select * from discount_codes where user_id = ? and id = ?").bind(creatorId, ref.id).first<CodeRow>()
    : d1
        .prepare("select * from discount_codes where user_id = ? and code = ?")
        .bind(creatorId, ref.text.trim().toUpperCase())
        .first<CodeRow>();
}

/** Why `code` cannot be used on `item` now, or null. */
function problemOf(code: CodeRow | null, item: Item, now: number): string | null {
  if (!code || code.archived_at !== null) return DISCOUNT_MESSAGES.unknown;
  if (code.expires_at !== null && code.expires_at < now) return DISCOUNT_MESSAGES.expired;
  if (code.content_id !== null && code.content_id !== item.id) return DISCOUNT_MESSAGES.notForItem;
  return null;
}

/**
 * What the code makes of the item's price, or a 400 naming `code`. Anyone may ask, so every code
 * that cannot be used (unknown, another creator's, archived, expired, for another item, used up)
 * answers the same: which codes exist is not told.
 */
export async function quote(
  d1: D1Database,
  item: Item & { title?: string },
  text: string,
  now = Date.now(),
): Promise<DiscountQuote> {
  const code = await codeOf(d1, item.userId, { text });
  const usedUp = async (c: CodeRow) =>
    c.max_uses !== null &&
    ((
      await d1
        .prepare(`select ${USES} as n`)
        .bind(...countBinds(c.id, {}, now))
        .first<{ n: number }>()
    )?.n ?? 0) >= c.max_uses;
  if (problemOf(code, item, now) || (await usedUp(code!)))
    throw new ApiError(400, `code: ${DISCOUNT_MESSAGES.unknown}`);
  const list =
    item.pricingModel === "pay_what_you_want" ? (item.minimumPriceCents ?? item.priceCents) : item.priceCents;
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
 * Holds one use of the code (by its text, or its id for a recovered checkout) for the checkout
 * `purchaseId` of browser `browser`, and returns the price to charge: 400 for a code that does not
 * apply, 409 when its uses (in total, this buyer's, or held by this browser) are taken.
 */
export async function reserveUse(
  d1: D1Database,
  input: {
    item: Item;
    text?: string;
    codeId?: string;
    listCents: number;
    buyer: string;
    browser: string;
    purchaseId: string;
  },
  now = Date.now(),
): Promise<{ codeId: string; code: string; priceCents: number; discountCents: number }> {
  const code = await codeOf(d1, input.item.userId, input.codeId ? { id: input.codeId } : { text: input.text ?? "" });
  const problem = problemOf(code, input.item, now);
  if (problem) throw new ApiError(400, `discountCode: ${problem}`);
  const c = code!;
  const priceCents = discountedCents(input.listCents, rule(c), floorOf(input.item));
  const who = { buyer: input.buyer, browser: input.browser, contentId: input.item.id };
  const inserted = await d1
    .prepare(
      `insert into discount_redemptions (id, code_id, purchase_id, buyer, browser, created_at)
       select ?1, ?2, ?3, ?4, ?5, ?6
       where (?7 is null or ${USES} < ?7) and (?8 is null or ${BUYER_USES} < ?8) and ${held("browser")} < ?9
       on conflict (purchase_id) do update set code_id = excluded.code_id, buyer = excluded.buyer, browser = excluded.browser, created_at = excluded.created_at
         where exists (select 1 from purchases where id = excluded.purchase_id and status = 'pending')`,
    )
    .bind(
      ...countBinds(c.id, who, now, {
        1: newId(),
        3: input.purchaseId,
        6: now,
        7: c.max_uses,
        8: c.max_uses_per_buyer,
        9: DISCOUNT_HOLDS_PER_BROWSER,
      }),
    )
    .run();
  if (inserted.meta.changes !== 1) {
    // Which limit: the buyer's own, when they alone have reached it; then the browser's holds.
    const n = await d1
      .prepare(`select ${BUYER_USES} as mine, ${held("browser")} as held`)
      .bind(...countBinds(c.id, who, now))
      .first<{ mine: number; held: number }>();
    if (c.max_uses_per_buyer !== null && (n?.mine ?? 0) >= c.max_uses_per_buyer)
      throw new ApiError(409, DISCOUNT_MESSAGES.usedByBuyer);
    if ((n?.held ?? 0) >= DISCOUNT_HOLDS_PER_BROWSER) throw new ApiError(409, DISCOUNT_MESSAGES.heldByBrowser);
    throw new ApiError(409, DISCOUNT_MESSAGES.usedUp);
  }
  return { codeId: c.id, code: c.code, priceCents, discountCents: input.listCents - priceCents };
}

/**
 * The statement, for the batch that writes checkout `purchaseId`, that ends the holds of the same
 * browser's earlier pending checkouts of the item: the new checkout carries the code's use over.
 */
export function carryOverHolds(
  d1: D1Database,
  checkout: { purchaseId: string; browser: string; contentId: string },
): D1PreparedStatement {
  return d1
    .prepare(
      `delete from discount_redemptions where purchase_id in
         (select id from purchases where buyer_key_hash = ?1 and content_id = ?2 and status = 'pending' and id != ?3)
       and exists (select 1 from discount_redemptions where purchase_id = ?3)`,
    )
    .bind(checkout.browser, checkout.contentId, checkout.purchaseId);
}

/** Drops the hold of a checkout that never got its PaymentIntent. */
export async function releaseHold(d1: D1Database, purchaseId: string): Promise<void> {
  await d1
    .prepare(
      "delete from discount_redemptions where purchase_id = ? and not exists (select 1 from purchases where id = ?)",
    )
    .bind(purchaseId, purchaseId)
    .run();
}

// ---- the creator's codes ----

type ListedRow = CodeRow & {
  content_title: string | null;
  uses: number;
  held: number;
  revenue_cents: number;
  discount_cents: number;
};

function toCode(r: ListedRow, now: number): DiscountCode {
  const status: DiscountStatus =
    r.archived_at !== null
      ? "archived"
      : r.expires_at !== null && r.expires_at < now
        ? "expired"
        : r.max_uses !== null && r.uses + r.held >= r.max_uses
          ? "used_up"
          : "active";
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

const LISTED: Slots = { code: "d.id", buyer: "null", browser: "null", item: "null", cutoff: "?2", shortCutoff: "?4" };

export async function listCodes(
  d1: D1Database,
  userId: string,
  now = Date.now(),
  onlyId?: string,
): Promise<DiscountCode[]> {
  const { results } = await d1
    .prepare(
      `select d.*, c.title as content_title,
         ${paid(false, LISTED)} as uses,
         ${held("all", LISTED)} as held,
         (select coalesce(sum(p.amount_cents), 0) from purchases p where p.discount_code_id = d.id and p.status in ('paid', 'disputed')) as revenue_cents,
         (select coalesce(sum(p.discount_cents), 0) from purchases p where p.discount_code_id = d.id and p.status in ('paid', 'disputed')) as discount_cents
       from discount_codes d left join content c on c.id = d.content_id
       where d.user_id = ?1 and (?3 is null or d.id = ?3)
       order by d.archived_at is not null, d.created_at desc`,
    )
    .bind(userId, now - DISCOUNT_HOLD_MINUTES * 60_000, onlyId ?? null, now - DISCOUNT_HOLD_NO_EMAIL_MINUTES * 60_000)
    .all<ListedRow>();
  return results.map((r) => toCode(r, now));
}

export async function createCode(
  d1: D1Database,
  userId: string,
  input: DiscountFields,
  now = Date.now(),
): Promise<DiscountCode> {
  if (input.contentId) {
    const mine = await d1
      .prepare("select 1 from content where id = ? and user_id = ? and deleted_at is null")
      .bind(input.contentId, userId)
      .first();
    if (!mine) throw notFound("Content Not Found");
  }
  if (input.expiresAt !== null && input.expiresAt < now)
    throw new ApiError(400, "expiresOn: Expiry must be today or later");
  const id = newId();
  // At most MAX_DISCOUNT_CODES per creator, counted inside the insert; the name is unique per creator.
  const res = await d1
    .prepare(
      `insert into discount_codes (id, user_id, code, kind, percent_off, amount_off_cents, content_id, expires_at, max_uses, max_uses_per_buyer, created_at)
       select ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11
       where (select count(*) from discount_codes where user_id = ?2) < ?12
       on conflict (user_id, code) do nothing`,
    )
    .bind(
      id,
      userId,
      input.code,
      input.kind,
      input.percentOff,
      input.amountOffCents,
      input.contentId,
      input.expiresAt,
      input.maxUses,
      input.maxUsesPerBuyer,
      now,
      MAX_DISCOUNT_CODES,
    )
    .run();
  if (res.meta.changes !== 1) {
    const taken = await d1
      .prepare("select 1 from discount_codes where user_id = ? and code = ?")
      .bind(userId, input.code)
      .first();
    throw new ApiError(409, taken ? `code: ${DISCOUNT_MESSAGES.taken}` : DISCOUNT_MESSAGES.tooMany);
  }
  return (await listCodes(d1, userId, now, id))[0];
}

/** Ends a code: it no longer applies; its sales keep it. Archiving twice is a no-op. */
export async function archiveCode(d1: D1Database, userId: string, id: string, now = Date.now()): Promise<DiscountCode> {
  await d1
    .prepare("update discount_codes set archived_at = ?3 where id = ?1 and user_id = ?2 and archived_at is null")
    .bind(id, userId, now)
    .run();
  const [code] = await listCodes(d1, userId, now, id);
  if (!code) throw notFound("Discount code not found");
  return code;
}
