// Pieces of Stripe's wire format every resource module uses: ids, times, lists, params, and what
// leaves the stand-in (private "_" fields never do). See docs/payments.md.
import { randomBytes } from "node:crypto";
import { badParam } from "./errors.mjs";

// The API version the pinned stripe package (23.1.0) sends and is typed for.
export const API_VERSION = "2026-10-28.endive";
export const DAY = 24 * 60 * 60;

export const rid = (prefix, n = 24) =>
  `${prefix}_${randomBytes(n).toString("base64url").replace(/[-_]/g, "").slice(0, n)}`;
export const now = () => Math.floor(Date.now() / 1000);

// A handler may answer with a page or a redirect instead of a JSON object (hosted pages).
export const RAW = Symbol("raw");
export const raw = (status, headers, body = "") => ({ [RAW]: { status, headers, body } });
// Private fields (the card number, links between records) start with "_" and never leave the stand-in.
export const publicJson = (value, space) => JSON.stringify(value, (k, v) => (k.startsWith("_") ? undefined : v), space);

export const metadata = (m) =>
  m && typeof m === "object" ? Object.fromEntries(Object.entries(m).filter(([, v]) => v !== "")) : {};
export const int = (v, param) => {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(String(v))) throw badParam(param, `Invalid integer: ${v}`);
  return Number(v);
};
export const expandOf = (p) => (Array.isArray(p.expand) ? p.expand : Object.values(p.expand ?? {}));

export function list(items, p, url) {
  const limit = Math.min(100, Number(p.limit ?? 10));
  return { object: "list", data: items.slice(0, limit), has_more: items.length > limit, url };
}

/** Stripe's list shape with cursor paging (newest first), `limit` up to 100. */
export function page(items, p, url, view = (x) => x) {
  const limit = Math.min(100, Math.max(1, Number(p.limit ?? 10)));
  let start = 0;
  if (p.starting_after) start = items.findIndex((i) => i.id === p.starting_after) + 1;
  const slice = items.slice(start, start + limit);
  return { object: "list", data: slice.map(view), has_more: start + limit < items.length, url };
}
