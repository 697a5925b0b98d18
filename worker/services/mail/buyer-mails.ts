// The emails a buyer gets: the sign-in link, access to a purchase or an order, a refund, their
// access links again, and the one checkout reminder. Rendered by ./render.ts.
import { formatCentsPlain } from "../../../shared/money";
import { PRODUCT_NAME } from "../../../shared/site";
import { creatorByline } from "../../../shared/profile";
import { escapeHtml } from "../../lib/html";
import {
  button,
  contactHtml,
  contactText,
  creatorHtml,
  layout,
  licenseHtml,
  licenseText,
  type Rendered,
  usd,
} from "./layout";
import type { MailData, MailTax } from "./templates";
import { INVOICE_MAIL_LINK_TEXT } from "../../../shared/invoices";

/** The receipt's tax part: net, the tax line, total, the invoice number and its PDF (docs/tax.md, Invoices). */
const taxText = (t?: MailTax) =>
  t
    ? `\n\nNet: ${usd(t.netCents)}${t.taxText ? `\n${t.taxText}` : ""}\nTotal: ${usd(t.totalCents)}\nInvoice ${t.invoiceNumber}\n${INVOICE_MAIL_LINK_TEXT}: ${t.invoiceUrl}`
    : "";
const taxHtml = (t?: MailTax) =>
  t
    ? `<p style="font-size:14px">Net: ${usd(t.netCents)}<br>${t.taxText ? `${escapeHtml(t.taxText)}<br>` : ""}<strong>Total: ${usd(t.totalCents)}</strong><br><span style="color:#6b7280">Invoice ${escapeHtml(t.invoiceNumber)}</span><br><a href="${escapeHtml(t.invoiceUrl)}" style="color:#7c3aed">${INVOICE_MAIL_LINK_TEXT}</a></p>`
    : "";

export function loginLinkMail(data: MailData<"login-link">): Rendered {
  const { url } = data;
  return {
    subject: `Your ${PRODUCT_NAME} sign-in link`,
    text: `Sign in to ${PRODUCT_NAME} by opening this link:\n\n${url}\n\nThe link works once and expires in 15 minutes. If you did not ask for it, you can ignore this email.`,
    html: layout(
      "Sign in to your account",
      `<p>Click the button to sign in. The link works once and expires in 15 minutes.</p>${button(url, "Sign in")}<p style="font-size:13px;color:#6b7280">Or paste this address into your browser:<br>${escapeHtml(url)}</p><p style="font-size:13px;color:#6b7280">If you did not ask for this email, you can ignore it.</p>`,
    ),
  };
}

export function purchaseAccessMail(data: MailData<"purchase-access">): Rendered {
  const { title, amountCents, orderId, accessUrl, creator, licenseKey, tax } = data;
  const amount = formatCentsPlain(amountCents);
  return {
    subject: `Your access to ${title}`,
    text: `Thank you for your purchase!\n\n${title}\n${creatorByline(creator)}\nOrder #${orderId} · ${amount}${licenseText(licenseKey)}\n\nYour permanent access link (bookmark it, it won't expire):\n${accessUrl}${taxText(tax)}\n\n${contactText(creator)}`,
    html: layout(
      "Thank you for your purchase!",
      `<p><strong>${escapeHtml(title)}</strong><br>${creatorHtml(creator)}<span style="color:#6b7280">Order #${escapeHtml(orderId)} · ${amount}</span></p>${licenseHtml(licenseKey)}${button(accessUrl, "Access your purchase")}<p style="font-size:13px;color:#6b7280">This link is permanent and won't expire: bookmark it. Or paste this address into your browser:<br>${escapeHtml(accessUrl)}</p>${taxHtml(tax)}<p style="font-size:13px;color:#6b7280">${contactHtml(creator)}</p>`,
    ),
  };
}

export function orderMail(data: MailData<"order">): Rendered {
  const items = data.items ?? [];
  const { creator } = data;
  const total = usd(data.totalCents ?? items.reduce((a, i) => a + i.amountCents, 0));
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
      )}\n\nTotal charged: ${total}${(data.taxes ?? []).map(taxText).join("")}\n\nEach link is permanent and won't expire: bookmark it.\n${contactText(creator)}`,
    html: layout(
      "Thank you for your order!",
      `<p>${creatorHtml(creator)}</p>${items
        .map(
          (i) =>
            `<p><strong>${escapeHtml(i.title)}</strong><br><span style="color:#6b7280">Order #${escapeHtml(i.orderId)} · ${usd(i.amountCents)}</span></p>${licenseHtml(i.licenseKey)}${button(i.accessUrl, "Access your purchase")}`,
        )
        .join(
          "",
        )}<p><strong>Total charged: ${total}</strong></p>${(data.taxes ?? []).map(taxHtml).join("")}<p style="font-size:13px;color:#6b7280">Each link is permanent and won't expire: bookmark it.</p><p style="font-size:13px;color:#6b7280">${contactHtml(creator)}</p>`,
    ),
  };
}

export function orderAddedMail(data: MailData<"order-added">): Rendered {
  const { title, amountCents, orderId, accessUrl, creator, rootOrderId, licenseKey, tax } = data;
  const subject = `Added to your order: ${title}`;
  const lead = `${title} was added to your order #${rootOrderId} and charged ${usd(amountCents)}.`;
  return {
    subject,
    text: `${lead}\n${creatorByline(creator)}\nOrder #${orderId} · ${usd(amountCents)}${licenseText(licenseKey)}\n\nYour permanent access link (bookmark it, it won't expire):\n${accessUrl}${taxText(tax)}\n\n${contactText(creator)}`,
    html: layout(
      subject,
      `<p>${escapeHtml(lead)}<br>${creatorHtml(creator)}</p>${licenseHtml(licenseKey)}${button(accessUrl, "Access your purchase")}<p style="font-size:13px;color:#6b7280">This link is permanent and won't expire: bookmark it.</p>${taxHtml(tax)}<p style="font-size:13px;color:#6b7280">${contactHtml(creator)}</p>`,
    ),
  };
}

export function refundIssuedMail(data: MailData<"refund-issued">): Rendered {
  const { title, amountCents, orderId, accessEnded, replyTo } = data;
  const amount = formatCentsPlain(amountCents);
  const access = accessEnded
    ? "The order was refunded in full, so its access link no longer opens it."
    : "You keep your access to it.";
  const when =
    "It goes back to the card you paid with and usually shows on your statement within 5 to 10 business days.";
  return {
    subject: `Your refund of ${amount} for ${title}`,
    // "Reply to this email" reaches the creator who refunded, not the platform's sender.
    ...(replyTo ? { replyTo } : {}),
    text: `You have been refunded ${amount}.\n\n${title}\nOrder #${orderId}\n\n${when}\n${access}\n\nQuestions? Reply to this email with your order number.`,
    html: layout(
      `You have been refunded ${amount}`,
      `<p><strong>${escapeHtml(title)}</strong><br><span style="color:#6b7280">Order #${escapeHtml(orderId)}</span></p><p>${escapeHtml(when)}</p><p>${escapeHtml(access)}</p><p style="font-size:13px;color:#6b7280">Questions? Reply to this email with your order number.</p>`,
    ),
  };
}

export function accessRecoveryMail(data: MailData<"access-recovery">): Rendered {
  const items = data.items ?? [];
  const money = formatCentsPlain;
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

export function checkoutReminderMail(data: MailData<"checkout-reminder">): Rendered {
  const { title = "your item", amountCents = 0, recoverUrl = "", unsubscribeUrl = "", creator } = data;
  const amount = formatCentsPlain(amountCents);
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
