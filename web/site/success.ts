// The success page's island (docs/pages.md). The Worker sends the finished page
// (worker/pages/success.tsx); this adds, with no React: asking again while a payment is on its way,
// the permanent link kept in the address bar and remembered in this browser, 'Copy Access Link', the
// signed-URL download with its toast, 'Send it again', 'Wrong email? Change it' (its bot check loads
// when the form opens), the receipt's word as it comes, and "Lost your access?".
import "./common";
import { HUMAN_CHECK_ACTIONS, HUMAN_CHECK_REFUSED } from "@shared/human-check";
import type { PurchaseVerification } from "@shared/payments";
import {
  awaitingReceipt,
  bouncedReceipt,
  emailChanged,
  emailLine,
  SUCCESS_DATA_ID,
  SUCCESS_PART as PART,
  SUCCESS_TEXT as T,
  type SuccessData,
} from "@shared/success";
import { rememberAccess } from "@/lib/access-tokens";
import { api, withoutStatus } from "@/lib/api";
import { sendsLostAccess } from "@/lib/lost-access";
import { showToast, type ToastMessage } from "@/lib/dom-toast";

const part = <E extends HTMLElement = HTMLElement>(name: string, scope: ParentNode = document) =>
  scope.querySelector<E>(`[data-part="${name}"]`);
const parts = <E extends HTMLElement = HTMLElement>(name: string) =>
  Array.from(document.querySelectorAll<E>(`[data-part="${name}"]`));

/** One toast at a time (spec §4), as the app draws its toasts. */
const toast = (message: ToastMessage, destructive = false) => showToast(part(PART.toasts), message, destructive);

/** A button's busy state: disabled, its spinner (the first hidden svg) shown in place of its icon. */
function busy(button: HTMLButtonElement, on: boolean) {
  button.disabled = on;
  button.setAttribute("aria-busy", String(on));
  const [first, second] = button.querySelectorAll("svg");
  const spinner = second ?? first;
  if (second) first.classList.toggle("hidden", on);
  spinner?.classList.toggle("hidden", !on);
}

async function copy(text: string, ok: { title: string; description: string }, failed: typeof ok) {
  try {
    await navigator.clipboard.writeText(text);
    toast(ok);
  } catch {
    toast(failed, true);
  }
}

// ---- a payment on its way: ask again, then show the page as it now is ----
function verifying(query: string) {
  const since = Date.now();
  const ask = async () => {
    try {
      const res = await fetch(`/api/purchase/verify?${query}`, { credentials: "same-origin" });
      // Paid (200) or ended (403): the Worker draws the page as it now is.
      if (res.status === 200 || res.status === 403) return location.reload();
      if (res.status !== 409) return location.reload();
    } catch {
      // Offline for a moment: ask again.
    }
    setTimeout(ask, Date.now() - since < 60_000 ? 2000 : 15_000);
  };
  setTimeout(ask, 2000);
}

