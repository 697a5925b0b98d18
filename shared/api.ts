// Every JSON answer of the API by route, "METHOD /api/path" as the Worker declares it, and the zod
// schema it answers with (its success status; the schemas live in shared/<resource>.ts). The SPA's
// client (web/lib/api.ts) takes its answer types from here, so a call's path decides its type;
// worker/test/api-and-webhooks/openapi.test.ts checks the OpenAPI document names the very same schema for each route.
import type { z } from "zod";
import { abTestListSchema, abTestSchema } from "./ab-tests";
import { analyticsStatsSchema } from "./analytics";
import { createdIdSchema, deletedSchema, resentSchema, sentSchema, successSchema, urlSchema } from "./answers";
import { authProvidersSchema, currentUserSchema, sessionProbeSchema } from "./auth";
import { bumpAnswerSchema } from "./bumps";
import { checkoutConfirmedSchema } from "./card-testing";
import {
  checkoutRemindersSchema,
  creatorContentListSchema,
  creatorContentSchema,
  publicContentSchema,
} from "./content";
import { apiKeySummarySchema, createdApiKeySchema, developerOverviewSchema } from "./developer";
import { discountCodeListSchema, discountCodeSchema, discountQuoteSchema } from "./discounts";
import { earningsStatsSchema, refundRequestSchema, saleListSchema, timelinePageSchema } from "./earnings";
import { refundQuoteSchema } from "./refunds";
import { mailEventAnswerSchema, resendReceiptAnswerSchema } from "./mail";
import {
  acceptResultSchema,
  declineResultSchema,
  funnelListSchema,
  funnelModeSchema,
  funnelPreviewSchema,
  funnelProductRemovedSchema,
  funnelProductsResultSchema,
  funnelSchema,
  funnelStepListSchema,
  funnelStepSchema,
  offerStateSchema,
  orderSchema,
  upsellProductSchema,
} from "./funnels";
import { humanCheckConfigSchema } from "./human-check-config";
import {
  libraryAccessSchema,
  libraryLinkSentSchema,
  libraryListSchema,
  libraryReceiptSchema,
  librarySessionSchema,
  librarySignedOutSchema,
} from "./library";
import { invoiceSchema } from "./invoices";
import { licenseActionSchema, licenseVerificationSchema } from "./licenses";
import {
  checkoutAnswerSchema,
  checkoutEmailSavedSchema,
  checkoutTermsAnswerSchema,
  contentAccessSchema,
  downloadLinkSchema,
  paymentsConfigSchema,
  purchaseProgressSchema,
  purchaseVerificationSchema,
  revokedPurchaseSchema,
  recoverAccessAnswerSchema,
} from "./payments";
import {
  connectStatusSchema,
  nextPayoutSchema,
  payoutHistoryItemSchema,
  payoutHistorySchema,
  withdrawStatusSchema,
} from "./payouts";
import { creatorProfileSchema } from "./profile";
import { taxPreviewSchema, taxSettingsSchema } from "./tax-settings";
import { purchaseEmailChangedSchema } from "./purchase-email";
import { subscriptionStartedSchema, subscriptionStateSchema } from "./subscription";
import { uploadStateSchema, uploadedPartSchema } from "./uploads";
import {
  webhookDeliveryPageSchema,
  webhookDeliverySchema,
  webhookEndpointListSchema,
  webhookEndpointSchema,
  webhookSecretSchema,
} from "./webhooks";

