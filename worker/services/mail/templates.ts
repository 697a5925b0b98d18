// Every email the app sends: a queue message names a template and its data; the consumer renders it.
import { MANUAL_PAYOUT_DAY, MIN_PAYOUT_CENTS } from "../../../shared/payouts";
import { PRODUCT_NAME } from "../../../shared/site";
import { creatorByline } from "../../../shared/profile";
import { escapeHtml } from "../../lib/html";

/**
 * `sendAt` (ms): not before then. The hand-over gives the queue message that delay, and the sweep
 * leaves the row alone until then (the buyer's order email waits for the funnel: ./order-email.ts).
 */
export type EmailJob = { dedupeKey: string; to: string; sendAt?: number } & (
  | { template: "login-link"; data: { url: string } }
  | { template: "purchase-access"; data: PurchaseAccessMailData }
  // The buyer's one email for an order with a funnel; `items` is filled by the consumer (./order-email.ts).
  | { template: "order"; data: OrderMailData }
  // An upsell paid after the order email went out.
  | { template: "order-added"; data: PurchaseAccessMailData & { rootOrderId: string } }
  // To the creator, for each sale fulfilled (unless turned off): figures from that sale's ledger rows.
  | { template: "sale-made"; data: SaleMailData }
  | { template: "pro-receipt"; data: ProReceiptMailData }
  // A refund Stripe says succeeded; `accessEnded` when refunds now total the whole order.
  | { template: "refund-issued"; data: { title: string; amountCents: number; orderId: string; accessEnded: boolean } }
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
);

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
export type DestinationChangedMailData = {
  before: string;
  after: string;
  at: string;
  ip: string | null;
  settingsUrl: string;
};

/** Why the monthly run paid a creator nothing for a period (payout_skips.reason), with what carries over. */
export type PayoutSkippedMailData = {
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
};

export type OrderItem = { title: string; amountCents: number; orderId: string; accessUrl: string; licenseKey?: string };

const licenseText = (key?: string) => (key ? `\nYour license key: ${key}` : "");
const licenseHtml = (key?: string) =>
  key ? `<p>Your license key: <strong style="font-family:monospace">${escapeHtml(key)}</strong></p>` : "";
/** `rootPurchaseId` names the order; what it lists is read when it is sent (paid purchases only). */
export type OrderMailData = { rootPurchaseId: string; items?: OrderItem[]; totalCents?: number; creator?: MailCreator };

export type SaleMailData = {
  title: string;
  amountCents: number;
  netCents: number;
  buyerEmail: string | null;
  orderId: string;
  salesUrl: string;
};