// ---- the paid page ----
function paid(data: Extract<SuccessData, { state: "paid" }>) {
  const { accessUrl, contentId } = data;
  const link = new URL(accessUrl, location.href);
  const access = link.searchParams.get("access") ?? undefined;
  // Keep the permanent link in the address bar (a bookmark or a refresh keeps working), and remember
  // it and each add-on's, so their paywalls open unlocked in this browser from now on.
  rememberAccess(contentId, accessUrl);
  for (const url of data.addOns) {
    const id = new URL(url, location.href).searchParams.get("content_id");
    if (id) rememberAccess(id, url);
  }
  if (location.search !== link.search) history.replaceState(history.state, "", link.pathname + link.search);

  for (const a of parts<HTMLAnchorElement>(PART.copyLink))
    a.addEventListener("click", (event) => {
      event.preventDefault();
      void copy(accessUrl, T.toast.copied, T.toast.copyFailed);
    });
  for (const b of parts<HTMLButtonElement>(PART.copyLicense)) {
    b.disabled = false;
    b.addEventListener("click", () => void copy(b.dataset.key ?? "", T.toast.licenseCopied, T.toast.licenseCopyFailed));
  }

  // A download asks for a short-lived signed URL and navigates to it: the file is an attachment, so the page stays.
  for (const form of parts<HTMLFormElement>(PART.download))
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const button = form.querySelector("button")!;
      busy(button, true);
      try {
        const { url } = await api("POST /api/content/:id/download", {
          params: { id: form.dataset.contentId ?? "" },
          body: form.dataset.access ? { access: form.dataset.access } : {},
        });
        const a = document.createElement("a");
        a.href = url;
        a.download = form.dataset.fileName ?? "";
        document.body.append(a);
        a.click();
        a.remove();
        toast(T.toast.downloadStarted);
      } catch {
        toast(T.toast.downloadFailed, true);
      } finally {
        busy(button, false);
      }
    });

  const send = part<HTMLButtonElement>(PART.sendEmail);
  if (send) {
    send.disabled = false;
    send.addEventListener("click", async () => {
      busy(send, true);
      try {
        await api("POST /api/purchase/send-access-email", {
          body: {
            paymentIntentId: data.paymentIntent ?? link.searchParams.get("payment_intent") ?? undefined,
            contentId,
            access,
          },
        });
        send.querySelector("span")!.textContent = T.sent;
        busy(send, false);
        send.disabled = true;
        toast(T.toast.emailSent);
      } catch (err) {
        busy(send, false);
        // A cheap order over the receipt cap (429) says why; anything else is a plain failure.
        const message = err instanceof Error ? err.message : "";
        toast(
          message.startsWith("429: ")
            ? { ...T.toast.emailFailed, description: withoutStatus(message) }
            : T.toast.emailFailed,
          true,
        );
      }
    });
  }

  // The receipt's word comes seconds after the page opens (or after a change of address): while it is
  // awaited, ask again every 3 s for a minute, and show a bounce.
  let polling: ReturnType<typeof setInterval> | undefined;
  const followReceipt = () => {
    clearInterval(polling);
    const since = Date.now();
    polling = setInterval(async () => {
      if (Date.now() - since > 60_000) return clearInterval(polling);
      try {
        const v = await api("GET /api/purchase/verify", { query: Object.fromEntries(link.searchParams) });
        showReceipt(v);
        if (!awaitingReceipt(v)) clearInterval(polling);
      } catch {
        // Ask again at the next tick.
      }
    }, 3000);
  };
  if (data.awaitingReceipt) followReceipt();

  changeEmail(data, followReceipt);
}

/** The email card's line and the bounce banner as the latest answer has them. */
function showReceipt(v: PurchaseVerification) {
  const line = part(PART.emailLine);
  if (line) line.textContent = emailLine(v.purchase);
  const slot = part(PART.receiptBanner);
  if (!slot) return;
  const bounce = bouncedReceipt(v);
  const shown = slot.querySelector<HTMLElement>("[data-testid=receipt-bounced]");
  if (!bounce) return shown?.remove();
  if (shown) {
    const [heading, text] = shown.querySelectorAll("p");
    heading.textContent = bounce.heading;
    text.textContent = bounce.text;
    return;
  }
  const banner = document.createElement("div");
  banner.setAttribute("role", "alert");
  banner.dataset.testid = "receipt-bounced";
  banner.className = "flex gap-3 rounded-xl border border-amber-300 bg-amber-50 p-4 text-sm text-amber-950";
  const body = document.createElement("div");
  body.className = "min-w-0 space-y-1";
  const heading = document.createElement("p");
  heading.className = "font-semibold break-words";
  heading.textContent = bounce.heading;
  const text = document.createElement("p");
  text.textContent = bounce.text;
  body.append(heading, text);
  banner.append(body);
  slot.append(banner);
}

/**
 * The form's words for what the server answered: a 404 means this is not the browser that paid (its
 * words, PURCHASE_EMAIL_MESSAGES.notThisBrowser, come with the page: shared/purchase-email.ts holds zod).
 */
