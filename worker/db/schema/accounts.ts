// Accounts: who signs in (users, OAuth links, one-time sign-in links), a creator's public profile, and
// the feedback they send. See docs/security.md for sign-in.
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";

export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  email: text("email").notNull().unique(),
  firstName: text("first_name"),
  lastName: text("last_name"),
  plan: text("plan", { enum: ["free", "pro"] })
    .notNull()
    .default("free"),
  stripeCustomerId: text("stripe_customer_id"),
  /** Whether the creator's prices include tax: auto (exclusive for US buyers, inclusive elsewhere), or always one way (docs/tax.md). */
  taxBehavior: text("tax_behavior", { enum: ["auto", "inclusive", "exclusive"] })
    .notNull()
    .default("auto"),
  createdAt: createdAt(),
});

// What buyers see of a creator (the paywall, checkout, receipts): a table of its own, not columns on
// users, so the account (sign-in, plan, Stripe customer) and the public face change apart, and a
// creator who never filled it in has no row. `avatar_id` is random per upload: the avatar's URL
// (/api/avatars/{id}) changes with the image, so it can be cached for good.
export const creatorProfiles = sqliteTable("creator_profiles", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  displayName: text("display_name"),
  bio: text("bio"),
  supportEmail: text("support_email"),
  avatarId: text("avatar_id").unique(),
  avatarType: text("avatar_type"),
  // "Email me when I make a sale" in /settings: on unless the creator turns it off.
  emailOnSale: integer("email_on_sale", { mode: "boolean" }).notNull().default(true),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});

export const oauthAccounts = sqliteTable(
  "oauth_accounts",
  {
    provider: text("provider", { enum: ["google", "github"] }).notNull(),
    providerUserId: text("provider_user_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.providerUserId] }), index("oauth_accounts_user").on(t.userId)],
);

// One-time sign-in links. Only the SHA-256 of the token is stored; `used_at` is set by a single
// conditional UPDATE so a link can be redeemed once even under concurrent clicks.
export const loginTokens = sqliteTable("login_tokens", {
  tokenHash: text("token_hash").primaryKey(),
  email: text("email").notNull(),
  returnTo: text("return_to").notNull().default("/"),
  // SHA-256 of the requesting browser's aw_login cookie: that browser signs in on opening the link;
  // any other (a mail scanner, someone else's browser) is first asked to confirm.
  browserHash: text("browser_hash"),
  expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
  usedAt: integer("used_at", { mode: "timestamp_ms" }),
  createdAt: createdAt(),
});

export const feedback = sqliteTable("feedback", {
  id: text("id").primaryKey(),
  userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
  type: text("type", { enum: ["bug", "feature", "improvement", "general"] }).notNull(),
  subject: text("subject").notNull(),
  message: text("message").notNull(),
  email: text("email"),
  priority: text("priority", { enum: ["low", "medium", "high", "urgent"] })
    .notNull()
    .default("medium"),
  createdAt: createdAt(),
});
