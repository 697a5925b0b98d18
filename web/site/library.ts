// The /library page's island (docs/library.md, docs/pages.md). The Worker sends the finished page:
// signed out, the link form; signed in, the purchases. This brings it to life without React: the
// emailed link's 'Open my library' (its token is in the fragment, which no server sees; nothing is
// used up until the button is pressed), the forms, 'Sign out', 'Show more', and each purchase's
// controls once its card nears the viewport.
import "./common";
import { LIBRARY_ENDED_PARAM, LIBRARY_PAGE_TEXT as T, LIBRARY_PART as PART } from "@shared/library-text";
import { api } from "@/lib/api";
import { openWhenSeen } from "./library-access";
import { wireChangeEmail, wireLinkForm } from "./library-forms";
import { copy, failedBecause, is401, part, sessionEnded, setBusy, withoutStatus } from "./library-kit";

/** The emailed link's token, from the fragment (which no server sees). */
function linkToken(): string | null {
  const token = new URLSearchParams(location.hash.slice(1)).get("token");
  return token && token.length <= 200 ? token : null;
}

/**
 * The emailed link's page: 'Open my library' uses the token up (nothing is used until it is pressed,
 * so a mail scanner opening the link uses nothing); a used or expired link offers a new one. Returns
 * what shows it for the token in the address (on load, and when a link opens in this same page).
 */
function wireOpen(): () => void {
  const open = part(PART.open);
  const invalid = part(PART.invalid);
  const button = open?.querySelector("button");
  if (!open || !invalid || !button) return () => {};
  let token: string | null = null;
  button.addEventListener("click", async () => {
    if (!token) return;
    const alert = open.querySelector<HTMLElement>("[role=alert]")!;
    alert.textContent = "";
    setBusy(button, true);
    try {
      await api("POST /api/library/session", { body: { token } });
      // The token leaves the address bar; the Worker renders the library for the new cookie.
      location.replace("/library");
    } catch (err) {
      setBusy(button, false);
      const message = err instanceof Error ? err.message : "";
      if (!message.startsWith("400: ")) {
        alert.textContent = withoutStatus(message);
        return;
      }
      history.replaceState(history.state, "", "/library");
      const slot = invalid.querySelector("[data-testid=library-link-invalid]");
      const form = part<HTMLFormElement>(PART.linkForm);
      if (slot && form && !slot.contains(form)) {
        const label = form.querySelector("button[type=submit] span");
        if (label) label.textContent = T.requestNewLink;
        part(PART.linkSent)?.remove();
        form.hidden = false;
        slot.append(form);
      }
      open.hidden = true;
      invalid.hidden = false;
    }
  });
  return () => {
    token = linkToken();
    if (!token) return;
    for (const name of [PART.signIn, PART.signedIn, PART.invalid]) {
      const el = part(name);
      if (el) el.hidden = true;
    }
    open.hidden = false;
  };
}

function signedOut() {
  const params = new URLSearchParams(location.search);
  // The note is for this visit: a reload (or a bookmark) does not say it again.
  if (params.has(LIBRARY_ENDED_PARAM)) history.replaceState(history.state, "", `/library${location.hash}`);
}

/** Wires what a page of purchases holds (the first, or one 'Show more' brought). */
function wirePurchases(scope: ParentNode) {
  openWhenSeen(scope);
  for (const popover of scope.querySelectorAll<HTMLElement>(`[data-part="${PART.changeEmail}"]`))
    wireChangeEmail(popover);
  // Copying needs this script: its buttons show now (inside closed receipts, so nothing moves).
  for (const button of scope.querySelectorAll<HTMLElement>(`[data-part="${PART.copy}"][hidden]`)) button.hidden = false;
}

/** 'Show more': the next page as the Worker renders it, its cards appended here. */
function wireMore(form: HTMLFormElement) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = form.querySelector<HTMLButtonElement>("button[type=submit]");
    const alert = form.querySelector<HTMLElement>("[role=alert]")!;
    const cursor = new FormData(form).get("cursor");
    alert.textContent = "";
    setBusy(button, true);
    try {
      const res = await fetch(`/library?cursor=${encodeURIComponent(String(cursor))}`, { credentials: "same-origin" });
      if (!res.ok) throw new Error(`${res.status}: ${res.statusText}`);
      const next = new DOMParser().parseFromString(await res.text(), "text/html");
      const items = part(PART.list, next);
      if (!items) return part(PART.signIn, next) ? sessionEnded() : form.remove();
      const list = part(PART.list)!;
      const added = [...items.children];
      list.append(...added);
      for (const item of added) wirePurchases(item);
      const more = part<HTMLFormElement>(PART.more, next);
      if (more) {
        form.replaceWith(more);
        wireMore(more);
      } else form.remove();
    } catch (err) {
      alert.textContent = `${T.moreFailed} ${withoutStatus(err instanceof Error ? err.message : "")}`.trim();
      setBusy(button, false);
    }
  });
}

function signedIn() {
  const signOut = part<HTMLFormElement>(PART.signOut)!;
  signOut.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = signOut.querySelector("button");
    const failed = part(PART.signOutFailed);
    if (failed) failed.hidden = true;
    setBusy(button, true);
    try {
      await api("POST /api/library/sign-out");
      location.replace("/library");
    } catch (err) {
      setBusy(button, false);
      if (failed) {
        failed.textContent = `${T.signOutFailed} ${failedBecause(err)}`;
        failed.hidden = false;
      }
    }
  });
  wirePurchases(document);
  const more = part<HTMLFormElement>(PART.more);
  if (more) wireMore(more);
  // Back to the tab: a session that ended meanwhile (expired, signed out elsewhere) returns to sign-in.
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState !== "visible") return;
    api("GET /api/library/session").catch((err) => {
      if (is401(err)) sessionEnded();
    });
  });
}

document.addEventListener("click", (event) => {
  const button =
    event.target instanceof Element ? event.target.closest<HTMLElement>(`[data-part="${PART.copy}"]`) : null;
  if (button?.dataset.copy) void copy(button.dataset.copy, button.dataset.what ?? "");
});

for (const form of document.querySelectorAll<HTMLFormElement>(`form[data-part="${PART.linkForm}"]`)) wireLinkForm(form);
if (part(PART.signOut)) signedIn();
else if (part(PART.signIn)) signedOut();
const showOpen = wireOpen();
showOpen();
addEventListener("hashchange", showOpen);
