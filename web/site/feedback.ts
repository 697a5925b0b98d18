// The feedback page's island (docs/pages.md): the form the Worker drew (worker/pages/feedback.tsx)
// checked as the SPA checked it (spec §5: the missing fields beside each, the "Missing Information"
// toast), sent through POST /api/feedback with the bot check's token, then the confirmation. A
// signed-in creator's address is filled in once known (spec §5), in a field already drawn: nothing moves.
import "./common";
import { HUMAN_CHECK_ACTIONS } from "@shared/human-check";
import type { SessionProbe } from "@shared/auth";
import { FEEDBACK_PART as PART, FEEDBACK_TEXT as T } from "@shared/feedback-page";
import { api } from "@/lib/api";
import { EMAIL } from "@/paywall/dom";
import { formCheck } from "./form-check";
import { showToast } from "@/lib/dom-toast";

type Field = "type" | "priority" | "subject" | "message" | "email";
const FIELDS: Field[] = ["type", "priority", "subject", "message", "email"];

const part = <E extends HTMLElement = HTMLElement>(name: string) => document.querySelector<E>(`[data-part="${name}"]`);
const control = (field: Field) =>
  document.getElementById(`fb-${field}`) as HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement | null;
const errorOf = (field: string) => document.getElementById(`fb-${field}-error`);
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** One toast at a time, as the app's destructive toast (the paywall's, web/paywall/island.ts). */
const toast = (title: string, description: string) => showToast(part(PART.toasts), { title, description }, true);

/** A message beside its field (or under the form for "form"); empty clears it. */
function setError(field: Field | "form", message: string) {
  const note = field === "form" ? part(PART.formError) : errorOf(field);
  if (note) {
    note.hidden = !message;
    note.textContent = message;
  }
  const input = field === "form" ? null : control(field);
  if (!input) return;
  if (message) {
    input.setAttribute("aria-invalid", "true");
    input.setAttribute("aria-describedby", `fb-${field}-error`);
  } else {
    input.removeAttribute("aria-invalid");
    input.removeAttribute("aria-describedby");
  }
}

const clearErrors = () => {
  for (const f of FIELDS) setError(f, "");
  setError("form", "");
};

/** The form's values as the API takes them (trimmed, as its schema trims). */
function draft() {
  const value = (f: Field) => control(f)?.value ?? "";
  return {
    type: value("type"),
    priority: value("priority") || "medium",
    subject: value("subject").trim(),
    message: value("message").trim(),
    email: value("email").trim(),
  };
}

/** The schema's rules (shared/feedback.ts) without zod: the problems by field. */
function problems(d: ReturnType<typeof draft>): Partial<Record<Field, string>> {
  const out: Partial<Record<Field, string>> = {};
  if (!d.type) out.type = "Type is required";
  if (!d.subject) out.subject = "Subject is required";
  if (!d.message) out.message = "Message is required";
  if (d.email && (!EMAIL.test(d.email) || d.email.length > 254)) out.email = "Enter a valid email address";
  return out;
}

/** The API's 400 ("field: problem; other: problem") onto the fields it names; false when it names none. */
function serverProblems(message: string): boolean {
  let placed = false;
  for (const piece of message.replace(/^400: /, "").split("; ")) {
    const named = /^([a-z]+)(?:[.[][^:]*)?: (.+)$/s.exec(piece);
    const worded = /^([a-z]+) (?:must|is|are) /.exec(piece);
    const field = (named?.[1] ?? worded?.[1]) as Field | undefined;
    if (field && FIELDS.includes(field)) {
      setError(field, capital(named ? named[2] : piece));
      placed = true;
    }
  }
  return placed;
}

const form = part<HTMLFormElement>(PART.form);
const submit = part<HTMLButtonElement>(PART.submit);
const slot = part(PART.humanCheck);
const formPanel = part(PART.formPanel);
const sentPanel = part(PART.sentPanel);
let userEmail = "";

function setBusy(busy: boolean) {
  if (!submit) return;
  submit.disabled = busy;
  submit.setAttribute("aria-busy", String(busy));
  submit.querySelector("svg")?.classList.toggle("hidden", !busy);
}

if (form && slot) {
  const check = formCheck(HUMAN_CHECK_ACTIONS.feedback, form, slot);
  for (const f of FIELDS) {
    control(f)?.addEventListener(f === "type" || f === "priority" ? "change" : "input", () => {
      setError(f, "");
      setError("form", "");
    });
  }
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const d = draft();
    clearErrors();
    const found = problems(d);
    const fields = Object.keys(found) as Field[];
    if (fields.length) {
      for (const f of fields) setError(f, found[f] ?? "");
      control(fields[0])?.focus();
      if (found.type || found.subject || found.message) toast(T.missingTitle, T.missing);
      return;
    }
    setBusy(true);
    try {
      await check.send((headers) =>
        api("POST /api/feedback", { body: { ...d, priority: d.priority as "medium" }, headers }),
      );
      form.reset();
      part(PART.toasts)?.replaceChildren();
      const email = control("email");
      if (email) email.value = userEmail;
      if (formPanel) formPanel.hidden = true;
      if (sentPanel) sentPanel.hidden = false;
    } catch (err) {
      const message = err instanceof Error ? err.message : "";
      // Beside its field when the server names one; any other 4xx under the form (a refused bot check:
      // the widget already has a fresh token for the next try; the rate limit); a 5xx or the network: the toast.
      if (/^4\d\d: /.test(message)) {
        if (!serverProblems(message)) setError("form", message.slice(5));
        return;
      }
      toast(T.failedTitle, T.failed);
    } finally {
      setBusy(false);
    }
  });
  part(PART.more)?.addEventListener("click", (event) => {
    event.preventDefault();
    if (sentPanel) sentPanel.hidden = true;
    if (formPanel) formPanel.hidden = false;
  });
}

/** A signed-in creator's address, filled in where the field is still empty (spec §5). */
async function prefillEmail() {
  try {
    const res = await fetch("/api/auth/me", { credentials: "same-origin" });
    const probe = res.ok ? ((await res.json()) as SessionProbe) : null;
    userEmail = probe?.user?.email ?? "";
    const email = control("email");
    if (userEmail && email && !email.value) email.value = userEmail;
  } catch {
    // Offline or refused: the field stays empty, as for a visitor.
  }
}
void prefillEmail();
// Back to this page from the browser's history: nothing is left busy.
addEventListener("pageshow", () => setBusy(false));
