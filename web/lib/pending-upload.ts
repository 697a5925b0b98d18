// The landing's pending upload intent (spec §3): kept in sessionStorage before sign-in. It is
// mirrored to localStorage for an hour because the emailed sign-in link often opens in a new tab,
// which has a fresh sessionStorage; taking it clears both.
export type PendingUpload =
  | { kind: "file"; uploadFile: { name: string; size: number; type: string } }
  | { kind: "link"; uploadLink: string }
  | { kind: "text"; uploadText: string };

const KEYS = ["uploadFile", "uploadLink", "uploadText"] as const;
const MIRROR_KEY = "apewall.pendingUpload";
const MIRROR_TTL_MS = 60 * 60 * 1000;

export function savePendingUpload(intent: PendingUpload): void {
  clearPendingUpload();
  if (intent.kind === "file") sessionStorage.setItem("uploadFile", JSON.stringify(intent.uploadFile));
  if (intent.kind === "link") sessionStorage.setItem("uploadLink", intent.uploadLink);
  if (intent.kind === "text") sessionStorage.setItem("uploadText", intent.uploadText);
  localStorage.setItem(MIRROR_KEY, JSON.stringify({ intent, savedAt: Date.now() }));
}

export function peekPendingUpload(): PendingUpload | null {
  try {
    const file = sessionStorage.getItem("uploadFile");
    if (file) return { kind: "file", uploadFile: JSON.parse(file) };
    const link = sessionStorage.getItem("uploadLink");
    if (link) return { kind: "link", uploadLink: link };
    const text = sessionStorage.getItem("uploadText");
    if (text) return { kind: "text", uploadText: text };
    const mirror = JSON.parse(localStorage.getItem(MIRROR_KEY) ?? "null") as {
      intent: PendingUpload;
      savedAt: number;
    } | null;
    if (mirror && Date.now() - mirror.savedAt < MIRROR_TTL_MS) return mirror.intent;
  } catch {
    // Storage unavailable or corrupt: there is no intent to restore.
  }
  return null;
}

export function clearPendingUpload(): void {
  for (const key of KEYS) sessionStorage.removeItem(key);
  localStorage.removeItem(MIRROR_KEY);
}
