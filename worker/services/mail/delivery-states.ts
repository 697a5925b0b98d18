// The one table of what each delivery event does to an email's state. Events arrive in any order
// and may repeat; the table is built so that any order of the same events ends in the same state: a
// later `delivered` never un-bounces, `delivery_delayed` never overwrites `delivered`, `complained`
// is final. An email the provider would not send (`failed`: an invalid recipient; `suppressed`: an
// address on the account's suppression list, after an earlier bounce) did not reach the buyer: Bounced. Behaviour: docs/payments.md ("Receipts and emails").
import type { MailDeliveryState, MailEventType } from "../../../shared/mail";

export const DELIVERY_TRANSITIONS: Record<MailDeliveryState, Record<MailEventType, MailDeliveryState>> = {
  sent: {
    "email.sent": "sent",
    "email.delivery_delayed": "delayed",
    "email.delivered": "delivered",
    "email.bounced": "bounced",
    "email.failed": "bounced",
    "email.suppressed": "bounced",
    "email.complained": "complained",
  },
  delayed: {
    "email.sent": "delayed",
    "email.delivery_delayed": "delayed",
    "email.delivered": "delivered",
    "email.bounced": "bounced",
    "email.failed": "bounced",
    "email.suppressed": "bounced",
    "email.complained": "complained",
  },
  delivered: {
    "email.sent": "delivered",
    "email.delivery_delayed": "delivered",
    "email.delivered": "delivered",
    // A bounce the receiving server sends after accepting the message is the later, truer word.
    "email.bounced": "bounced",
    "email.failed": "bounced",
    "email.suppressed": "bounced",
    "email.complained": "complained",
  },
  bounced: {
    "email.sent": "bounced",
    "email.delivery_delayed": "bounced",
    "email.delivered": "bounced",
    "email.bounced": "bounced",
    "email.failed": "bounced",
    "email.suppressed": "bounced",
    "email.complained": "complained",
  },
  complained: {
    "email.sent": "complained",
    "email.delivery_delayed": "complained",
    "email.delivered": "complained",
    "email.bounced": "complained",
    "email.failed": "complained",
    "email.suppressed": "complained",
    "email.complained": "complained",
  },
};
