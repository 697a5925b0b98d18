// The pieces every email is made of: the page around it, the button, the creator's byline and
// where a buyer's question goes. The emails themselves are ./buyer-mails.ts and ./creator-mails.ts.
import { formatCentsPlain } from "../../../shared/money";
import { PRODUCT_NAME } from "../../../shared/site";
import { creatorByline } from "../../../shared/profile";
import { escapeHtml } from "../../lib/html";
import type { MailCreator } from "./templates";

/** `replyTo`: where the reader's Reply goes (the Reply-To header), when not to the sender. */
export type Rendered = { subject: string; text: string; html: string; replyTo?: string };

export function layout(title: string, bodyHtml: string): string {
  return `<!doctype html><html><body style="margin:0;background:#f6f7fb;font-family:-apple-system,Segoe UI,Roboto,sans-serif;color:#111827">
<table width="100%" cellpadding="0" cellspacing="0"><tr><td align="center" style="padding:32px 16px">
<table width="100%" style="max-width:480px;background:#fff;border-radius:12px;padding:32px" cellpadding="0" cellspacing="0">
<tr><td style="font-weight:700;font-size:20px;padding-bottom:16px">${PRODUCT_NAME}</td></tr>
<tr><td><h1 style="font-size:18px;margin:0 0 12px">${escapeHtml(title)}</h1>${bodyHtml}</td></tr>
</table></td></tr></table></body></html>`;
}

export const button = (url: string, label: string) =>
  `<p style="margin:24px 0"><a href="${escapeHtml(url)}" style="background:#7c3aed;color:#fff;padding:12px 20px;border-radius:8px;text-decoration:none;font-weight:600">${escapeHtml(label)}</a></p>`;

/** "by {name}" with the avatar (a fixed 24 px box) and, when given, the creator's support address. */
export function creatorHtml(creator: MailCreator | undefined): string {
  const avatar = creator?.avatarUrl
    ? `<img src="${escapeHtml(creator.avatarUrl)}" width="24" height="24" alt="" style="border-radius:12px;vertical-align:middle;margin-right:6px">`
    : "";
  const contact = creator?.supportEmail
    ? ` · <a href="mailto:${escapeHtml(creator.supportEmail)}" style="color:#7c3aed">${escapeHtml(creator.supportEmail)}</a>`
    : "";
  return `<span style="color:#6b7280">${avatar}${escapeHtml(creatorByline(creator))}${contact}</span><br>`;
}

/** Where a buyer's question goes: the creator's support address when given, else a reply to us. */
export const contactText = (creator: MailCreator | undefined) =>
  creator?.supportEmail
    ? `Questions? Write to ${creator.name ?? "the creator"} at ${creator.supportEmail} with your order number.`
    : "Questions? Reply to this email with your order number.";

export const contactHtml = (creator: MailCreator | undefined) =>
  creator?.supportEmail
    ? `Questions? Write to ${escapeHtml(creator.name ?? "the creator")} at <a href="mailto:${escapeHtml(creator.supportEmail)}">${escapeHtml(creator.supportEmail)}</a> with your order number.`
    : "Questions? Reply to this email with your order number.";

export const licenseText = (key?: string) => (key ? `\nYour license key: ${key}` : "");
export const licenseHtml = (key?: string) =>
  key ? `<p>Your license key: <strong style="font-family:monospace">${escapeHtml(key)}</strong></p>` : "";

export const usd = formatCentsPlain;
