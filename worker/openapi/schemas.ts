// The answers of the API as zod schemas: what the OpenAPI document shows for each route's success
// answer (worker/openapi/describe.ts `doc`) and what the worker tests check every answer against
// (worker/test/openapi-check.ts). Each is tied to the TypeScript type the route returns with
// `satisfies z.ZodType<T>`: a field the type gains and the schema lacks fails `tsc -b`; a field an
// answer carries that the schema does not name fails the tests.
import { z } from "zod";
import type { Availability, CreatorContent, PublicContent, UploadState } from "../../shared/content";
import type { ApiKeyEvent, ApiKeySummary, CreatedApiKey, DeveloperOverview } from "../../shared/developer";
import type { CreatorBump, PublicBump } from "../../shared/bumps";
import type { AbTest, AbVariantFigures } from "../../shared/ab-tests";
import type { DiscountCode, DiscountQuote } from "../../shared/discounts";
import type { AcceptResult, Funnel, FunnelStep, OfferState, OrderSummary, UpsellOffer } from "../../shared/funnels";
import type { CreatorLicense, LicenseVerification } from "../../shared/licenses";
import type {
  AlreadyOwned,
  ContentAccess,
  DownloadLink,
  PaymentsConfig,
  PurchaseVerification,
} from "../../shared/payments";
import type { CreatorProfile, PublicCreator } from "../../shared/profile";
import type { AuthProviders, CurrentUser } from "../../shared/schemas";
import type {
  AnalyticsStats,
  EarningsStats,
  MoneyState,
  NextPayout,
  PayoutHistoryItem,
  RefundRequestResult,
  Sale,
  TimelineEvent,
  TimelineItem,
  TimelinePage,
  WithdrawStatus,
} from "../../shared/types";
import type { WebhookAttempt, WebhookDelivery, WebhookDeliveryPage, WebhookEndpoint } from "../../shared/webhooks";
import { PAYOUT_DEFAULTS } from "../../shared/constants";
import { API_KEY_SCOPES } from "../../shared/developer";
import { STEP_TYPES } from "../../shared/funnels";
import { WEBHOOK_EVENT_TYPES } from "../../shared/webhooks";

const dollars = z.number().meta({ description: "US dollars, two decimals", example: 12.5 });
const isoTime = z.string().meta({ description: "ISO 8601 time", example: "2026-11-23T10:00:00.000Z" });
const id = z.string().meta({ example: "k3JxQ2pL9vT0" });

// ---- account ----

