// The buyer's success page (/success, spec §2): the words the Worker's HTML (worker/pages/success.tsx)
// and its island (web/site/success.ts) both print, the parts the island finds, and what the page hands
// it. docs/pages.md.
import type { PurchaseVerification } from "./payments";

/** The island's data, inside <script type="application/json" id={SUCCESS_DATA_ID}>. */
export const SUCCESS_DATA_ID = "success-data";

/** `data-part` names of what the island changes. */
export const SUCCESS_PART = {
  toasts: "toasts",
  verifying: "verifying",
  download: "download",
  copyLink: "copy-link",
  copyLicense: "copy-license",
  receiptBanner: "receipt-banner",
  emailLine: "email-line",
  sendEmail: "send-email",
  changeEmail: "change-email",
  lostAccess: "lost-access",
} as const;

/**
 * What the page hands its island. Paid: the purchase's ids, its permanent link (and each add-on's, to
 * remember in this browser), the PaymentIntent it was asked by, and whether the receipt's word is
 * still to come. Verifying: the verify call's query to ask again with.
 */
export type SuccessData =
  | {
      state: "paid";
      purchaseId: string;
      contentId: string;
      accessUrl: string;
      addOns: string[];
      paymentIntent?: string;
      awaitingReceipt: boolean;
      hadAddress: boolean;
    }
  | { state: "verifying"; query: string };

/** A toast's title and text. */
type Toast = { title: string; description: string };

export const SUCCESS_TEXT = {
  verifying: { title: "Verifying Your Purchase", description: "Please wait while we confirm your payment..." },
  notFound: {
    title: "Purchase Not Found",
    intro: "We couldn't find this purchase. This can happen when:",
    causes: [
      "the payment is still processing (try again in a minute),",
      "the link has expired or is incomplete,",
      "there was an error with the transaction.",
    ],
    home: "Back to Home",
  },
  paid: "Payment Successful!",
  copyLink: "Copy Access Link",
  emailTitle: "Email Access Link",
  sendAgain: "Send it again",
  sent: "Sent",
  info: [
    "Your access link is permanent and won't expire.",
    "Bookmark this page to come back to your purchase anytime.",
    "You can request an email reminder of your link anytime.",
  ],
  toast: {
    copied: { title: "Link Copied", description: "Access link copied to clipboard." },
    copyFailed: { title: "Copy Failed", description: "Could not copy link to clipboard." },
    emailSent: { title: "Email Sent", description: "Access instructions have been sent to your email." },
    emailFailed: { title: "Email Failed", description: "Could not send email reminder." },
    downloadStarted: { title: "Download Started", description: "Your file is being downloaded." },
    downloadFailed: { title: "Download Failed", description: "There was an error downloading your file." },
    licenseCopied: { title: "Copied", description: "License key copied to the clipboard." },
    licenseCopyFailed: { title: "Copy failed", description: "Select the key and copy it by hand." },
  } satisfies Record<string, Toast>,
  changeEmailFailed: "We couldn't change the email. Check your connection and try again.",
  invalidEmail: "Enter a valid email address",
} as const;

/** The info box's last line: support finds the order by its id. */
export const supportLine = (purchaseId: string) => `Need help? Contact support with your order number #${purchaseId}.`;

/** The email card's line: where the receipt went, or why none did. */
export function emailLine(purchase: PurchaseVerification["purchase"]): string {
  if (!purchase.emailedTo) return "No email address is on this order: copy your access link to keep it.";
  if (purchase.receiptHeld)
    return "We didn't email a receipt for this order: copy your access link to come back to it.";
  return `We emailed your receipt and access link to ${purchase.emailedTo}.`;
}

/** The bounced receipt's banner, or null when there is none to show (a bounce at an old address is old news). */
export function bouncedReceipt(v: PurchaseVerification): { heading: string; text: string } | null {
  const { receipt } = v;
  if (receipt?.state !== "bounced" || !receipt.current) return null;
  const what = v.purchase.canChangeEmail
    ? "Check the address for a typo and change it below if it's wrong."
    : "If the address is wrong, contact the creator with your order number.";
  return {
    heading: `We couldn't reach ${receipt.to}.`,
    text: `Your receipt and access link bounced. ${what} Your access on this page works either way: copy the access link to keep it.`,
  };
}

/** Whether the receipt's word is still to come: none recorded, unconfirmed, or not yet to the order's current address. */
export const awaitingReceipt = ({ receipt, purchase }: PurchaseVerification) =>
  !!purchase.emailedTo && (!receipt || receipt.state === "sent" || receipt.state === "delayed" || !receipt.current);

/** What the change-email form says once it worked. */
export const emailChanged = (changed: boolean, address: string, hadAddress: boolean) =>
  changed
    ? `Done: your receipt and access link are on their way to ${address}.${hadAddress ? " We told the old address about the change." : ""}`
    : `${address} is already the email on this order: nothing changed.`;
