// Renders an email job (its template and data, ./templates.ts) into subject, text and HTML.
import {
  accessRecoveryMail,
  checkoutReminderMail,
  loginLinkMail,
  orderAddedMail,
  orderMail,
  purchaseAccessMail,
  refundIssuedMail,
} from "./buyer-mails";
import {
  payoutDestinationChangedMail,
  payoutFailedMail,
  payoutPaidMail,
  payoutPreparedMail,
  payoutSkippedMail,
  payoutsHeldMail,
  payoutsReleasedMail,
  proReceiptMail,
  saleMadeMail,
  webhookDisabledMail,
} from "./creator-mails";
import type { Rendered } from "./layout";
import { purchaseEmailChangedMail } from "./purchase-email-mail";
import type { EmailJob } from "./templates";

export function render(job: EmailJob): Rendered {
  switch (job.template) {
    case "login-link":
      return loginLinkMail(job.data);
    case "purchase-access":
      return purchaseAccessMail(job.data);
    case "order":
      return orderMail(job.data);
    case "order-added":
      return orderAddedMail(job.data);
    case "sale-made":
      return saleMadeMail(job.data);
    case "pro-receipt":
      return proReceiptMail(job.data);
    case "refund-issued":
      return refundIssuedMail(job.data);
    case "access-recovery":
      return accessRecoveryMail(job.data);
    case "payout-prepared":
      return payoutPreparedMail(job.data);
    case "payout-paid":
      return payoutPaidMail(job.data);
    case "payout-failed":
      return payoutFailedMail(job.data);
    case "payout-skipped":
      return payoutSkippedMail(job.data);
    case "checkout-reminder":
      return checkoutReminderMail(job.data);
    case "webhook-disabled":
      return webhookDisabledMail(job.data);
    case "payout-destination-changed":
      return payoutDestinationChangedMail(job.data);
    case "payouts-held":
      return payoutsHeldMail(job.data);
    case "payouts-released":
      return payoutsReleasedMail(job.data);
    case "purchase-email-changed":
      return purchaseEmailChangedMail(job.data);
  }
}
