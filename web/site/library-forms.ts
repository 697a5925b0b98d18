// The library's two forms anyone may send, with the bot check (docs/security.md, "Bot protection"):
// "Email me a sign-in link" (POST /api/library/link) and a purchase's 'Change email' (POST
// /api/purchases/{id}/email). Turnstile's code loads only once the visitor heads for a form.
// docs/library.md.
import {
  HUMAN_CHECK_ACTIONS,
  HUMAN_CHECK_HEADER,
  HUMAN_CHECK_REFUSED,
  HUMAN_CHECK_UNAVAILABLE,
  type HumanCheckAction,
} from "@shared/human-check";
import { LIBRARY_PAGE_TEXT as T, LIBRARY_PART as PART, LIBRARY_TEXT, LIBRARY_TOAST } from "@shared/library-text";
import { LOST_ACCESS_TEXT, lostAccessProblem } from "@shared/paywall";
import type { HumanCheck } from "@/lib/human-check";
import { api } from "@/lib/api";
import { is401, kit, part, sessionEnded, setBusy, toast, withoutStatus } from "./library-kit";

const REFUSED = `403: ${HUMAN_CHECK_REFUSED}`;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The form's bot check, its widget drawn in a slot above the form's message; loaded on first intent. */
function humanCheckFor(form: HTMLFormElement, action: HumanCheckAction): () => Promise<HumanCheck> {
  let check: Promise<HumanCheck> | undefined;
  const slot = document.createElement("div");
  slot.dataset.testid = "human-check";
  form.querySelector("[role=alert]")?.before(slot);
  const start = () =>
    (check ??= import("@/lib/human-check")
      .then(({ createHumanCheck }) => {
        const made = createHumanCheck(action);
        made.mount(slot);
        return made;
      })
      .catch((err) => {
        check = undefined;
        throw err;
      }));
  for (const type of ["pointerenter", "pointerdown", "focusin"])
    form.addEventListener(type, () => void start().catch(() => {}), { once: true });
  return start;
}

/** `request` with the check's token (once more with a fresh one if refused); without one if its code did not load. */
async function sendChecked<T>(
  check: () => Promise<HumanCheck>,
  request: (headers: Record<string, string>) => Promise<T>,
): Promise<T> {
  let made: HumanCheck;
  try {
    made = await check();
  } catch {
    return request({ [HUMAN_CHECK_HEADER]: HUMAN_CHECK_UNAVAILABLE });
  }
  return made.send(request);
}

/** Shows `message` in the form's alert, and marks its field. */
function problem(form: HTMLFormElement, message: string) {
  const alert = form.querySelector<HTMLElement>("[role=alert]");
  const input = form.querySelector("input[type=email]");
  if (alert) alert.textContent = message;
  if (message) input?.setAttribute("aria-invalid", "true");
  else input?.removeAttribute("aria-invalid");
}

/** "Email me a sign-in link": the same answer for any address, so it says only that a link is on its way. */
export function wireLinkForm(form: HTMLFormElement) {
  const check = humanCheckFor(form, HUMAN_CHECK_ACTIONS.libraryLink);
  const input = form.querySelector<HTMLInputElement>("input[type=email]")!;
  const submit = form.querySelector<HTMLButtonElement>("button[type=submit]")!;
  input.addEventListener("input", () => problem(form, ""));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const email = input.value.trim();
    if (!email) return problem(form, LOST_ACCESS_TEXT.emptyEmail);
    problem(form, "");
    setBusy(submit, true);
    try {
      const answer = await sendChecked(check, (headers) => api("POST /api/library/link", { body: { email }, headers }));
      const sent = kit("sent")?.firstElementChild as HTMLElement | null | undefined;
      if (!sent) return;
      sent.querySelector("span > span")!.textContent = answer.message ?? LIBRARY_TEXT.linkSent;
      // 'Use another address' brings the form back as it was, without a page load.
      sent.querySelector("a")!.addEventListener("click", (e) => {
        e.preventDefault();
        sent.remove();
        form.hidden = false;
        input.focus();
      });
      // The form stays (hidden): a link opened in this page may need it again ('Email me a new link').
      form.hidden = true;
      form.after(sent);
    } catch (err) {
      const text = err instanceof Error ? err.message : "";
      problem(form, text === REFUSED ? HUMAN_CHECK_REFUSED : lostAccessProblem(text));
    } finally {
      setBusy(submit, false);
    }
  });
}

/** The purchase's card leaves the list (its email moved it to another library); none left: the empty state. */
function leaveList(id: string) {
  document.querySelector(`[data-purchase-id="${id}"]`)?.closest("li")?.remove();
  const list = part(PART.list);
  if (list && !list.querySelector("li")) {
    list.remove();
    part(PART.more)?.remove();
    const empty = part(PART.empty);
    if (empty) empty.hidden = false;
  }
}

/** 'Change email' in a purchase's popover: moves it (its receipts and its place) to another address. */
export function wireChangeEmail(popover: HTMLElement) {
  const id = popover.dataset.id!;
  const form = popover.querySelector("form")!;
  const input = form.querySelector<HTMLInputElement>("input[type=email]")!;
  const submit = form.querySelector<HTMLButtonElement>("button[type=submit]")!;
  const check = humanCheckFor(form, HUMAN_CHECK_ACTIONS.purchaseEmail);
  submit.disabled = false;
  popover.addEventListener("toggle", (event) => {
    if ((event as ToggleEvent).newState !== "open") return;
    void check().catch(() => {});
    input.focus();
  });
  input.addEventListener("input", () => problem(form, ""));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const email = input.value.trim().toLowerCase();
    if (!EMAIL.test(email) || email.length > 254) return problem(form, T.invalidEmail);
    problem(form, "");
    setBusy(submit, true);
    try {
      const answer = await sendChecked(check, (headers) =>
        api("POST /api/purchases/:id/email", { params: { id }, body: { email }, headers }),
      );
      popover.hidePopover();
      toast(answer.changed ? LIBRARY_TOAST.emailChanged(email) : LIBRARY_TOAST.nothingToChange(email));
      if (answer.changed) leaveList(id);
    } catch (err) {
      if (is401(err)) return sessionEnded();
      const text = err instanceof Error ? err.message : "";
      problem(form, text === REFUSED ? HUMAN_CHECK_REFUSED : withoutStatus(text).replace(/^email: /, ""));
    } finally {
      setBusy(submit, false);
    }
  });
}
