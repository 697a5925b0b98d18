// The checkout's terms a buyer can change in place — a discount code (applied or removed) and the
// order bump — and the lines that say what is paid for. A change asks the server to price the new
// terms and set the same PaymentIntent's amount, so the card typed into the form stays
// (docs/checkout-and-codes.md, "Changing a checkout's terms").
import type { PublicBump } from "@shared/bumps";
import { formatDollarsPlain } from "@shared/money";
import type { CheckoutTermsAnswer } from "@shared/payments";
import { bumpLabel } from "@shared/paywall";
import { api } from "@/lib/api";
import { el } from "./dom";

export type CheckoutStart = {
  id: string;
  title: string;
  clientSecret: string;
  /** A pay-what-you-want item's amount, as the buyer chose it. */
  customAmount?: number;
  /** The item's order bump, if it has one. */
  bump?: PublicBump;
};

/** What the checkout charges now, as the server priced it. */
export type Terms = CheckoutTermsAnswer;

/** Asks the server for new terms on the same PaymentIntent; resolves with what it now charges. */
export const changeTerms = (clientSecret: string, terms: { code: string | null; bump: boolean }): Promise<Terms> =>
  api("POST /api/checkout/terms", {
    body: { paymentIntent: clientSecret.split("_secret_")[0], discountCode: terms.code, bump: terms.bump },
  });

const cents = (dollars: number) => Math.round(dollars * 100);
/** The item's own amount before the code: the total less the add-on, plus what the code took off. */
export const itemAmount = (t: Terms) =>
  (cents(t.amount) - cents(t.bump?.amount ?? 0) + cents(t.discount?.amountOff ?? 0)) / 100;

/** The lines above the form: item, code (−), add-on (+), total. Redrawn after every change. */
export function lineItems(title: string): { node: HTMLElement; show: (t: Terms) => void } {
  const node = el("dl", "space-y-1.5 rounded-lg border bg-muted/40 p-3 text-sm");
  node.dataset.testid = "checkout-lines";
  const row = (name: string, label: string, amount: string, className = "") => {
    const r = el("div", `flex items-baseline justify-between gap-3 ${className}`);
    r.dataset.line = name;
    r.append(el("dt", "min-w-0 break-words", label), el("dd", "shrink-0 tabular-nums", amount));
    return r;
  };
  const show = (t: Terms) => {
    const total = row("total", "Total", formatDollarsPlain(t.amount), "border-t pt-1.5 text-base font-semibold");
    total.querySelector("dd")!.dataset.testid = "checkout-total";
    node.replaceChildren(
      row("item", title, formatDollarsPlain(itemAmount(t))),
      ...(t.discount
        ? [
            row(
              "code",
              `Code ${t.discount.code}`,
              `−${formatDollarsPlain(t.discount.amountOff)}`,
              "text-emerald-700 font-medium",
            ),
          ]
        : []),
      ...(t.bump ? [row("bump", `${t.bump.title} (add-on)`, `+${formatDollarsPlain(t.bump.amount)}`)] : []),
      total,
    );
  };
  return { node, show };
}

/** What a failed change says: the server's words without its status (and field) prefix. */
const reason = (err: unknown, fallback: string) =>
  (err instanceof Error ? err.message : "").replace(/^\d{3}: /, "").replace(/^discountCode: /, "") || fallback;

/**
 * "Have a discount code?", or the code applied with "Remove". `change` sets the checkout's code
 * (null: none) and rejects with the server's reason, shown beside the field; nothing else changes.
 */
export function codeField(
  applied: () => string | null,
  change: (code: string | null) => Promise<void>,
): { node: HTMLElement; show: () => void } {
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
  const apply = el("button", "h-9 rounded-md border px-4 text-sm font-medium disabled:opacity-60", "Apply");
  apply.type = "button";
  const done = el("p", "flex items-center justify-between gap-3 text-sm font-medium text-emerald-700");
  done.dataset.testid = "checkout-discount";
  const doneText = el("span");
  const remove = el(
    "button",
    "text-sm font-medium text-muted-foreground underline underline-offset-4 hover:text-foreground disabled:opacity-60",
    "Remove",
  );
  remove.type = "button";
  done.append(doneText, remove);
  const note = el("p", "text-sm text-destructive");
  note.id = "pay-code-error";
  note.setAttribute("role", "alert");
  note.hidden = true;
  row.append(input, apply);
  wrap.append(open, row, done, note);
  const say = (message: string | null) => {
    note.hidden = !message;
    note.textContent = message ?? "";
    input.toggleAttribute("aria-invalid", !!message);
    if (message) input.setAttribute("aria-describedby", note.id);
  };
  const show = () => {
    const code = applied();
    done.hidden = !code;
    open.hidden = !!code || !row.hidden;
    if (code) {
      row.hidden = true;
      doneText.textContent = `Code ${code} applied.`;
      remove.setAttribute("aria-label", `Remove code ${code}`);
      input.value = "";
    }
  };
  open.addEventListener("click", () => {
    open.hidden = true;
    row.hidden = false;
    input.focus();
  });
  input.addEventListener("input", () => say(null));
  const run = async (code: string | null, button: HTMLButtonElement) => {
    button.disabled = true;
    say(null);
    try {
      await change(code);
      show();
      if (!code) open.focus();
    } catch (err) {
      say(reason(err, code ? "This code isn't valid" : "The code could not be removed. Please try again."));
    } finally {
      button.disabled = false;
    }
  };
  const submit = () => {
    const code = input.value.trim();
    if (!/^[A-Za-z0-9_-]{2,40}$/.test(code)) return say("This code isn't valid");
    void run(code, apply);
  };
  apply.addEventListener("click", submit);
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") {
      e.preventDefault();
      submit();
    }
  });
  remove.addEventListener("click", () => void run(null, remove));
  show();
  return { node: wrap, show };
}

/**
 * The order bump: "Add {title} for $X". Ticking or unticking changes the checkout's total in place; a
 * bump that can no longer be sold says why, and the box shows the checkout's terms again.
 */
export function bumpBox(
  offer: NonNullable<PublicBump>,
  taken: () => boolean,
  change: (bump: boolean) => Promise<void>,
): HTMLElement {
  const wrap = el("div", "space-y-1 rounded-lg border-2 border-dashed border-primary/40 bg-primary/5 p-3");
  wrap.dataset.testid = "order-bump";
  const label = el("label", "flex items-center gap-2 text-sm font-medium");
  const box = el("input", "size-4 shrink-0");
  box.type = "checkbox";
  box.checked = taken();
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
    try {
      await change(next);
    } catch (err) {
      // The checkout's terms as they are now (the caller put back the ones on screen).
      box.checked = taken();
      note.textContent = reason(err, "The add-on could not be changed. Please try again.");
      note.hidden = false;
    } finally {
      box.disabled = false;
    }
  });
  return wrap;
}
