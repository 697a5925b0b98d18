// What the creator typed into payout setup, kept across the sign-in that a change of where payouts
// go may ask for (a session older than 10 minutes gets 403 "…sign in again…"). In localStorage, not
// sessionStorage: the emailed sign-in link may open in another tab. Only for the same account, and
// only for half an hour; cleared once shown.
export type PayoutDraft = { userId: string; payoutMethod: string; payoutEmail: string; savedAt: number };

const KEY = "apewall:payout-draft";
const KEEP_MS = 30 * 60 * 1000;

export const needsSignInAgain = (error: unknown) =>
  error instanceof Error && /^403: .*sign in again/i.test(error.message);

export function keepDraft(draft: Omit<PayoutDraft, "savedAt">) {
  try {
    localStorage.setItem(KEY, JSON.stringify({ ...draft, savedAt: Date.now() }));
  } catch {
    // Storage refused (private mode, full): the creator types it again.
  }
}

/** The draft of `userId`, if one was kept in the last half hour (`clearDraft` once it is shown). */
export function readDraft(userId: string): PayoutDraft | null {
  try {
    const raw = localStorage.getItem(KEY);
    const draft = raw ? (JSON.parse(raw) as PayoutDraft) : null;
    return draft && draft.userId === userId && Date.now() - draft.savedAt < KEEP_MS ? draft : null;
  } catch {
    return null;
  }
}

export function clearDraft() {
  try {
    localStorage.removeItem(KEY);
  } catch {
    // Nothing was kept.
  }
}

/** Signs out, then asks for a sign-in that comes back to payout setup. */
export async function signInAgain() {
  await fetch("/api/logout", { method: "POST", credentials: "include" }).catch(() => undefined);
  window.location.assign(`/sign-in?returnTo=${encodeURIComponent("/settings#payout-setup")}`);
}
