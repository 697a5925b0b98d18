// The email to a purchase's old address when its email is changed (services/purchases/email-change.ts):
// what changed, to where (masked), and whom to contact if it wasn't them. Rendered by ./render.ts.
import { PRODUCT_NAME } from "../../../shared/site";
import { escapeHtml } from "../../lib/html";
import { layout, type Rendered } from "./layout";
import type { MailData } from "./templates";

export function purchaseEmailChangedMail(data: MailData<"purchase-email-changed">): Rendered {
  const { title, orderId, newEmail, creator } = data;
  const lead = `The email for your purchase of ${title} (Order #${orderId}) was changed to ${newEmail}.`;
  const after = "Its receipt and access link now go to that address, and it is listed in that address's library.";
  const who = creator?.supportEmail ? (creator.name ?? "the creator") : null;
  const contactText = who
    ? `If this wasn't you, write to ${who} at ${creator?.supportEmail} with your order number.`
    : `If this wasn't you, contact ${PRODUCT_NAME}: reply to this email with your order number.`;
  const contactHtml = who
    ? `If this wasn't you, write to ${escapeHtml(who)} at <a href="mailto:${escapeHtml(creator?.supportEmail ?? "")}">${escapeHtml(creator?.supportEmail ?? "")}</a> with your order number.`
    : escapeHtml(contactText);
  return {
    subject: `The email on your order of ${title} was changed`,
    text: `${lead}\n\n${after}\n\n${contactText}`,
    html: layout(
      "The email on your order was changed",
      `<p>${escapeHtml(lead)}</p><p>${escapeHtml(after)}</p><p><strong>${contactHtml}</strong></p>`,
    ),
  };
}
