// The buyer's library: its one-time sign-in links, stored by the token's hash only (docs/library.md).
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";

export const libraryTokens = sqliteTable(
  "library_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    /** Lower-cased, as typed: the library it opens is that address's purchases. */
    email: text("email").notNull(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
    usedAt: integer("used_at", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
  },
  // The per-mailbox limit counts an address's recent links.
  (t) => [index("library_tokens_email_created").on(t.email, t.createdAt)],
);