function problemOf(message: string, notThisBrowser: string): string {
  if (message.startsWith("404: ")) return notThisBrowser;
  if (message === `403: ${HUMAN_CHECK_REFUSED}`) return HUMAN_CHECK_REFUSED;
  if (/^(409|429|400): /.test(message)) {
    const text = withoutStatus(message).replace(/^email: /, "");
    return text.charAt(0).toUpperCase() + text.slice(1);
  }
  return T.changeEmailFailed;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** 'Wrong email? Change it': only the browser that paid; each change passes the bot check. */
function changeEmail(data: Extract<SuccessData, { state: "paid" }>, followReceipt: () => void) {
  const root = part(PART.changeEmail);
  if (!root) return;
  const open = root.querySelector<HTMLButtonElement>(":scope > button")!;
  const form = root.querySelector("form")!;
  const input = form.querySelector("input")!;
  const [submit, cancel] = form.querySelectorAll("button");
  const error = form.querySelector<HTMLElement>("[role=alert]")!;
  const slot = form.querySelector<HTMLElement>("[data-testid=human-check]")!;
  let check: Promise<import("@/lib/human-check").HumanCheck> | undefined;
  const startCheck = () =>
    (check ??= import("@/lib/human-check")
      .then(({ createHumanCheck }) => {
        const made = createHumanCheck(HUMAN_CHECK_ACTIONS.purchaseEmail);
        made.mount(slot);
        return made;
      })
      .catch((err) => {
        check = undefined;
        throw err;
      }));
  const showError = (message: string) => {
    error.textContent = message;
    if (message) {
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", error.id);
    } else {
      input.removeAttribute("aria-invalid");
      input.removeAttribute("aria-describedby");
    }
  };
  open.disabled = false;
  open.addEventListener("click", () => {
    open.hidden = true;
    form.hidden = false;
    input.focus();
    void startCheck().catch(() => {});
  });
  cancel.addEventListener("click", () => {
    form.hidden = true;
    open.hidden = false;
    showError("");
  });
  input.addEventListener("input", () => showError(""));
  let hadAddress = data.hadAddress;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const email = input.value.trim().toLowerCase();
    if (!EMAIL.test(email) || email.length > 254) {
      showError(T.invalidEmail);
      return input.focus();
    }
    showError("");
    busy(submit, true);
    cancel.disabled = true;
    try {
      const made = await startCheck();
      const answer = await made.send((headers) =>
        api("POST /api/purchases/:id/email", { params: { id: data.purchaseId }, body: { email }, headers }),
      );
      // The form is gone once it worked: the focus moves to what happened, not to the page's start.
      const done = document.createElement("p");
      done.className =
        "flex items-start gap-2 rounded-lg bg-emerald-50 px-3 py-2 text-sm text-emerald-900 outline-none [overflow-wrap:anywhere]";
      done.setAttribute("role", "status");
      done.tabIndex = -1;
      done.dataset.testid = "change-email-done";
      done.textContent = emailChanged(answer.changed, email, hadAddress);
      root.replaceChildren(done);
      done.focus();
      hadAddress = true;
      const line = part(PART.emailLine);
      if (line) line.textContent = `We emailed your receipt and access link to ${answer.emailedTo}.`;
      followReceipt();
    } catch (err) {
      showError(problemOf(err instanceof Error ? err.message : "", root.dataset.notThisBrowser ?? T.changeEmailFailed));
    } finally {
      busy(submit, false);
      cancel.disabled = false;
    }
  });
}

// ---- "Lost your access?" (the not-found page) ----
function lostAccess() {
  const root = part(PART.lostAccess);
  const form = root?.querySelector("form");
  if (root && form) sendsLostAccess(root, form);
}

function start() {
  lostAccess();
  const raw = document.getElementById(SUCCESS_DATA_ID)?.textContent;
  if (!raw) return;
  const data = JSON.parse(raw) as SuccessData;
  if (data.state === "verifying") verifying(data.query);
  else paid(data);
}

start();
