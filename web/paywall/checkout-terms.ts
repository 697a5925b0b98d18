// The checkout's terms a buyer can change in place — a discount code (applied or removed) and the
// order bump — and the lines that say what is paid for. A change asks the server to price the new
// terms and set the same PaymentIntent's amount, so the card typed into the form stays
// (docs/checkout-and-codes.md, "Changing a checkout's terms"), and a business buyer's VAT number, which
// the server prices the same way (docs/tax.md, "What the buyer sees").
import type { PublicBump } from "@shared/bumps";
import { formatDollarsPlain } from "@shared/money";
import type { CheckoutTermsAnswer } from "@shared/payments";
import { bumpLabel } from "@shared/paywall";
import type { TaxLine } from "@shared/tax";
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

/** What the checkout charges now, as the server priced it: `amount` is the total, tax included. */
export type Terms = CheckoutTermsAnswer & { tax?: TaxLine | null };
/** What the buyer chose: a code, the order bump, a VAT number (null: none). */
export type Choice = { code: string | null; bump: boolean; vatId: string | null };

/** Asks the server for new terms on the same PaymentIntent; resolves with what it now charges. */
export const changeTerms = (clientSecret: string, terms: Choice): Promise<Terms> =>
  api("POST /api/checkout/terms", {
    body: {
      paymentIntent: clientSecret.split("_secret_")[0],
      discountCode: terms.code,
      bump: terms.bump,
      // Blank removes a VAT number given before (null is not a VAT number to the server).
      vatId: terms.vatId ?? "",
    },
  });

const cents = (dollars: number) => Math.round(dollars * 100);
/** Tax added on top of the prices (US sales tax); tax a price includes is already in it. */
const taxOnTop = (t: Terms) => (t.tax && !t.tax.inclusive ? t.tax.amount : 0);
/** The item's own amount before the code: the total less tax on top and the add-on, plus what the code took off. */
export const itemAmount = (t: Terms) =>
  (cents(t.amount) - cents(taxOnTop(t)) - cents(t.bump?.amount ?? 0) + cents(t.discount?.amountOff ?? 0)) / 100;

/**
 * The lines above the form: item, code (−), add-on (+), the tax line as the server words it
 * ("Includes $1.67 VAT (20%, France)", "+ $0.89 sales tax (Washington)"), total. Redrawn after every change.
 */
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
      ...(t.tax?.text ? [taxRow(t.tax.text)] : []),
      total,
    );
  };
  return { node, show };
}

function taxRow(text: string): HTMLElement {
  const r = el("div", "text-muted-foreground");
  r.dataset.line = "tax";
  r.append(el("dt", "break-words", text));
  r.dataset.testid = "checkout-tax";
  return r;
}

/** What a failed change says: the server's words without its status (and field) prefix. */
const reason = (err: unknown, fallback: string) =>
  (err instanceof Error ? err.message : "").replace(/^\d{3}: /, "").replace(/^(discountCode|vatId): /, "") || fallback;

/** How one of the checkout's optional fields (a code, a VAT number) opens, reads and says what it did. */
type FieldWords = {
  /** The id of its input (its error's id is `${id}-error`), its label, and the link that opens it. */
  id: string;
  label: string;
  opener: string;
  testid: string;
  /** "Code SPRING applied." */
  applied: (value: string) => string;
  /** What the browser checks before asking the server (null: fine), and the fallback words of a failure. */
  check: (value: string) => string | null;
  refused: string;
  notRemoved: string;
};

/**
 * A collapsed link that opens a field with Apply, or the value applied with "Remove". `change` sets
 * the value on the checkout (null: none) and rejects with the server's reason, shown beside the field;
 * nothing else changes.
 */
function termField(
  words: FieldWords,
  applied: () => string | null,
  change: (value: string | null) => Promise<void>,
): { node: HTMLElement; show: () => void } {
  const wrap = el("div", "space-y-2");
  const open = el("button", "text-sm font-medium text-primary underline-offset-4 hover:underline", words.opener);
  open.type = "button";
  const row = el("div", "flex gap-2");
  row.hidden = true;
  const input = el(
    "input",
    "h-9 min-w-0 flex-1 rounded-md border border-input bg-transparent px-3 text-base outline-none focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50",
  );
  Object.assign(input, { id: words.id, autocomplete: "off" });
  input.setAttribute("aria-label", words.label);
  const apply = el("button", "h-9 rounded-md border px-4 text-sm font-medium disabled:opacity-60", "Apply");
  apply.type = "button";
  const done = el("p", "flex items-center justify-between gap-3 text-sm font-medium text-emerald-700");
  done.dataset.testid = words.testid;
  const doneText = el("span", "min-w-0 break-words");
  const remove = el(
    "button",
    "shrink-0 text-sm font-medium text-muted-foreground underline underline-offset-4 hover:text-foreground disabled:opacity-60",
    "Remove",
  );
  remove.type = "button";
  done.append(doneText, remove);
  const note = el("p", "text-sm text-destructive");
  note.id = `${words.id}-error`;
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
    const value = applied();
    done.hidden = !value;
    open.hidden = !!value || !row.hidden;
    if (value) {
      row.hidden = true;
      doneText.textContent = words.applied(value);
      remove.setAttribute("aria-label", `Remove ${words.applied(value).replace(/ applied\.$/, "")}`);
      input.value = "";
    }
  };
  open.addEventListener("click", () => {
    open.hidden = true;
    row.hidden = false;
    input.focus();
  });
  input.addEventListener("input", () => say(null));
  const run = async (value: string | null, button: HTMLButtonElement) => {
    button.disabled = true;
    say(null);
    try {
      await change(value);
      show();
      if (!value) open.focus();
    } catch (err) {
      say(reason(err, value ? words.refused : words.notRemoved));
    } finally {
      button.disabled = false;
    }
  };
  const submit = () => {
    const value = input.value.trim();
    const problem = words.check(value);
    if (problem) return say(problem);
    void run(value, apply);
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

/** "Have a discount code?", or "Code SPRING applied." with "Remove". */
export const codeField = (applied: () => string | null, change: (code: string | null) => Promise<void>) =>
  termField(
    {
      id: "pay-code",
      label: "Discount code",
      opener: "Have a discount code?",
      testid: "checkout-discount",
      applied: (code) => `Code ${code} applied.`,
      check: (code) => (/^[A-Za-z0-9_-]{2,40}$/.test(code) ? null : "This code isn't valid"),
      refused: "This code isn't valid",
      notRemoved: "The code could not be removed. Please try again.",
    },
    applied,
    change,
  );

/**
 * "Buying as a business? Add a VAT number", or "VAT number DE123456789 applied." with "Remove". The
 * server checks its format (400 "VAT number: …", shown beside the field) and prices the checkout
 * again: a reverse charge shows as the tax line.
 */
export const vatField = (applied: () => string | null, change: (vatId: string | null) => Promise<void>) =>
  termField(
    {
      id: "pay-vat",
      label: "VAT number",
      opener: "Buying as a business? Add a VAT number",
      testid: "checkout-vat",
      applied: (vatId) => `VAT number ${vatId} applied.`,
      check: (vatId) => (vatId ? null : VAT_NUMBER_EMPTY),
      refused: VAT_NUMBER_EMPTY,
      notRemoved: "The VAT number could not be removed. Please try again.",
    },
    applied,
    change,
  );
const VAT_NUMBER_EMPTY = "Enter your VAT number with its country prefix, like DE123456789.";

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
