// The sign-in page's island (docs/pages.md): the form the Worker drew (worker/pages/sign-in.tsx) sent
// through POST /api/auth/email with the bot check's token, its errors beside the field, and the
// "Check your email" state, where this tab watches for the session and continues by itself once the
// visitor has opened the link (here or in another tab). No React, no router.
import "./common";
import { HUMAN_CHECK_ACTIONS } from "@shared/human-check";
import type { SessionProbe } from "@shared/auth";
import { SIGN_IN_PART as PART, SIGN_IN_TEXT as T } from "@shared/sign-in";
import { api, withoutStatus } from "@/lib/api";
import { EMAIL } from "@/paywall/dom";
import { formCheck } from "./form-check";

/** How often the "Check your email" state asks whether the link was opened. */
const POLL_MS = 2000;

const part = <E extends HTMLElement = HTMLElement>(name: string) => document.querySelector<E>(`[data-part="${name}"]`);

const form = part<HTMLFormElement>(PART.form);
const input = part<HTMLInputElement>(PART.email);
const emailError = part(PART.emailError);
const formError = part(PART.formError);
const send = part<HTMLButtonElement>(PART.send);
const slot = part(PART.humanCheck);
const formPanel = part(PART.formPanel);
const sentPanel = part(PART.sentPanel);

/** A message under the field (`field`) or under the form; null clears both. */
function showError(where: "field" | "form" | null, message = "") {
  if (emailError) {
    emailError.hidden = where !== "field";
    emailError.textContent = where === "field" ? message : "";
  }
  if (formError) {
    formError.hidden = where !== "form";
    formError.textContent = where === "form" ? message : "";
  }
  if (input) {
    if (where === "field") {
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", emailError?.id ?? "");
    } else {
      input.removeAttribute("aria-invalid");
      input.removeAttribute("aria-describedby");
    }
  }
}

function setBusy(busy: boolean) {
  if (!send) return;
  send.disabled = busy;
  send.setAttribute("aria-busy", String(busy));
  const [idle, spinner] = send.querySelectorAll("svg");
  idle?.classList.toggle("hidden", busy);
  spinner?.classList.toggle("hidden", !busy);
}

let poll: ReturnType<typeof setInterval> | undefined;

/** Signed in (the link opened here or in another tab): on to where the visitor was going. */
async function continueIfSignedIn(returnTo: string) {
  try {
    const res = await fetch("/api/auth/me", { credentials: "same-origin" });
    const probe = res.ok ? ((await res.json()) as SessionProbe) : null;
    if (probe?.user) {
      clearInterval(poll);
      location.replace(returnTo);
    }
  } catch {
    // Offline for a moment: the next tick asks again.
  }
}

function showSent(email: string, returnTo: string) {
  const to = part(PART.sentTo);
  if (to) to.textContent = email;
  // The sentence after the address: this tab does continue by itself.
  const after = part(PART.sentAfter);
  if (after) after.textContent = T.sentAfter;
  const waiting = part(PART.waiting);
  if (waiting) waiting.hidden = false;
  if (formPanel) formPanel.hidden = true;
  if (sentPanel) sentPanel.hidden = false;
  clearInterval(poll);
  poll = setInterval(() => void continueIfSignedIn(returnTo), POLL_MS);
}

function showForm() {
  clearInterval(poll);
  if (sentPanel) sentPanel.hidden = true;
  if (formPanel) formPanel.hidden = false;
  input?.focus();
}

if (form && input && slot) {
  const check = formCheck(HUMAN_CHECK_ACTIONS.signIn, form, slot);
  const returnTo = (form.elements.namedItem("returnTo") as HTMLInputElement | null)?.value || "/";
  input.addEventListener("input", () => showError(null));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const email = input.value.trim();
    if (!EMAIL.test(email) || email.length > 254) {
      showError("field", T.emailInvalid);
      input.focus();
      return;
    }
    showError(null);
    setBusy(true);
    try {
      await check.send((headers) => api("POST /api/auth/email", { body: { email, returnTo }, headers }));
      showSent(email.toLowerCase(), returnTo);
    } catch (err) {
      const message = withoutStatus(err instanceof Error ? err.message : String(err));
      // The server names the field in a 400 ("email: …"); anything else (403, 429, 5xx, the network) under the form.
      if (err instanceof Error && /^400: email\b/.test(err.message)) showError("field", T.emailInvalid);
      else showError("form", message);
    } finally {
      setBusy(false);
    }
  });
  part(PART.again)?.addEventListener("click", (event) => {
    event.preventDefault();
    showForm();
  });
}
// Back to this page from the browser's history after a form post: nothing is left busy.
addEventListener("pageshow", () => setBusy(false));