export const API_ANSWERS = {
  "GET /api/analytics/stats": analyticsStatsSchema,
  "GET /api/auth/user": currentUserSchema,
  "GET /api/auth/me": sessionProbeSchema,
  "GET /api/auth/providers": authProvidersSchema,
  "POST /api/auth/email": sentSchema,
  "PUT /api/content/:id/bump": bumpAnswerSchema,
  "DELETE /api/content/:id/bump": bumpAnswerSchema,
  "GET /api/connect/account-status": connectStatusSchema,
  "POST /api/stripe/connect/dashboard-link": urlSchema,
  "POST /api/content": creatorContentSchema,
  "GET /api/content": creatorContentListSchema,
  "PATCH /api/content/:id": creatorContentSchema,
  "PUT /api/content/:id/published": creatorContentSchema,
  "GET /api/content/:id": publicContentSchema,
  "GET /api/earnings/stats": earningsStatsSchema,
  "GET /api/earnings/timeline": timelinePageSchema,
  "GET /api/creator/sales": saleListSchema,
  "GET /api/payout/next": nextPayoutSchema,
  "GET /api/payout/history": payoutHistorySchema,
  "POST /api/payout/setup": successSchema,
  "POST /api/payout/default": successSchema,
  "GET /api/payout/withdraw": withdrawStatusSchema,
  "POST /api/payout/withdraw": payoutHistoryItemSchema,
  "POST /api/sales/:purchaseId/refund": refundRequestSchema,
  "POST /api/sales/:purchaseId/resend-receipt": resendReceiptAnswerSchema,
  "POST /api/webhooks/mail": mailEventAnswerSchema,
  "GET /api/sales/:purchaseId/refund-quote": refundQuoteSchema,
  "GET /api/developer/keys": developerOverviewSchema,
  "POST /api/developer/keys": createdApiKeySchema,
  "DELETE /api/developer/keys/:id": apiKeySummarySchema,
  "GET /api/discounts": discountCodeListSchema,
  "POST /api/discounts": discountCodeSchema,
  "POST /api/discounts/:id/archive": discountCodeSchema,
  "GET /api/content/:id/discount": discountQuoteSchema,
  "POST /api/feedback": createdIdSchema,
  "GET /api/human-check": humanCheckConfigSchema,
  "GET /api/funnels": funnelListSchema,
  "POST /api/funnels": funnelSchema,
  "POST /api/funnels/for-item": funnelSchema,
  "PATCH /api/funnels/:id": funnelModeSchema,
  "POST /api/funnels/:id/products": funnelProductsResultSchema,
  "DELETE /api/funnels/:id/products/:contentId": funnelProductRemovedSchema,
  "GET /api/funnels/:id/steps": funnelStepListSchema,
  "POST /api/funnels/:id/steps": funnelStepSchema,
  "PATCH /api/funnels/:id/steps/:stepId": funnelStepSchema,
  "DELETE /api/funnels/:id/steps/:stepId": deletedSchema,
  "GET /api/funnels/:id/ab-tests": abTestListSchema,
  "POST /api/funnels/:id/ab-tests": abTestSchema,
  "POST /api/funnels/:id/ab-tests/:testId/end": abTestSchema,
  "GET /api/funnels/:id/preview": funnelPreviewSchema,
  "POST /api/stripe/create-upsell-product": upsellProductSchema,
  "POST /api/licenses/verify": licenseVerificationSchema,
  "POST /api/licenses/deactivate": licenseVerificationSchema,
  "POST /api/licenses/:id/disable": licenseActionSchema,
  "POST /api/licenses/:id/enable": licenseActionSchema,
  "GET /api/payments/config": paymentsConfigSchema,
  "POST /api/create-payment-intent": checkoutAnswerSchema,
  "POST /api/checkout/email": checkoutEmailSavedSchema,
  "POST /api/checkout/terms": checkoutTermsAnswerSchema,
  "POST /api/checkout/confirm": checkoutConfirmedSchema,
  "POST /api/payments/:paymentIntent/complete": purchaseProgressSchema,
  "GET /api/content/:id/access": contentAccessSchema,
  "POST /api/content/:id/process-recent-purchase": purchaseProgressSchema,
  "GET /api/purchase/verify": purchaseVerificationSchema,
  "GET /api/purchase/revoked": revokedPurchaseSchema,
  "POST /api/purchase/send-access-email": sentSchema,
  "POST /api/purchase/recover": recoverAccessAnswerSchema,
  "POST /api/purchases/:id/email": purchaseEmailChangedSchema,
  "GET /api/purchases/:id/invoice": invoiceSchema,
  "POST /api/content/:id/download": downloadLinkSchema,
  "POST /api/library/link": libraryLinkSentSchema,
  "POST /api/library/session": librarySessionSchema,
  "GET /api/library/session": librarySessionSchema,
  "POST /api/library/sign-out": librarySignedOutSchema,
  "GET /api/library/purchases": libraryListSchema,
  "GET /api/library/purchases/:id": libraryAccessSchema,
  "GET /api/library/purchases/:id/receipt": libraryReceiptSchema,
  "GET /api/profile": creatorProfileSchema,
  "PUT /api/profile": creatorProfileSchema,
  "PUT /api/profile/avatar": creatorProfileSchema,
  "DELETE /api/profile/avatar": creatorProfileSchema,
  "GET /api/settings/tax": taxSettingsSchema,
  "PUT /api/settings/tax": taxSettingsSchema,
  "GET /api/settings/tax/preview": taxPreviewSchema,
  "PUT /api/content/:id/checkout-reminders": checkoutRemindersSchema,
  "POST /api/create-subscription": subscriptionStartedSchema,
  "GET /api/subscription": subscriptionStateSchema,
  "POST /api/subscription/cancel": subscriptionStateSchema,
  "POST /api/uploads": uploadStateSchema,
  "GET /api/uploads/:id": uploadStateSchema,
  "PUT /api/uploads/:id/parts/:partNumber": uploadedPartSchema,
  "POST /api/uploads/:id/complete": uploadStateSchema,
  "GET /api/upsell/offer": offerStateSchema,
  "POST /api/upsell/accept": acceptResultSchema,
  "POST /api/upsell/complete": acceptResultSchema,
  "POST /api/upsell/decline": declineResultSchema,
  "GET /api/upsell/order": orderSchema,
  "GET /api/developer/webhooks": webhookEndpointListSchema,
  "POST /api/developer/webhooks": webhookEndpointSchema,
  "PATCH /api/developer/webhooks/:id": webhookEndpointSchema,
  "DELETE /api/developer/webhooks/:id": deletedSchema,
  "GET /api/developer/webhooks/:id/secret": webhookSecretSchema,
  "POST /api/developer/webhooks/:id/secret": webhookSecretSchema,
  "POST /api/developer/webhooks/:id/test": webhookDeliverySchema,
  "GET /api/developer/webhooks/:id/deliveries": webhookDeliveryPageSchema,
  "POST /api/developer/webhooks/:id/deliveries/:deliveryId/resend": resentSchema,
} as const;

export type ApiRoute = keyof typeof API_ANSWERS;
/** What a route answers, as its shared schema says. */
export type ApiAnswer<R extends ApiRoute> = z.infer<(typeof API_ANSWERS)[R]>;
