// Where a creator's payouts go is protected like an API key: a change needs a recent sign-in, is
// audited and is emailed to the account's address (worker/services/payouts/destination-settings.ts).

/** A change of the manual method, its email or the default needs a sign-in younger than this. */
export const PAYOUT_DESTINATION_RECENT_SIGN_IN_MS = 10 * 60 * 1000;

export const PAYOUT_DESTINATION_MESSAGES = {
  signInAgain:
    "For your security, sign in again to change where your payouts go: your last sign-in was more than 10 minutes ago.",
  changedMeanwhile:
    "Your payout settings were changed at the same moment from somewhere else. Reload the page and try again.",
  connectSignInAgain:
    "For your security, sign in again to connect a bank account: your last sign-in was more than 10 minutes ago.",
} as const;

/** The names the creator's screens and emails give each payout method. */
export const PAYOUT_METHOD_NAMES: Record<string, string> = {
  paypal: "PayPal",
  wise: "Wise",
  bank: "Bank account (Stripe)",
  zelle: "Zelle",
  venmo: "Venmo",
  cashapp: "Cash App",
};

/**
 * "p***@example.com": enough for the owner to recognise, too little for anyone else to use. `hidden`
 * stands for what is left out (a buyer's receipt line says "b…@example.com").
 */
export function maskEmail(email: string, hidden = "***"): string {
  const at = email.lastIndexOf("@");
  if (at < 1) return hidden;
  return `${Array.from(email)[0]}${hidden}${email.slice(at)}`;
}
