// The emails a creator gets: a sale, a Pro receipt, each step of a payout or withdrawal, a payout
// skipped, payouts held and released, a webhook endpoint disabled and a payout destination changed.
// Rendered by ./render.ts.
import { MANUAL_PAYOUT_DAY, MIN_PAYOUT_CENTS } from "../../../shared/payouts";
import { PRODUCT_NAME } from "../../../shared/site";
import { escapeHtml } from "../../lib/html";
import { button, layout, type Rendered, usd } from "./layout";
import type { MailData, PayoutMailData } from "./templates";

export function saleMadeMail(data: MailData<"sale-made">): Rendered {
  const d = data;
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

export function proReceiptMail(data: MailData<"pro-receipt">): Rendered {
  const d = data;
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

export function payoutPreparedMail(data: MailData<"payout-prepared">): Rendered {
  const d = data;
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

export function payoutPaidMail(data: MailData<"payout-paid">): Rendered {
  const d = data;
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

export function payoutFailedMail(data: MailData<"payout-failed">): Rendered {
  const d = data;
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

export function payoutSkippedMail(data: MailData<"payout-skipped">): Rendered {
  const d = data;
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

export function webhookDisabledMail(data: MailData<"webhook-disabled">): Rendered {
  const { url, reason, settingsUrl } = data;
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

export function payoutDestinationChangedMail(data: MailData<"payout-destination-changed">): Rendered {
  const { before, after, at, ip, settingsUrl } = data;
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

/** The admin held the creator's payouts: what that means for their money, and how to reach support. */
export function payoutsHeldMail(data: MailData<"payouts-held">): Rendered {
  const subject = "Your payouts are on hold";
  return holdMail(
    subject,
    [
      "We have put your payouts on hold. While they are on hold no money is sent to you: the monthly payout skips you, Withdraw now is unavailable, and a payout or withdrawal already prepared waits until the hold ends.",
      "Your items stay on sale and everything you earn stays in your balance.",
      `To find out why and what to do, reply to this email or write to us at ${data.supportUrl}.`,
    ],
    data,
  );
}

export function payoutsReleasedMail(data: MailData<"payouts-released">): Rendered {
  const subject = "Your payouts are no longer on hold";
  return holdMail(
    subject,
    [
      "We have released the hold on your payouts. A payout or withdrawal that waited goes out now, and the monthly payout includes you again.",
      `Questions? Reply to this email or write to us at ${data.supportUrl}.`,
    ],
    data,
  );
}

function holdMail(subject: string, paragraphs: string[], d: MailData<"payouts-held">): Rendered {
  return {
    subject,
    text: `${paragraphs.join("\n\n")}\n\nYour payouts: ${d.settingsUrl}`,
    html: layout(
      subject,
      `${paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join("")}${button(d.settingsUrl, "See your payouts")}`,
    ),
  };
}

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
