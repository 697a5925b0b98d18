// The library's sign-in email (rendered by ../mail/render.ts). Behaviour: docs/library.md.
import { LIBRARY_LINK_MINUTES } from "../../../shared/library";
import { PRODUCT_NAME } from "../../../shared/site";
import { escapeHtml } from "../../lib/html";
import { button, layout, type Rendered } from "../mail/layout";
import type { MailData } from "../mail/templates";

export function libraryLinkMail(data: MailData<"library-link">): Rendered {
  const { url } = data;
  const works = `The link works once and expires in ${LIBRARY_LINK_MINUTES} minutes.`;
  return {
    subject: `Your ${PRODUCT_NAME} library link`,
    text: `Open your library: every purchase made with this email address, with its downloads and receipts.\n\n${url}\n\n${works} If you did not ask for it, you can ignore this email.`,
    html: layout(
      "Open your library",
      `<p>Every purchase made with this email address, with its downloads and receipts. ${works}</p>${button(url, "Open my library")}<p style="font-size:13px;color:#6b7280">Or paste this address into your browser:<br>${escapeHtml(url)}</p><p style="font-size:13px;color:#6b7280">If you did not ask for this email, you can ignore it.</p>`,
    ),
  };
}
