// Every email the app sends, as a job: a queue message names a template and carries its data; the
// consumer renders it with ./render.ts (the emails themselves: ./buyer-mails.ts, ./creator-mails.ts).

/**
 * `sendAt` (ms): not before then. The hand-over gives the queue message that delay, and the sweep
 * leaves the row alone until then (the buyer's order email waits for the funnel: ./order-email.ts).
 */
export type EmailJob = { dedupeKey: string; to: string; sendAt?: number } & (
  | { template: "login-link"; data: { url: string } }
  // The buyer's library sign-in link (services/library/links.ts).
  | { template: "library-link"; data: { url: string } }
  | { template: "purchase-access"; data: PurchaseAccessMailData }
  // The buyer's one email for an order with a funnel; `items` is filled by the consumer (./order-email.ts).
  | { template: "order"; data: OrderMailData }
  // An upsell paid after the order email went out.
  | { template: "order-added"; data: PurchaseAccessMailData & { rootOrderId: string } }
  // To the creator, for each sale fulfilled (unless turned off): figures from that sale's ledger rows.
  | { template: "sale-made"; data: SaleMailData }
  | { template: "pro-receipt"; data: ProReceiptMailData }
  // A refund Stripe says succeeded; `accessEnded` when refunds now total the whole order; `replyTo`:
  // the creator's address (services/refunds/reply-to.ts), absent in jobs written before it existed.
  | {
      template: "refund-issued";
      data: { title: string; amountCents: number; orderId: string; accessEnded: boolean; replyTo?: string };
    }
  // Sent with empty data; the consumer fills `items` from the purchases paid with that address.
  | { template: "access-recovery"; data: { items?: RecoveredPurchase[] } }
  | { template: "payout-prepared"; data: PayoutMailData & { byTransfer: boolean } }
  | { template: "payout-paid"; data: PayoutMailData }
  | { template: "payout-failed"; data: PayoutMailData & { reason: string } }
  | { template: "payout-skipped"; data: PayoutSkippedMailData }
  // A checkout left with an email an hour ago; the consumer fills the rest when due (services/purchases/recovery.ts).
  | { template: "checkout-reminder"; data: ReminderMailData }
  // A creator's webhook endpoint disabled after three days of failed deliveries (services/webhooks.ts).
  | { template: "webhook-disabled"; data: { url: string; reason: string; settingsUrl: string } }
  // To the creator's account address when where their payouts go changes (services/payout-destination.ts).
  | { template: "payout-destination-changed"; data: DestinationChangedMailData }
  // The admin held the creator's payouts, or released them (services/payouts/hold.ts).
  | { template: "payouts-held"; data: HoldMailData }
  | { template: "payouts-released"; data: HoldMailData }
  // To a purchase's old address when its email was changed (services/purchases/email-change.ts).
  | {
      template: "purchase-email-changed";
      data: { title: string; orderId: string; newEmail: string; creator?: MailCreator };
    }
);

/** Where the creator sees their payouts, and where they reach support (the feedback form; a reply reaches us too). */
type HoldMailData = { settingsUrl: string; supportUrl: string };

/** A checkout reminder: composed when due (recovery.ts `composeReminder`), so a job carries only the purchase at first. */
export type ReminderMailData = {
  purchaseId: string;
  title?: string;
  amountCents?: number;
  recoverUrl?: string;
  unsubscribeUrl?: string;
  creator?: MailCreator;
};

/** What the payout destination notice names (payout-destination.ts). */
type DestinationChangedMailData = {
  before: string;
  after: string;
  at: string;
  ip: string | null;
  settingsUrl: string;
};

/** Why the monthly run paid a creator nothing for a period (payout_skips.reason), with what carries over. */
type PayoutSkippedMailData = {
  reason: "below_minimum" | "not_set_up" | "held";
  amountCents: number;
  period: string;
  settingsUrl: string;
};

/**
 * Who the buyer paid, as an email names them. Optional in the data: a job queued before profiles
 * existed renders as before ("by an ApeWall creator").
 */
export type MailCreator = { name: string | null; supportEmail: string | null; avatarUrl: string | null };

/** `licenseKey`: the purchase's license key, when its item issues them. */
export type PurchaseAccessMailData = {
  title: string;
  amountCents: number;
  orderId: string;
  accessUrl: string;
  creator?: MailCreator;
  licenseKey?: string;
  /** The order's net, tax and invoice, filled when sent (services/tax/invoice.ts); absent where no invoice was issued. */
  tax?: MailTax;
};

/** A receipt's tax figures and the order's invoice (docs/tax.md, Invoices). */
export type MailTax = {
  netCents: number;
  taxCents: number;
  totalCents: number;
  /** taxLineText: "Includes $1.67 VAT (20%, France)", or the reverse charge's words; null where none is due. */
  taxText: string | null;
  invoiceNumber: string;
  invoiceUrl: string;
};

type OrderItem = { title: string; amountCents: number; orderId: string; accessUrl: string; licenseKey?: string };

/** `rootPurchaseId` names the order; what it lists is read when it is sent (paid purchases only). */
export type OrderMailData = {
  rootPurchaseId: string;
  items?: OrderItem[];
  totalCents?: number;
  creator?: MailCreator;
  /** Each invoice of the order (the main purchase's, with its bump; each upsell's), filled when sent. */
  taxes?: MailTax[];
};

type SaleMailData = {
  title: string;
  amountCents: number;
  netCents: number;
  buyerEmail: string | null;
  orderId: string;
  salesUrl: string;
};

/** A paid Pro invoice: what Stripe charged, for which period (ISO dates), the invoice and the card. */
type ProReceiptMailData = {
  amountCents: number;
  currency: string;
  periodStart: string;
  periodEnd: string;
  invoiceNumber: string;
  card: { brand: string; last4: string } | null;
  manageUrl: string;
};

export type RecoveredPurchase = {
  title: string;
  amountCents: number;
  orderId: string;
  accessUrl: string;
  creator?: MailCreator;
};

/** What every payout email says: which payout, how much, for which month, where it goes. */
/** `withdrawal`: the creator's "Withdraw now" (named as such, not as a month's payout). */
export type PayoutMailData = {
  payoutId: string;
  amountCents: number;
  period: string;
  method: string;
  settingsUrl: string;
  withdrawal?: boolean;
};

/** The data of one template's job. */
export type MailData<T extends EmailJob["template"]> = Extract<EmailJob, { template: T }>["data"];
