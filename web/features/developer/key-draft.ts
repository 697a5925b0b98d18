// What the creator typed into "Create API key", kept across the sign-in that creating a key may ask
// for (a session older than 10 minutes gets 403 "…sign in again…"). In localStorage, not
// sessionStorage: the emailed sign-in link may open in another tab. Only for the same account, only
// for half an hour, and only the name and scopes (never a key); cleared once shown.
import type { ApiKeyScope } from "@shared/developer";

export type KeyDraft = { userId: string; name: string; scopes: ApiKeyScope[]; savedAt: number };

const KEY = "apewall:api-key-draft";
const KEEP_MS = 30 * 60 * 1000;

export const needsSignInAgain = (message: string) => /^403: .*sign in again/i.test(message);

export function keepKeyDraft(draft: Omit<KeyDraft, "savedAt">) {
  try {
    localStorage.setItem(KEY, JSON.stringify({ ...draft, savedAt: Date.now() }));
  } catch {
    // Storage refused (private mode, full): the creator types it again.
  }
}

/** The draft `userId` left in the last half hour, if any (`clearKeyDraft` once it is shown). */
export function readKeyDraft(userId: string | undefined): KeyDraft | null {
  try {
    const raw = localStorage.getItem(KEY);
    const draft = raw ? (JSON.parse(raw) as KeyDraft) : null;
    return draft && draft.userId === userId && Date.now() - draft.savedAt < KEEP_MS && Array.isArray(draft.scopes)
      ? draft
      : null;
  } catch {
    return null;
  }
}

export function clearKeyDraft() {
  try {
    localStorage.removeItem(KEY);
  } catch {
    // Nothing was kept.
  }
}