/** A paid Pro invoice: what Stripe charged, for which period (ISO dates), the invoice and the card. */
export type ProReceiptMailData = {
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

export type Rendered = { subject: string; text: string; html: string };

function layout(title: string, bodyHtml: string): string {
  return `<!doctype html><html><body style="margin:0;background:#f6f7fb;font-family:-apple-system,Segoe UI,Roboto,sans-serif;color:#111827">
<table width="100%" cellpadding="0" cellspacing="0"><tr><td align="center" style="padding:32px 16px">
<table width="100%" style="max-width:480px;background:#fff;border-radius:12px;padding:32px" cellpadding="0" cellspacing="0">
<tr><td style="font-weight:700;font-size:20px;padding-bottom:16px">${PRODUCT_NAME}</td></tr>
<tr><td><h1 style="font-size:18px;margin:0 0 12px">${escapeHtml(title)}</h1>${bodyHtml}</td></tr>
</table></td></tr></table></body></html>`;
}

const button = (url: string, label: string) =>
  `<p style="margin:24px 0"><a href="${escapeHtml(url)}" style="background:#7c3aed;color:#fff;padding:12px 20px;border-radius:8px;text-decoration:none;font-weight:600">${escapeHtml(label)}</a></p>`;

/** "by {name}" with the avatar (a fixed 24 px box) and, when given, the creator's support address. */
function creatorHtml(creator: MailCreator | undefined): string {
  const avatar = creator?.avatarUrl
    ? `<img src="${escapeHtml(creator.avatarUrl)}" width="24" height="24" alt="" style="border-radius:12px;vertical-align:middle;margin-right:6px">`
    : "";
  const contact = creator?.supportEmail
    ? ` · <a href="mailto:${escapeHtml(creator.supportEmail)}" style="color:#7c3aed">${escapeHtml(creator.supportEmail)}</a>`
    : "";
  return `<span style="color:#6b7280">${avatar}${escapeHtml(creatorByline(creator))}${contact}</span><br>`;
}

/** Where a buyer's question goes: the creator's support address when given, else a reply to us. */
const contactText = (creator: MailCreator | undefined) =>
  creator?.supportEmail
    ? `Questions? Write to ${creator.name ?? "the creator"} at ${creator.supportEmail} with your order number.`
    : "Questions? Reply to this email with your order number.";

const contactHtml = (creator: MailCreator | undefined) =>
  creator?.supportEmail
    ? `Questions? Write to ${escapeHtml(creator.name ?? "the creator")} at <a href="mailto:${escapeHtml(creator.supportEmail)}">${escapeHtml(creator.supportEmail)}</a> with your order number.`
    : "Questions? Reply to this email with your order number.";

export function render(job: EmailJob): Rendered {
  switch (job.template) {
    case "login-link": {
      const { url } = job.data;
      return {
        subject: `Your ${PRODUCT_NAME} sign-in link`,
        text: `Sign in to ${PRODUCT_NAME} by opening this link:\n\n${url}\n\nThe link works once and expires in 15 minutes. If you did not ask for it, you can ignore this email.`,
        html: layout(
          "Sign in to your account",
          `<p>Click the button to sign in. The link works once and expires in 15 minutes.</p>${button(url, "Sign in")}<p style="font-size:13px;color:#6b7280">Or paste this address into your browser:<br>${escapeHtml(url)}</p><p style="font-size:13px;color:#6b7280">If you did not ask for this email, you can ignore it.</p>`,
        ),
      };
    }
    case "purchase-access": {
      const { title, amountCents, orderId, accessUrl, creator, licenseKey } = job.data;
      const amount = `$${(amountCents / 100).toFixed(2)}`;
      return {
        subject: `Your access to ${title}`,
        text: `Thank you for your purchase!\n\n${title}\n${creatorByline(creator)}\nOrder #${orderId} · ${amount}${licenseText(licenseKey)}\n\nYour permanent access link (bookmark it, it won't expire):\n${accessUrl}\n\n${contactText(creator)}`,
        html: layout(
          "Thank you for your purchase!",
          `<p><strong>${escapeHtml(title)}</strong><br>${creatorHtml(creator)}<span style="color:#6b7280">Order #${escapeHtml(orderId)} · ${amount}</span></p>${licenseHtml(licenseKey)}${button(accessUrl, "Access your purchase")}<p style="font-size:13px;color:#6b7280">This link is permanent and won't expire: bookmark it. Or paste this address into your browser:<br>${escapeHtml(accessUrl)}</p><p style="font-size:13px;color:#6b7280">${contactHtml(creator)}</p>`,
        ),
      };
    }
    case "order": {
      const items = job.data.items ?? [];
      const { creator } = job.data;
      const total = usd(job.data.totalCents ?? items.reduce((a, i) => a + i.amountCents, 0));
      const subject = `Your order: ${items[0]?.title ?? "your purchase"}${items.length > 1 ? ` and ${items.length - 1} more` : ""}`;
      return {
        subject,
        text: `Thank you for your order!\n${creatorByline(creator)}\n\n${items
          .map(
            (i) =>
              `${i.title} (Order #${i.orderId} · ${usd(i.amountCents)})${licenseText(i.licenseKey)}\nYour permanent access link: ${i.accessUrl}`,
          )
          .join(
            "\n\n",
          )}\n\nTotal charged: ${total}\n\nEach link is permanent and won't expire: bookmark it.\n${contactText(creator)}`,
        html: layout(
          "Thank you for your order!",
          `<p>${creatorHtml(creator)}</p>${items
            .map(
              (i) =>
                `<p><strong>${escapeHtml(i.title)}</strong><br><span style="color:#6b7280">Order #${escapeHtml(i.orderId)} · ${usd(i.amountCents)}</span></p>${licenseHtml(i.licenseKey)}${button(i.accessUrl, "Access your purchase")}`,
            )
            .join(
              "",
            )}<p><strong>Total charged: ${total}</strong></p><p style="font-size:13px;color:#6b7280">Each link is permanent and won't expire: bookmark it.</p><p style="font-size:13px;color:#6b7280">${contactHtml(creator)}</p>`,
        ),
      };
    }
    case "order-added": {
      const { title, amountCents, orderId, accessUrl, creator, rootOrderId, licenseKey } = job.data;
      const subject = `Added to your order: ${title}`;
      const lead = `${title} was added to your order #${rootOrderId} and charged ${usd(amountCents)}.`;
      return {
        subject,
        text: `${lead}\n${creatorByline(creator)}\nOrder #${orderId} · ${usd(amountCents)}${licenseText(licenseKey)}\n\nYour permanent access link (bookmark it, it won't expire):\n${accessUrl}\n\n${contactText(creator)}`,
        html: layout(
          subject,
          `<p>${escapeHtml(lead)}<br>${creatorHtml(creator)}</p>${licenseHtml(licenseKey)}${button(accessUrl, "Access your purchase")}<p style="font-size:13px;color:#6b7280">This link is permanent and won't expire: bookmark it.</p><p style="font-size:13px;color:#6b7280">${contactHtml(creator)}</p>`,
        ),
      };
    }
    case "sale-made": {
      const d = job.data;
      const subject = `You made a sale: ${d.title}`;
      const lines = [
        `${d.title}`,
        `Paid by the buyer: ${usd(d.amountCents)}`,
        `Yours after the fee: ${usd(d.netCents)}`,
        `Buyer: ${d.buyerEmail ?? "no email given"}`,
        `Order #${d.orderId}`,
      ];
      const off = "You can turn these emails off in your settings: Email me when I make a sale.";
      return {
        subject,
        text: `${lines.join("\n")}\n\nYour sales: ${d.salesUrl}\n\n${off}`,
        html: layout(
          subject,
          `<p>${lines.map(escapeHtml).join("<br>")}</p>${button(d.salesUrl, "See your sales")}<p style="font-size:13px;color:#6b7280">${escapeHtml(off)}</p>`,
        ),
      };
    }
    case "pro-receipt": {
      const d = job.data;
      const subject = `Receipt for ${PRODUCT_NAME} Pro`;
      const day = (iso: string) =>
        new Date(iso).toLocaleDateString("en-US", { year: "numeric", month: "long", day: "numeric", timeZone: "UTC" });
      const lines = [
        `${PRODUCT_NAME} Pro: ${usd(d.amountCents)}${d.currency === "usd" ? "" : ` ${d.currency.toUpperCase()}`}`,
        `Period: ${day(d.periodStart)} to ${day(d.periodEnd)}`,
        `Invoice: ${d.invoiceNumber}`,
        ...(d.card ? [`Paid with: ${d.card.brand} ending in ${d.card.last4}`] : []),
      ];
      return {
        subject,
        text: `Thank you: your ${PRODUCT_NAME} Pro payment was received.\n\n${lines.join("\n")}\n\nManage your plan: ${d.manageUrl}`,
        html: layout(
          subject,
          `<p>Thank you: your ${PRODUCT_NAME} Pro payment was received.</p><p>${lines.map(escapeHtml).join("<br>")}</p>${button(d.manageUrl, "Manage your plan")}`,
        ),
      };
    }
    case "refund-issued": {
      const { title, amountCents, orderId, accessEnded } = job.data;
      const amount = `$${(amountCents / 100).toFixed(2)}`;
      const access = accessEnded
        ? "The order was refunded in full, so its access link no longer opens it."
        : "You keep your access to it.";
      const when =
        "It goes back to the card you paid with and usually shows on your statement within 5 to 10 business days.";
      return {
        subject: `Your refund of ${amount} for ${title}`,
        text: `You have been refunded ${amount}.\n\n${title}\nOrder #${orderId}\n\n${when}\n${access}\n\nQuestions? Reply to this email with your order number.`,
        html: layout(
          `You have been refunded ${amount}`,
          `<p><strong>${escapeHtml(title)}</strong><br><span style="color:#6b7280">Order #${escapeHtml(orderId)}</span></p><p>${escapeHtml(when)}</p><p>${escapeHtml(access)}</p><p style="font-size:13px;color:#6b7280">Questions? Reply to this email with your order number.</p>`,
        ),
      };
    }
    case "access-recovery": {
      const items = job.data.items ?? [];
      const money = (cents: number) => `$${(cents / 100).toFixed(2)}`;
      return {
        subject: `Your ${PRODUCT_NAME} access links`,
        text: `Here is every purchase made with this email address, each with its permanent access link:\n\n${items.map((i) => `${i.title} ${creatorByline(i.creator)} (Order #${i.orderId} · ${money(i.amountCents)})\n${i.accessUrl}${i.creator?.supportEmail ? `\nContact the creator: ${i.creator.supportEmail}` : ""}`).join("\n\n")}\n\nYou asked for these on the paywall ("Lost your access?"). If you did not, you can ignore this email.`,
        html: layout(
          "Your access links",
          `<p>Here is every purchase made with this email address. Each link is permanent: bookmark it.</p>${items
            .map(
              (i) =>
                `<p><strong>${escapeHtml(i.title)}</strong><br>${creatorHtml(i.creator)}<span style="color:#6b7280">Order #${escapeHtml(i.orderId)} · ${money(i.amountCents)}</span></p>${button(i.accessUrl, "Access your purchase")}`,
            )
            .join(
              "",
            )}<p style="font-size:13px;color:#6b7280">You asked for these on the paywall ("Lost your access?"). If you did not, you can ignore this email.</p>`,
        ),
      };
    }
    case "payout-prepared": {
      const d = job.data;
      if (d.withdrawal)
        return payoutMail(
          `Your withdrawal of ${usd(d.amountCents)} is on its way`,
          `You asked to withdraw ${usd(d.amountCents)}.`,
          "It is sent to your connected bank account now and usually arrives in 2-3 business days.",
          d,
        );
      const when = d.byTransfer
        ? "It is sent to your connected bank account today and usually arrives in 2-3 business days."
        : `It is sent to your ${d.method} account by the ${MANUAL_PAYOUT_DAY}st of the month.`;
      return payoutMail(
        `Your ${d.period} payout of ${usd(d.amountCents)} is on its way`,
        `Your payout for ${d.period} is ready: ${usd(d.amountCents)}.`,
        when,
        d,
      );
    }
    case "payout-paid": {
      const d = job.data;
      if (d.withdrawal)
        return payoutMail(
          `Your withdrawal of ${usd(d.amountCents)} was sent`,
          `We sent your withdrawal: ${usd(d.amountCents)} by ${d.method}.`,
          "",
          d,
        );
      return payoutMail(
        `Your ${d.period} payout of ${usd(d.amountCents)} was sent`,
        `We sent your payout for ${d.period}: ${usd(d.amountCents)} by ${d.method}.`,
        "",
        d,
      );
    }
    case "payout-failed": {
      const d = job.data;
      if (d.withdrawal)
        return payoutMail(
          `Your withdrawal could not be sent`,
          `Your withdrawal of ${usd(d.amountCents)} could not be sent: ${d.reason}`,
          "The money is back in your available balance: you can withdraw it again, or it is included in the next payout.",
          d,
        );
      return payoutMail(
        `Your ${d.period} payout could not be sent`,
        `Your payout for ${d.period} (${usd(d.amountCents)}) could not be sent: ${d.reason}`,
        // `reason` is written for the creator (what happened, what they can do): payouts.ts failPayout.
        "The money is back in your available balance and is included in the next payout.",
        d,
      );
    }
    case "payout-skipped": {
      const d = job.data;
      const amount = usd(d.amountCents);
      const lead =
        d.reason === "below_minimum"
          ? `There is no payout for ${d.period}: your available balance of ${amount} is below the ${usd(MIN_PAYOUT_CENTS)} minimum.`
          : d.reason === "not_set_up"
            ? `There is no payout for ${d.period}: you have ${amount} available, but no payout method is set up. Add a bank account or a payout method in your payout settings to receive it.`
            : `There is no payout for ${d.period}: your payouts are on hold, so your ${amount} was not sent. Reply to this email if you have questions.`;
      const subject = `No payout for ${d.period}: ${amount} carries over`;
      const more = `The ${amount} stays in your available balance and carries over to the next monthly payout.`;
      return {
        subject,
        text: `${lead}\n\n${more}\n\nYour payouts: ${d.settingsUrl}`,
        html: layout(
          subject,
          `<p>${escapeHtml(lead)}</p><p>${escapeHtml(more)}</p>${button(d.settingsUrl, "See your payouts")}`,
        ),
      };
    }
    case "checkout-reminder": {
      const { title = "your item", amountCents = 0, recoverUrl = "", unsubscribeUrl = "", creator } = job.data;
      const amount = `$${(amountCents / 100).toFixed(2)}`;
      const by = creator?.name ? ` by ${creator.name}` : "";
      const lead = `You started buying ${title}${by} for ${amount} and didn't finish. Your checkout is waiting, at the same price.`;
      const last = "This is the only reminder we send for it.";
      return {
        subject: `You left ${title} at checkout`,
        text: `${lead}

Complete your purchase:
${recoverUrl}

${last}
No more reminders from ApeWall: ${unsubscribeUrl}`,
        html: layout(
          `You left ${title} at checkout`,
          `<p>${escapeHtml(lead)}</p>${button(recoverUrl, `Complete your purchase · ${amount}`)}<p style="font-size:13px;color:#6b7280">${escapeHtml(last)} <a href="${escapeHtml(unsubscribeUrl)}" style="color:#6b7280">No more reminders</a></p>`,
        ),
      };
    }
    case "webhook-disabled": {
      const { url, reason, settingsUrl } = job.data;
      const lead = `We stopped sending webhooks to ${url}: ${reason}.`;
      const more =
        "Check that the endpoint answers with a 2xx status, then enable it again in Settings → Developers. Deliveries from the last days can be resent from its log.";
      return {
        subject: "A webhook endpoint was disabled",
        text: `${lead}\n\n${more}\n\n${settingsUrl}`,
        html: layout(
          "A webhook endpoint was disabled",
          `<p>${escapeHtml(lead)}</p><p>${escapeHtml(more)}</p>${button(settingsUrl, "Open Settings")}`,
        ),
      };
    }
    case "payout-destination-changed": {
      const { before, after, at, ip, settingsUrl } = job.data;
      const when = `${at.slice(0, 16).replace("T", " ")} UTC`;
      const lead = `Where your payouts go was changed on ${when}${ip ? ` from the IP address ${ip}` : ""}.`;
      const lines = [`Before: ${before}`, `Now: ${after}`];
      const more =
        "If this was you, there is nothing to do. If it was not, sign in at once and change it back in Settings: until then your payouts go to the new destination.";
      return {
        subject: "Your payout destination was changed",
        text: `${lead}\n\n${lines.join("\n")}\n\n${more}\n\n${settingsUrl}`,
        html: layout(
          "Your payout destination was changed",
          `<p>${escapeHtml(lead)}</p><p>${lines.map(escapeHtml).join("<br>")}</p><p>${escapeHtml(more)}</p>${button(settingsUrl, "Open Settings")}`,
        ),
      };
    }
  }
}

const usd = (cents: number) => `$${(cents / 100).toFixed(2)}`;

function payoutMail(subject: string, lead: string, more: string, d: PayoutMailData): Rendered {
  const ref = `Payout reference: ${d.payoutId}`;
  return {
    subject,
    text: `${lead}\n\n${more ? `${more}\n\n` : ""}${ref}\nYour payouts: ${d.settingsUrl}`,
    html: layout(
      subject,
      `<p>${escapeHtml(lead)}</p>${more ? `<p>${escapeHtml(more)}</p>` : ""}${button(d.settingsUrl, "See your payouts")}<p style="font-size:13px;color:#6b7280">${escapeHtml(ref)}</p>`,
    ),
  };
}
