// The library island's small DOM helpers (docs/library.md): finding the page's parts, copying the
// controls the Worker drew in its <template>s (worker/pages/library.tsx), toasts, busy buttons.
import { LIBRARY_ENDED_PARAM, LIBRARY_PART as PART, LIBRARY_TOAST } from "@shared/library-text";

export const part = <T extends HTMLElement = HTMLElement>(name: string, scope: ParentNode = document) =>
  scope.querySelector<T>(`[data-part="${name}"]`);

/** A copy of the control `name` from the page's kit (null when this page has none). */
export function kit<T extends HTMLElement = HTMLElement>(name: string): T | null {
  for (const template of document.querySelectorAll<HTMLTemplateElement>(`template[data-part="${PART.kit}"]`)) {
    const found = template.content.querySelector<T>(`[data-kit="${name}"]`);
    if (found) {
      const copy = found.cloneNode(true) as T;
      copy.removeAttribute("data-kit");
      return copy;
    }
  }
  return null;
}

/** One toast at a time, as the app's: `destructive` for a failure. */
export function toast(message: { title: string; description: string }, destructive = false) {
  const list = part(PART.toasts);
  const item = kit<HTMLLIElement>("toast");
  if (!list || !item) return;
  const [title, text] = item.querySelectorAll("div");
  title.textContent = message.title;
  text.textContent = message.description;
  if (destructive) item.dataset.variant = "destructive";
  list.replaceChildren(item);
  setTimeout(() => item.remove(), 5000);
}

/** A button's busy state: disabled, its spinner shown in place of its icon (the width stays). */
export function setBusy(button: HTMLButtonElement | null | undefined, busy: boolean) {
  if (!button) return;
  button.disabled = busy;
  button.setAttribute("aria-busy", String(busy));
  const icons = button.querySelectorAll(":scope > svg");
  const spinner = [...icons].find((svg) => svg.classList.contains("animate-spin"));
  for (const svg of icons) svg.classList.toggle("hidden", svg === spinner ? !busy : busy);
}

/** "403: message" → "message". */
export const withoutStatus = (message: string) => message.replace(/^\d{3}: /, "");

/** Why a call failed, for a person: the server's message, or the network's. */
export const failedBecause = (err: unknown) => {
  const message = err instanceof Error ? err.message : "";
  return /^\d{3}: /.test(message)
    ? `${withoutStatus(message).replace(/\.$/, "")}. Try again.`
    : "Check your connection and try again.";
};

/** The session ended under the page (expired, or signed out elsewhere): back to sign-in, with the note. */
export function sessionEnded(): void {
  location.replace(`/library?${LIBRARY_ENDED_PARAM}=1`);
}

/** A library read answering 401 means the session ended; the caller still sees the failure. */
export const is401 = (err: unknown) => err instanceof Error && err.message.startsWith("401: ");

/** Copies `text`, and says so. */
export async function copy(text: string, what: string) {
  try {
    await navigator.clipboard.writeText(text);
    toast(LIBRARY_TOAST.copied(what));
  } catch {
    toast(LIBRARY_TOAST.copyFailed, true);
  }
}
