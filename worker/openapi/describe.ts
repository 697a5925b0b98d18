// How a route documents itself: `doc({...})` is hono-openapi's describeRoute with this API's
// conventions, placed first in the route's chain. Request parameters and bodies need no words here:
// `validate(...)` (worker/lib/validate.ts) records the very zod schema the route checks. What `doc`
// adds is the summary, who may call it, and each answer the route gives with its zod schema — the
// schemas the worker tests check every answer against (worker/test/support/openapi-check.ts).
import { describeRoute, resolver } from "hono-openapi";
import { z, type ZodType } from "zod";

/** Every failing call answers `{ message }` (worker/lib/errors.ts); a few add a field, named where they do. */
const errorSchema = z
  .object({ message: z.string().meta({ example: "title: Title is required" }) })
  .meta({ id: "Error" });

export const TAGS = [
  { name: "Items", description: "What a creator sells: a file, a link or a text behind a paywall." },
  { name: "Uploads", description: "Multipart uploads of files up to 5 GB, for items." },
  {
    name: "Checkout and access",
    description: "A buyer pays by card and opens what they bought. Public: a buyer has no account.",
  },
  { name: "Funnels", description: "Post-purchase offers (upsells and downsells) and their A/B tests." },
  { name: "Upsells", description: "The buyer's side of a funnel: the offer after paying, one click to accept." },
  { name: "Sales and earnings", description: "The creator's sales, refunds, balance and money timeline." },
  { name: "Payouts", description: "Where and when a creator's money is paid out." },
  { name: "Analytics", description: "Views, checkouts and sales by day and by item." },
  { name: "Profile", description: "The creator's public profile shown on their paywalls." },
  { name: "Subscription", description: "ApeWall Pro: $99 a month, 0% platform fee." },
  { name: "Developers", description: "API keys and outgoing webhooks (Standard Webhooks)." },
  {
    name: "Discount codes",
    description: "Percent or fixed codes for one item or all, with limits; the server computes every price.",
  },
  { name: "License keys", description: "License keys issued with purchases, verified by the creator's software." },
  {
    name: "Buyer library",
    description: "A buyer signs in by an emailed link and reads every purchase made with their address.",
  },
  { name: "Account", description: "Sign-in and the signed-in user. Browser flows: cookies, redirects and HTML." },
  { name: "Feedback", description: "Messages to the ApeWall team." },
] as const;
type Tag = (typeof TAGS)[number]["name"];

/**
 * Who may call a route:
 * - public: anyone (a buyer, the creator's software);
 * - buyer: the paying browser (its buyer cookie) or an access link's token;
 * - session: a signed-in browser only (an API key is refused with 403);
 * - creator: a signed-in creator, or an API key with the route's scope (worker/middleware/api-key-scopes.ts);
 * - library: a browser signed in to the buyer's library (its aw_library cookie; docs/library.md).
 */
type Access = "public" | "buyer" | "session" | "creator" | "library";

type Body = ZodType | { schema: ZodType; description: string; example?: unknown };
type Answer = Body | { html: string } | { redirect: string } | { file: string } | { empty: string };

export type RouteDoc = {
  tag: Tag;
  summary: string;
  description?: string;
  access: Access;
  /** The success answer (200 unless `status`). */
  ok: Answer;
  status?: 200 | 201 | 202 | 204 | 302 | 303;
  /** Other answers this route itself gives, with why. Answers every route may give (a bad body, a bad key) are added to all. */
  errors?: Partial<
    Record<
      400 | 401 | 402 | 403 | 404 | 409 | 410 | 411 | 413 | 415 | 416 | 422 | 429 | 502 | 503,
      string | { description: string; schema: ZodType }
    >
  >;
  /** Other success answers (e.g. 200 for a repeat of a 201). */
  also?: Partial<Record<200 | 201 | 202 | 206 | 302 | 303 | 304, { description: string; answer: Answer }>>;
  /** A body the route reads itself rather than through `validate("json", …)`: a form, file bytes. */
  body?: { media: string; description: string; schema?: ZodType };
};

const json = (schema: ZodType, description: string, example?: unknown) => ({
  description,
  content: { "application/json": { schema: resolver(schema), ...(example === undefined ? {} : { example }) } },
});

function answer(a: Answer, fallback: string) {
  if (a instanceof z.ZodType) return json(a, fallback);
  if ("html" in a) return { description: a.html, content: { "text/html": { schema: { type: "string" as const } } } };
  if ("redirect" in a)
    return {
      description: a.redirect,
      headers: { Location: { schema: { type: "string" as const }, description: "Where the browser goes next" } },
    };
  if ("file" in a)
    return {
      description: a.file,
      content: { "application/octet-stream": { schema: { type: "string" as const, format: "binary" } } },
    };
  if ("empty" in a) return { description: a.empty };
  return json(a.schema, a.description, a.example);
}

const ACCESS_NOTE: Record<Access, string> = {
  public: "Public: no sign-in.",
  buyer: "The buyer's browser (its buyer cookie) or an access link's `access` token.",
  session: "A signed-in browser session. API keys are refused (403).",
  creator: "A signed-in creator, or an API key with the scope named in `x-api-key-scope`.",
  library:
    "A browser signed in to the buyer's library (its `aw_library` cookie). Creator sessions and API keys are refused.",
};

/** The route's OpenAPI description, from one object; see RouteDoc. */
export function doc(d: RouteDoc) {
  const responses: Record<string, unknown> = { [String(d.status ?? 200)]: answer(d.ok, "OK") };
  for (const [status, a] of Object.entries(d.also ?? {})) responses[status] = answer(a.answer, a.description);
  for (const [status, e] of Object.entries(d.errors ?? {})) {
    responses[status] = typeof e === "string" ? json(errorSchema, e) : json(e.schema, e.description);
  }
  return describeRoute({
    tags: [d.tag],
    summary: d.summary,
    description: [d.description, ACCESS_NOTE[d.access]].filter(Boolean).join("\n\n"),
    "x-access": d.access,
    responses,
    ...(d.body
      ? {
          requestBody: {
            required: true,
            description: d.body.description,
            content: {
              [d.body.media]: {
                schema: d.body.schema ? resolver(d.body.schema) : { type: "string", format: "binary" },
              },
            },
          },
        }
      : {}),
  } as Parameters<typeof describeRoute>[0]);
}
