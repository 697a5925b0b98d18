// What creators sell: items, the multipart uploads of their files to R2, and daily view counts.
// See docs/uploads.md.
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";
import { users } from "./accounts";

// Multipart uploads to R2 in flight. The object key is chosen by the server.
export const uploads = sqliteTable(
  "uploads",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    objectKey: text("object_key").notNull().unique(),
    r2UploadId: text("r2_upload_id"),
    fileName: text("file_name").notNull(),
    contentType: text("content_type").notNull(),
    sizeBytes: integer("size_bytes").notNull(),
    partSize: integer("part_size").notNull(),
    partCount: integer("part_count").notNull(),
    // The state machine is TRANSITIONS in worker/services/uploads.ts.
    status: text("status", { enum: ["uploading", "completing", "completed", "aborted", "removed"] })
      .notNull()
      .default("uploading"),
    createdAt: createdAt(),
    completedAt: integer("completed_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("uploads_user").on(t.userId), index("uploads_status_created").on(t.status, t.createdAt)],
);

export const uploadParts = sqliteTable(
  "upload_parts",
  {
    uploadId: text("upload_id")
      .notNull()
      .references(() => uploads.id, { onDelete: "cascade" }),
    partNumber: integer("part_number").notNull(),
    etag: text("etag").notNull(),
    sizeBytes: integer("size_bytes").notNull(),
  },
  (t) => [primaryKey({ columns: [t.uploadId, t.partNumber] })],
);

export const content = sqliteTable(
  "content",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    priceCents: integer("price_cents").notNull(),
    pricingModel: text("pricing_model", { enum: ["fixed", "pay_what_you_want"] })
      .notNull()
      .default("fixed"),
    minimumPriceCents: integer("minimum_price_cents"),
    currency: text("currency").notNull().default("usd"),
    category: text("category").notNull().default("other"),
    accessType: text("access_type", { enum: ["download", "view", "stream", "link"] })
      .notNull()
      .default("download"),
    // Unique: one stored file belongs to one item, so deleting an item can never take another's file.
    fileKey: text("file_key").unique(),
    fileName: text("file_name"),
    fileSize: integer("file_size"),
    fileContentType: text("file_content_type"),
    previewImageKey: text("preview_image_key"),
    previewImageType: text("preview_image_type"),
    // Read from the image's header at publish time, for og:image:width/height.
    previewImageWidth: integer("preview_image_width"),
    previewImageHeight: integer("preview_image_height"),
    linkUrl: text("link_url"),
    textContent: text("text_content"),
    // Upsell offers are content too, but are sold only through a funnel step.
    isUpsell: integer("is_upsell", { mode: "boolean" }).notNull().default(false),
    // Taken off sale by its creator: the paywall says "no longer for sale" and checkout refuses it;
    // buyers keep access. Null while on sale; republishing clears it.
    unpublishedAt: integer("unpublished_at", { mode: "timestamp_ms" }),
    // Each purchase gets a license key (worker/services/licenses.ts); null limit = unlimited activations.
    issueLicenseKeys: integer("issue_license_keys", { mode: "boolean" }).notNull().default(false),
    // One reminder, an hour later, to a buyer who gave an email at checkout and did not pay.
    checkoutReminders: integer("checkout_reminders", { mode: "boolean" }).notNull().default(true),
    licenseActivationLimit: integer("license_activation_limit"),
    // The order bump: another of the creator's items offered as a checkbox at checkout,
    // at this price; both null when the item has none.
    bumpContentId: text("bump_content_id"),
    bumpPriceCents: integer("bump_price_cents"),
    createdAt: createdAt(),
    // Soft delete: buyers who paid keep access; the item leaves the dashboard and the paywall.
    deletedAt: integer("deleted_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("content_user_created").on(t.userId, t.createdAt)],
);

// Views counted per item per day (UTC): one upsert per view, no row per view.
export const contentViewsDaily = sqliteTable(
  "content_views_daily",
  {
    contentId: text("content_id")
      .notNull()
      .references(() => content.id),
    day: text("day").notNull(),
    views: integer("views").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.contentId, t.day] })],
);