export const currentUserSchema = z.object({
  id,
  email: z.string(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  plan: z.enum(["free", "pro"]),
  isAdmin: z.boolean(),
  payoutEnabled: z.boolean(),
  payoutMethod: z.string().nullable(),
  payoutEmail: z.string().nullable(),
  payoutDestination: z.enum(["bank", "manual"]).nullable(),
  payoutDefault: z.enum(PAYOUT_DEFAULTS),
  bankReady: z.boolean(),
}) satisfies z.ZodType<CurrentUser>;

export const authProvidersSchema = z.object({
  email: z.literal(true),
  google: z.boolean(),
  github: z.boolean(),
  devOutbox: z.boolean(),
}) satisfies z.ZodType<AuthProviders>;
export const sentSchema = z.object({ sent: z.literal(true) });
export const successSchema = z.object({ success: z.literal(true) });

// ---- items ----

export const publicCreatorSchema = z.object({
  name: z.string().nullable(),
  avatarUrl: z.string().nullable(),
  bio: z.string().nullable(),
  supportEmail: z.string().nullable(),
}) satisfies z.ZodType<PublicCreator>;

const accessType = z.enum(["download", "view", "stream", "link"]);
export const publicBumpSchema = z
  .object({ id, title: z.string(), price: dollars })
  .nullable() satisfies z.ZodType<PublicBump>;
export const creatorBumpSchema = z
  .object({ contentId: id, price: dollars })
  .nullable() satisfies z.ZodType<CreatorBump>;
const publicContentFields = {
  id,
  title: z.string(),
  description: z.string(),
  price: dollars,
  pricingModel: z.enum(["fixed", "pay_what_you_want"]),
  minimumPrice: dollars.nullable(),
  category: z.string(),
  accessType,
  fileName: z.string().nullable(),
  fileSize: z.number().int().nullable(),
  previewImage: z.string().nullable(),
  createdAt: isoTime,
};

export const publicContentSchema = z.object({
  ...publicContentFields,
  user: z.object({ firstName: z.string().nullable() }),
  creator: publicCreatorSchema,
  availability: z.enum(["on_sale", "unpublished", "upsell_only"]) satisfies z.ZodType<Availability>,
  bump: publicBumpSchema,
}) satisfies z.ZodType<PublicContent>;

export const creatorContentSchema = z.object({
  ...publicContentFields,
  upsellOnly: z.boolean(),
  published: z.boolean(),
  linkUrl: z.string().nullable(),
  textContent: z.string().nullable(),
  unlockCount: z.number().int(),
  totalEarnings: dollars,
  issueLicenseKeys: z.boolean(),
  activationLimit: z.number().int().nullable(),
  checkoutReminders: z.boolean(),
  bump: creatorBumpSchema,
}) satisfies z.ZodType<CreatorContent>;

export const uploadStateSchema = z.object({
  id,
  fileName: z.string(),
  size: z.number().int(),
  partSize: z.number().int(),
  partCount: z.number().int(),
  status: z.enum(["uploading", "completing", "completed", "aborted", "removed"]),
  uploadedParts: z.array(z.number().int()),
}) satisfies z.ZodType<UploadState>;
export const uploadedPartSchema = z.object({ partNumber: z.number().int(), size: z.number().int() });

// ---- checkout and access ----

export const paymentsConfigSchema = z.object({
  publishableKey: z.string(),
  stripeJsUrl: z.string().nullable(),
}) satisfies z.ZodType<PaymentsConfig>;
export const checkoutStartedSchema = z.object({
  clientSecret: z.string().meta({ description: "The PaymentIntent's client secret, for Stripe.js's Payment Element" }),
  amount: dollars,
  discount: z
    .object({ code: z.string(), amountOff: dollars })
    .optional()
    .meta({ description: "The discount code applied, and what it took off" }),
  bump: z
    .object({ title: z.string(), amount: dollars })
    .optional()
    .meta({ description: "The order bump ticked: its item's title and price (in `amount`)" }),
  buyerEmail: z
    .string()
    .optional()
    .meta({ description: "A reminder's checkout (recoverToken): the address it belongs to, which it keeps" }),
  notice: z
    .string()
    .optional()
    .meta({ description: "A reminder's checkout whose code no longer applies: why it is at the full price" }),
});
export const alreadyOwnedSchema = z.object({
  alreadyOwned: z.literal(true),
  accessUrl: z.string(),
}) satisfies z.ZodType<AlreadyOwned>;
export const purchaseProgressSchema = z.object({ status: z.string().meta({ example: "paid" }), unlocked: z.boolean() });

export const purchaseVerificationSchema = z.object({
  content: z.object({
    id,
    title: z.string(),
    description: z.string(),
    price: dollars,
    previewImage: z.string().nullable(),
    accessType,
    fileUrl: z.string().nullable(),
    fileName: z.string().nullable(),
    fileType: z.string().nullable(),
    linkUrl: z.string().nullable(),
    textContent: z.string().nullable(),
    creator: publicCreatorSchema,
  }),
  purchase: z.object({ id, amount: dollars, buyerEmail: z.string().nullable(), licenseKey: z.string().nullable() }),
  accessUrl: z.string(),
  addOns: z
    .array(z.object({ title: z.string(), amount: dollars, accessUrl: z.string() }))
    .meta({ description: "The order bump bought in the same payment, each with its own access link" }),
}) satisfies z.ZodType<PurchaseVerification>;

export const contentAccessSchema = z.union([
  z.object({ owned: z.literal(true), verification: purchaseVerificationSchema }),
  z.object({
    owned: z.literal(false),
    status: z.enum(["none", "pending", "processing", "refunded", "disputed", "failed"]),
  }),
]) satisfies z.ZodType<ContentAccess>;

export const downloadLinkSchema = z.object({ url: z.string(), expiresAt: isoTime }) satisfies z.ZodType<DownloadLink>;

// ---- funnels and upsells ----

const funnelStatus = z.enum(["test", "live"]);
export const funnelSchema = z.object({
  id,
  name: z.string(),
  isActive: z.boolean(),
  testMode: z.boolean(),
  status: funnelStatus,
  createdAt: isoTime,
  contentIds: z.array(z.string()),
}) satisfies z.ZodType<Funnel>;
export const funnelModeSchema = funnelSchema.pick({
  id: true,
  name: true,
  isActive: true,
  testMode: true,
  status: true,
});
export const funnelProductsSchema = z.object({ funnelId: z.string(), contentIds: z.array(z.string()) });
export const funnelProductRemovedSchema = z.object({ funnelId: z.string(), contentId: z.string() });

const stepType = z.enum(STEP_TYPES);
export const funnelStepSchema = z.object({
  id,
  title: z.string(),
  description: z.string(),
  offerPriceId: z.string(),
  price: dollars.nullable(),
  maximumPrice: dollars.nullable(),
  ctaText: z.string(),
  stepType,
  stepOrder: z.number().int(),
  contentId: z.string().nullable(),
  figures: z.object({
    shown: z.number().int(),
    accepted: z.number().int(),
    declined: z.number().int(),
    revenue: dollars,
    net: dollars,
  }),
}) satisfies z.ZodType<FunnelStep>;
export const deletedSchema = z.object({ deleted: z.literal(true) });
export const upsellProductSchema = z.object({ priceId: z.string(), productId: z.string() });

export const upsellOfferSchema = z.object({
  stepId: z.string(),
  stepType,
  title: z.string(),
  description: z.string(),
  ctaText: z.string(),
  price: dollars,
  pricingModel: z.enum(["fixed", "pay_what_you_want"]),
  minimumPrice: dollars.nullable(),
  maximumPrice: dollars.nullable(),
  previewImage: z.string().nullable(),
  accessType,
  card: z.object({ brand: z.string(), last4: z.string() }).nullable(),
}) satisfies z.ZodType<UpsellOffer>;

export const orderSummarySchema = z.object({
  first: z.object({ title: z.string(), amount: dollars, accessUrl: z.string() }),
  bumps: z.array(z.object({ purchaseId: z.string(), title: z.string(), amount: dollars, accessUrl: z.string() })),
  paid: dollars,
  added: z.array(z.object({ purchaseId: z.string(), title: z.string(), amount: dollars })),
  total: dollars,
}) satisfies z.ZodType<OrderSummary>;

export const offerStateSchema = z.object({
  purchaseId: z.string(),
  contentId: z.string(),
  offer: upsellOfferSchema.nullable(),
  order: orderSummarySchema,
}) satisfies z.ZodType<OfferState>;

export const acceptResultSchema = z.union([
  z.object({
    status: z.literal("paid"),
    purchaseId: z.string(),
    next: upsellOfferSchema.nullable(),
    order: orderSummarySchema,
  }),
  z.object({
    status: z.literal("requires_action"),
    purchaseId: z.string(),
    clientSecret: z.string(),
    paymentMethod: z.string().nullable(),
  }),
  z.object({ status: z.literal("declined"), purchaseId: z.string(), message: z.string() }),
  z.object({ status: z.literal("processing"), purchaseId: z.string() }),
]) satisfies z.ZodType<AcceptResult>;
export const declineResultSchema = z.object({ next: upsellOfferSchema.nullable() });
export const orderSchema = z.object({ items: z.array(purchaseVerificationSchema), order: orderSummarySchema });

// ---- sales, earnings, payouts ----

export const earningsStatsSchema = z.object({
  availableBalance: dollars,
  totalEarnings: dollars,
  pendingPayouts: dollars,
  contentCount: z.number().int(),
  totalUnlocks: z.number().int(),
  onHold: dollars,
  reserved: dollars,
  paidOut: dollars,
  carriedNegative: dollars,
  nextReleaseAt: isoTime.nullable(),
}) satisfies z.ZodType<EarningsStats>;

const licenseStatus = z.enum(["valid", "refunded", "disabled"]);
export const creatorLicenseSchema = z.object({
  id,
  key: z.string().meta({ example: "AW-7K2QX-M9PD4-R3TVW-8HJNB" }),
  status: licenseStatus,
  activations: z.number().int(),
  limit: z.number().int().nullable(),
  disabledByCreator: z.boolean(),
  disabledReason: z.string().nullable(),
}) satisfies z.ZodType<CreatorLicense>;

export const saleSchema = z.object({
  id,
  buyerEmail: z.string().nullable(),
  productName: z.string(),
  amount: dollars,
  createdAt: isoTime.nullable(),
  status: z.string().meta({ example: "paid" }),
  refundedAmount: dollars,
  refundPending: z.boolean(),
  refundFailed: z.boolean(),
  refundable: dollars,
  discountCode: z.string().nullable(),
  orderBump: z.boolean().meta({ description: "Bought as another item's order bump, in the same payment" }),
  license: creatorLicenseSchema.nullable().optional(),
}) satisfies z.ZodType<Sale>;

export const refundRequestSchema = z.object({
  id: z.string(),
  amount: dollars,
  status: z.enum(["requested", "pending", "requires_action", "succeeded", "failed", "canceled"]),
  sale: saleSchema,
}) satisfies z.ZodType<RefundRequestResult>;

const payoutStatus = z.enum(["pending", "processing", "paid", "failed"]);
const moneyState = z.union([
  z.object({ kind: z.literal("on_hold"), until: isoTime }),
  z.object({ kind: z.literal("available") }),
  z.object({ kind: z.literal("in_payout"), payoutId: z.string(), month: z.string() }),
  z.object({ kind: z.literal("in_withdrawal"), payoutId: z.string() }),
  z.object({ kind: z.literal("paid"), payoutId: z.string(), paidAt: isoTime }),
  z.object({ kind: z.literal("reversed"), reason: z.enum(["refund", "dispute"]) }),
]) satisfies z.ZodType<MoneyState>;
const timelineItem = z.object({
  purchaseId: z.string(),
  productName: z.string(),
  amount: dollars,
  creatorShare: dollars,
  createdAt: isoTime.nullable(),
  state: moneyState,
  feeAdjustment: z.object({ amount: dollars, reason: z.string() }).nullable(),
  refund: z.object({ amount: dollars, at: isoTime, afterPayout: z.boolean() }).nullable(),
}) satisfies z.ZodType<TimelineItem>;
const timelineEvent = z.union([
  z.object({
    kind: z.literal("payout"),
    id: z.string(),
    payoutKind: z.enum(["monthly", "withdrawal"]),
    month: z.string(),
    amount: dollars,
    status: payoutStatus,
    at: isoTime,
    paidAt: isoTime.nullable(),
    notes: z.string().nullable(),
  }),
  z.object({
    kind: z.literal("skip"),
    id: z.string(),
    month: z.string(),
    reason: z.enum(["below_minimum", "not_set_up", "held"]),
    amount: dollars,
    at: isoTime,
  }),
]) satisfies z.ZodType<TimelineEvent>;
export const timelinePageSchema = z.object({
  items: z.array(timelineItem),
  events: z.array(timelineEvent),
  nextCursor: z.string().nullable(),
}) satisfies z.ZodType<TimelinePage>;

export const nextPayoutSchema = z.object({
  date: isoTime,
  amount: dollars,
  reason: z.enum(["not_set_up", "bank_restricted", "below_minimum", "on_hold"]).nullable(),
}) satisfies z.ZodType<NextPayout>;

export const payoutHistoryItemSchema = z.object({
  id,
  kind: z.enum(["monthly", "withdrawal"]),
  amount: dollars,
  payoutMethod: z.string(),
  payoutEmail: z.string().nullable(),
  notes: z.string().nullable(),
  createdAt: isoTime,
  status: payoutStatus,
  paidAt: isoTime.nullable(),
}) satisfies z.ZodType<PayoutHistoryItem>;

export const withdrawStatusSchema = z.object({
  available: dollars,
  blockedBy: z.enum(["no_bank", "bank_restricted", "held", "below_minimum", "open"]).nullable(),
  latest: payoutHistoryItemSchema.nullable(),
}) satisfies z.ZodType<WithdrawStatus>;

export const connectStatusSchema = z.object({
  connected: z.boolean(),
  details_submitted: z.boolean(),
  payouts_enabled: z.boolean(),
});
export const urlSchema = z.object({ url: z.string() });

// ---- analytics ----

const counts = {
  views: z.number().int(),
  checkouts: z.number().int(),
  sales: z.number().int(),
  revenue: dollars,
  offers: z.number().int(),
  upsells: z.number().int(),
};
export const analyticsStatsSchema = z.object({
  days: z.number().int(),
  from: z.string(),
  totals: z.object({ ...counts, conversion: z.number() }),
  byDay: z.array(z.object({ date: z.string(), ...counts })),
  items: z.array(
    z.object({
      contentId: z.string(),
      title: z.string(),
      ...counts,
      conversion: z.number(),
      bumpOffered: z.number().int(),
      bumpTaken: z.number().int(),
      bumpTakeRate: z.number(),
    }),
  ),
  codes: z.array(z.object({ code: z.string(), sales: z.number().int(), revenue: dollars, discountGiven: dollars })),
  recovered: z.object({ sales: z.number().int(), revenue: dollars }),
}) satisfies z.ZodType<AnalyticsStats>;

// ---- profile, subscription ----

export const creatorProfileSchema = z.object({
  displayName: z.string().nullable(),
  bio: z.string().nullable(),
  supportEmail: z.string().nullable(),
  avatarUrl: z.string().nullable(),
  accountName: z.string().nullable(),
  emailOnSale: z.boolean(),
}) satisfies z.ZodType<CreatorProfile>;

export const subscriptionStateSchema = z.object({
  plan: z.enum(["free", "pro"]),
  status: z.string().nullable(),
  currentPeriodEnd: isoTime.nullable(),
  cancelAtPeriodEnd: z.boolean(),
});
export const subscriptionStartedSchema = z.object({ clientSecret: z.string(), subscriptionId: z.string() });

// ---- developers ----

const scope = z.enum(API_KEY_SCOPES);
export const apiKeySummarySchema = z.object({
  id,
  name: z.string(),
  prefix: z.string().meta({ example: "aw_live_3kQ9" }),
  scopes: z.array(scope),
  createdAt: isoTime,
  lastUsedAt: isoTime.nullable(),
  revokedAt: isoTime.nullable(),
}) satisfies z.ZodType<ApiKeySummary>;
export const createdApiKeySchema = apiKeySummarySchema.extend({
  key: z.string().meta({ description: "The secret: shown in this answer only" }),
}) satisfies z.ZodType<CreatedApiKey>;
const apiKeyEvent = z.object({
  id,
  keyId: z.string(),
  keyName: z.string(),
  action: z.enum(["created", "revoked", "used", "used_denied"]),
  detail: z.string().nullable(),
  ip: z.string().nullable(),
  at: isoTime,
}) satisfies z.ZodType<ApiKeyEvent>;
export const developerOverviewSchema = z.object({
  keys: z.array(apiKeySummarySchema),
  events: z.array(apiKeyEvent),
}) satisfies z.ZodType<DeveloperOverview>;

const eventType = z.enum(WEBHOOK_EVENT_TYPES);
export const webhookEndpointSchema = z.object({
  id,
  url: z.string(),
  description: z.string(),
  events: z.array(eventType),
  status: z.enum(["active", "disabled"]),
  disabledReason: z.string().nullable(),
  failingSince: isoTime.nullable(),
  createdAt: isoTime,
}) satisfies z.ZodType<WebhookEndpoint>;
export const webhookEndpointListSchema = z.object({ endpoints: z.array(webhookEndpointSchema) });
export const webhookSecretSchema = z.object({
  secret: z.string().meta({ example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }),
});
const attempt = z.object({
  id,
  status: z.number().int().nullable(),
  error: z.string().nullable(),
  responseExcerpt: z.string().nullable(),
  durationMs: z.number(),
  at: isoTime,
}) satisfies z.ZodType<WebhookAttempt>;
export const webhookDeliverySchema = z.object({
  id: z.string().meta({ description: "The Standard Webhooks `webhook-id`, the same on every retry" }),
  type: z.string(),
  status: z.enum(["pending", "delivered", "failed", "disabled"]),
  attempts: z.number().int(),
  nextAttemptAt: isoTime.nullable(),
  lastStatus: z.number().int().nullable(),
  lastResponseExcerpt: z.string().nullable(),
  lastAttemptAt: isoTime.nullable(),
  createdAt: isoTime,
  payload: z.unknown(),
  log: z.array(attempt),
}) satisfies z.ZodType<WebhookDelivery>;
export const webhookDeliveryPageSchema = z.object({
  deliveries: z.array(webhookDeliverySchema),
  nextBefore: z.string().nullable(),
}) satisfies z.ZodType<WebhookDeliveryPage>;
export const resentSchema = z.object({ resent: z.literal(true) });

// ---- license keys ----

export const licenseVerificationSchema = z.object({
  status: z.enum(["valid", "refunded", "disabled", "limit_reached", "not_found"]),
  item: z.object({ id: z.string(), title: z.string() }).nullable(),
  activations: z.number().int(),
  limit: z.number().int().nullable(),
}) satisfies z.ZodType<LicenseVerification>;
/** The creator's disable / enable: the key, and the sale it belongs to. */
export const licenseActionSchema = creatorLicenseSchema.extend({ purchaseId: z.string() });
export const licenseNotFoundSchema = licenseVerificationSchema.extend({ message: z.string() });

export const createdIdSchema = z.object({ id });

// ---- discount codes ----

export const discountCodeSchema = z.object({
  id,
  code: z.string().meta({ example: "SPRING" }),
  kind: z.enum(["percent", "fixed"]),
  percentOff: z.number().int().nullable(),
  amountOff: dollars.nullable(),
  label: z.string().meta({ example: "20% off" }),
  contentId: z.string().nullable(),
  contentTitle: z.string().nullable(),
  expiresAt: isoTime.nullable(),
  maxUses: z.number().int().nullable(),
  maxUsesPerBuyer: z.number().int().nullable(),
  status: z.enum(["active", "expired", "used_up", "archived"]),
  uses: z.number().int(),
  held: z.number().int(),
  revenue: dollars,
  discountGiven: dollars,
  createdAt: isoTime,
}) satisfies z.ZodType<DiscountCode>;
export const discountQuoteSchema = z.object({
  code: z.string(),
  label: z.string(),
  listPrice: dollars,
  price: dollars,
  pricingModel: z.enum(["fixed", "pay_what_you_want"]),
  minimumPrice: dollars.nullable(),
}) satisfies z.ZodType<DiscountQuote>;

// ---- A/B tests of funnel offers ----

const abVariant = z.object({
  variant: z.enum(["A", "B"]),
  title: z.string(),
  description: z.string(),
  ctaText: z.string(),
  price: dollars,
  shown: z.number().int(),
  accepted: z.number().int(),
  acceptanceRate: z.number().meta({ description: "accepted / shown, 0 to 1" }),
  revenue: dollars,
  revenuePerBuyer: dollars,
}) satisfies z.ZodType<AbVariantFigures>;
export const abTestSchema = z.object({
  id,
  stepId: z.string(),
  stepTitle: z.string(),
  status: z.enum(["running", "ended"]),
  winner: z.enum(["A", "B"]).nullable(),
  createdAt: isoTime,
  endedAt: isoTime.nullable(),
  variants: z.tuple([abVariant, abVariant]),
  probabilityBBeatsA: z
    .number()
    .nullable()
    .meta({ description: "P(B's acceptance rate beats A's) under Beta(1 + accepted, 1 + declined) posteriors" }),
  readout: z.string().meta({
    example: "Not sure yet: B beats A with 62% probability. Keep the test running until one side reaches 95%.",
  }),
}) satisfies z.ZodType<AbTest>;
