// The checkout's terms a buyer can change in place: a discount code and the order bump. Either starts
// the checkout again (a new PaymentIntent at the server's price) and reopens the form for it.
import type { PublicBump } from "@shared/bumps";
import { bumpLabel } from "@shared/paywall";
import { api } from "@/lib/api";
import { EMAIL, el } from "./dom";

export type CheckoutStart = {
  id: string;
  clientSecret: string;
  amount: number;
  code?: string;
  customAmount?: number;
  /** The item's order bump, if it has one, and whether this PaymentIntent includes it. */
  bump?: PublicBump;
  bumpTaken?: boolean;
  /** What the buyer had typed, kept when the form opens again (a code applied, the bump ticked). */
  email?: string;
  /** "Don't send me a reminder", as the buyer left it. */
  noReminder?: boolean;
};

/** Starts the checkout again with other terms (a code, the bump): a new PaymentIntent at the server's price. */
async function restart(start: CheckoutStart, change: { code?: string; bumpTaken?: boolean }, email: string) {
  const code = change.code ?? start.code;
  const bumpTaken = change.bumpTaken ?? !!start.bumpTaken;
  const body = await api("POST /api/create-payment-intent", {
    body: {
      contentId: start.id,
      ...(code ? { discountCode: code } : {}),
      ...(bumpTaken ? { bump: true } : {}),
      ...(start.customAmount !== undefined ? { customAmount: start.customAmount } : {}),
      ...(EMAIL.test(email) ? { buyerEmail: email } : {}),
      ...(start.noReminder ? { noReminder: true } : {}),
    },
  });
  return { body, code, bumpTaken };
}

/**
 * "Have a discount code?": applying one starts the checkout again with it (a new PaymentIntent at the
 * price the server computes) and opens its form in place of this one. A code that does not apply
 * says why beside the field; nothing else changes.
 */
export function codeField(
  form: HTMLElement,
  current: () => CheckoutStart,
  reopen: (start: CheckoutStart) => Promise<void>,
): HTMLElement {
  const wrap = el("div", "space-y-2");
  const open = el(
    "button",
    "text-sm font-medium text-primary underline-offset-4 hover:underline",
    "Have a discount code?",
  );
  open.type = "button";
  const row = el("div", "flex gap-2");
  row.hidden = true;
  const input = el(
    "input",
    "h-9 min-w-0 flex-1 rounded-md border border-input bg-transparent px-3 text-base outline-none focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50",
  );
  Object.assign(input, { id: "pay-code", autocomplete: "off" });
  input.setAttribute("aria-label", "Discount code");
  const apply = el("button", "h-9 rounded-md border px-4 text-sm font-medium", "Apply");
  apply.type = "button";
  const note = el("p", "text-sm text-destructive");
  note.id = "pay-code-error";
  note.setAttribute("role", "alert");
  note.hidden = true;
  row.append(input, apply);
  wrap.append(open, row, note);
  open.addEventListener("click", () => {
    open.hidden = true;
    row.hidden = false;
    input.focus();
  });
  const say = (message: string | null) => {
    note.hidden = !message;
    note.textContent = message ?? "";
    input.toggleAttribute("aria-invalid", !!message);
    if (message) input.setAttribute("aria-describedby", note.id);
  };
  input.addEventListener("input", () => say(null));
  const submit = async () => {
    const code = input.value.trim();
    if (!/^[A-Za-z0-9_-]{2,40}$/.test(code)) return say("This code isn't valid");
    apply.disabled = true;
    const start = current();
    try {
      const { body } = await restart(start, { code }, emailOf(form));
      if ("accessUrl" in body) return location.assign(body.accessUrl);
      await reopen({
        ...start,
        clientSecret: body.clientSecret,
        amount: body.amount,
        code: body.discount?.code ?? code.toUpperCase(),
        email: emailOf(form),
      });
    } catch (err) {
      apply.disabled = false;
      say(
        (err instanceof Error ? err.message : "").replace(/^\d{3}: /, "").replace(/^discountCode: /, "") ||
          "This code isn't valid",
      );
    }
  };
  apply.addEventListener("click", () => void submit());
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") {
      e.preventDefault();
      void submit();
    }
  });
  return wrap;
}

const emailOf = (form: HTMLElement) => form.querySelector<HTMLInputElement>("#pay-email")?.value.trim() ?? "";

/**
 * The order bump: "Add {title} for $X". Ticking or unticking starts the checkout again for the new
 * total (keeping the code, the amount and the email typed); a bump that can no longer be sold says
 * why, and the form stays as it was.
 */
export function bumpBox(
  current: () => CheckoutStart,
  offer: NonNullable<PublicBump>,
  typedEmail: () => string,
  reopen: (start: CheckoutStart) => Promise<void>,
): HTMLElement {
  const wrap = el("div", "space-y-1 rounded-lg border-2 border-dashed border-primary/40 bg-primary/5 p-3");
  wrap.dataset.testid = "order-bump";
  const label = el("label", "flex items-center gap-2 text-sm font-medium");
  const box = el("input", "size-4");
  box.type = "checkbox";
  box.checked = !!current().bumpTaken;
  const note = el("p", "text-sm text-destructive");
  note.id = "pay-bump-error";
  note.setAttribute("role", "alert");
  note.hidden = true;
  label.append(box, document.createTextNode(bumpLabel(offer.title, Math.round(offer.price * 100))));
  wrap.append(label, note);
  box.addEventListener("change", async () => {
    const next = box.checked;
    box.disabled = true;
    note.hidden = true;
    const start = current();
    try {
      const { body, code } = await restart(start, { bumpTaken: next }, typedEmail());
      if ("accessUrl" in body) return location.assign(body.accessUrl);
      await reopen({
        ...start,
        clientSecret: body.clientSecret,
        amount: body.amount,
        code,
        bumpTaken: next,
        email: typedEmail(),
      });
    } catch (err) {
      box.checked = !next;
      box.disabled = false;
      note.textContent =
        (err instanceof Error ? err.message : "").replace(/^\d{3}: /, "") ||
        "The add-on could not be changed. Please try again.";
      note.hidden = false;
    }
  });
  return wrap;
}
