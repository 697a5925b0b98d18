// What every public page the Worker renders runs (docs/pages.md), a few hundred bytes: 'Sign In'
// becomes 'Dashboard' for a signed-in visitor (and 'Get Started Free' 'Go to Dashboard'), and the
// creator app's files are prefetched when the visitor shows intent (pointer over, focus on or touch
// of a link into the app: `a[data-spa]`), never before. Pages with an island of their own import this first.
import type { SessionProbe } from "@shared/auth";
import { SIGNED_IN_TEXT, SPA_ASSETS_ID } from "@shared/site";

let prefetched = false;
/** Asks the browser to fetch the SPA's entry files at low priority, once. */
function prefetchApp(): void {
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

/** What GET /api/auth/me says of this visitor, asked once per page (null: signed out, or not known). */
export const sessionProbe: Promise<SessionProbe | null> = fetch("/api/auth/me", { credentials: "same-origin" })
  .then((res) => (res.ok ? (res.json() as Promise<SessionProbe>) : null))
  // Offline or refused: the page stays as a signed-out visitor sees it.
  .catch(() => null);

/**
 * For a signed-in visitor: 'Sign In' becomes 'Dashboard' and a page's 'Get Started Free' 'Go to
 * Dashboard', both to / (their slots keep their width).
 */
async function showSignedIn() {
  if (!(await sessionProbe)?.user) return;
  for (const [part, text] of Object.entries(SIGNED_IN_TEXT)) {
    for (const link of document.querySelectorAll<HTMLAnchorElement>(`[data-part="${part}"]`)) {
      link.textContent = text;
      link.href = "/";
    }
  }
}
void showSignedIn();
