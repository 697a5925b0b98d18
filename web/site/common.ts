// What every public page the Worker renders runs (docs/pages.md), a few hundred bytes: 'Sign In'
// becomes 'Dashboard' for a signed-in visitor, and the creator app's files are prefetched when the
// visitor shows intent (pointer over, focus on or touch of a link into the app: `a[data-spa]`), never
// before. Pages with an island of their own import this first.
import type { SessionProbe } from "@shared/auth";
import { SITE_PART, SPA_ASSETS_ID } from "@shared/site";

let prefetched = false;
/** Asks the browser to fetch the SPA's entry files at low priority, once. */
export function prefetchApp(): void {
  if (prefetched) return;
  prefetched = true;
  let files: string[] = [];
  try {
    files = JSON.parse(document.getElementById(SPA_ASSETS_ID)?.textContent ?? "[]");
  } catch {
    return;
  }
  for (const href of files) {
    const link = document.createElement("link");
    link.rel = "prefetch";
    link.href = href;
    if (href.endsWith(".js")) link.as = "script";
    if (href.endsWith(".css")) link.as = "style";
    document.head.append(link);
  }
}

function onIntent(event: Event) {
  const target = event.target instanceof Element ? event.target.closest("a[data-spa], [data-spa-intent]") : null;
  if (target) prefetchApp();
}
for (const type of ["pointerover", "focusin", "touchstart"]) {
  document.addEventListener(type, onIntent, { passive: true, capture: true });
}

/** The top bar for a signed-in visitor: 'Dashboard' to / in place of 'Sign In' (the slot keeps its width). */
async function showSignedIn() {
  const link = document.querySelector<HTMLAnchorElement>(`[data-part="${SITE_PART.signIn}"]`);
  if (!link) return;
  try {
    const res = await fetch("/api/auth/me", { credentials: "same-origin" });
    const probe = res.ok ? ((await res.json()) as SessionProbe) : null;
    if (!probe?.user) return;
    link.textContent = "Dashboard";
    link.href = "/";
  } catch {
    // Offline or refused: the page stays as a signed-out visitor sees it.
  }
}
void showSignedIn();
