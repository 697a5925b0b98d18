// The one-page checkout: 'Unlock' opens the payment form in place on the paywall page —
// email, the wallets Stripe offers this browser (Express Checkout Element: Apple Pay, Google Pay,
// Link) and the Payment Element — with no navigation and no React. island.ts loads this chunk and
// Stripe.js only when 'Unlock' is pressed, so the page itself stays as small as before. After
// paying it goes where the SPA checkout goes (/success, which shows the upsell when the item has a
// funnel); a 3D Secure step happens in place. `/checkout/{id}` still works for links made before.
// A code or the order bump changes the same PaymentIntent's amount (./checkout-terms.ts): the form is
// never drawn again, so what the buyer typed stays; the page's price stays in view above it.
// Tax (docs/tax.md): the lines show the server's tax line from the first answer on, a business buyer
// may add a VAT number the same way as a code, and a confirm refused because the card's billing address
// changed the tax (409) shows the new total and lets the buyer press Pay again.
import { formatDollars, formatDollarsPlain } from "@shared/money";
import { CHECKOUT_TERMS_MESSAGES } from "@shared/paywall";
import { NO_REMINDER_LABEL, REMINDER_HINT } from "@shared/paywall";
import { apiRequest } from "@/lib/api";
import { type PayFailure, payOnServer, TAX_UPDATED } from "@/lib/pay-on-server";
import {
  bumpBox,
  type CheckoutStart,
  type Choice,
  changeTerms,
  codeField,
  itemAmount,
  lineItems,
  type Terms,
  vatField,
} from "./checkout-terms";
import { EMAIL, el } from "./dom";
import { loadStripe, type PaymentIntentLike } from "./stripe-js";

export type { CheckoutStart } from "./checkout-terms";

/** The spec's title for a card or wallet payment that did not go through (Stripe's message follows it). */
const PAYMENT_FAILED = "Payment Failed";

/**
 * Opens the payment form for `start`'s PaymentIntent below the page's price, in place of its 'Unlock'
 * button. Resolves when the card form is ready to type in (the bench times this from the click on 'Unlock').
 */
export async function mountCheckout(unlockForm: HTMLElement, start: CheckoutStart, initial: Terms): Promise<void> {
  const stripe = await loadStripe();
  let terms = initial;
  // The VAT number the server accepted (it is not part of the answer).
  let vatId: string | null = null;
  const form = el("form", "space-y-3");
  form.noValidate = true;
  form.setAttribute("aria-label", "Pay by card");
  form.dataset.testid = "one-page-checkout";
  // What Stripe will charge (the server's amount), line by line.
  const lines = lineItems(start.title);
  const express = el("div");
  express.hidden = true;
  const or = el("p", "text-center text-xs text-muted-foreground", "or pay by card");
  or.hidden = true;
  const label = el("label", "block text-sm font-medium", "Email");
  label.htmlFor = "pay-email";
  const email = el(
    "input",
    "h-10 w-full rounded-md border border-input bg-transparent px-3 text-base outline-none focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50",
  );
  Object.assign(email, {
    id: "pay-email",
    type: "email",
    autocomplete: "email",
    placeholder: "you@example.com",
    required: true,
    value: "",
  });
  email.setAttribute("aria-describedby", "pay-email-hint");
  const hint = el("p", "text-xs text-muted-foreground", `Your access link and receipt are sent here. ${REMINDER_HINT}`);
  hint.id = "pay-email-hint";
  // The buyer's "no" is kept on this checkout, and on any checkout started again from this form.
  const optOut = el("label", "flex items-center gap-2 text-xs text-muted-foreground");
  const noReminder = el("input", "size-3.5");
  noReminder.type = "checkbox";
  noReminder.dataset.testid = "no-reminder";
  optOut.append(noReminder, document.createTextNode(NO_REMINDER_LABEL));
  noReminder.addEventListener("change", () => {
    void apiRequest("POST", "/api/checkout/email", {
      paymentIntent: start.clientSecret.split("_secret_")[0],
      noReminder: noReminder.checked,
    }).catch(() => undefined);
  });
  const card = el("div", "min-h-24");
  const problem = el("div", "text-sm text-destructive");
  problem.id = "pay-error";
  problem.setAttribute("role", "alert");
  problem.hidden = true;
  const pay = el(
    "button",
    "inline-flex h-12 w-full items-center justify-center gap-2 rounded-md bg-brand-gradient px-6 text-base font-medium text-white shadow-md disabled:opacity-60",
    `Pay ${formatDollarsPlain(terms.amount)}`,
  );
  pay.type = "submit";
  pay.disabled = true;
  // When this checkout keeps the card for one-click offers (the item is in a live funnel), say so:
  // read from Stripe's own PaymentIntent, as the app's checkout does (web/features/upsell/save-card-notice.tsx).
  const keeps = el(
    "p",
    "text-xs text-muted-foreground",
    "Stripe will keep this card so that, right after paying, you can add an extra offer with one click. Nothing more is charged unless you click to add it.",
  );
  keeps.dataset.testid = "save-card-notice";
  keeps.hidden = true;
  void stripe.retrievePaymentIntent(start.clientSecret).then(
    (r) => (keeps.hidden = r.paymentIntent?.setup_future_usage !== "off_session"),
    () => undefined,
  );
  const code = codeField(
    () => terms.discount?.code ?? null,
    (next) => change({ ...shownTerms(), code: next }),
  );
  const vat = vatField(
    () => vatId,
    (next) => change({ ...shownTerms(), vatId: next ? next.toUpperCase().replace(/[\s.\-/]/g, "") : null }),
  );
  // The code and the VAT number (at the top) and the bump (above Pay), each in a fieldset disabled while paying.
  const controls = [el("fieldset", "min-w-0 space-y-2 border-0 p-0"), el("fieldset", "min-w-0 border-0 p-0")];
  controls[0].append(code.node, vat.node);
  controls[1].hidden = !start.bump;
  if (start.bump)
    controls[1].append(
      bumpBox(
        start.bump,
        () => !!terms.bump,
        (next) => change({ ...shownTerms(), bump: next }),
      ),
    );
  // Why the total changed at Pay (a 409: the billing address moved the tax); gone at the next change.
  const notice = el("p", "rounded-md bg-amber-50 p-3 text-sm text-amber-900");
  notice.dataset.testid = "checkout-tax-notice";
  notice.setAttribute("role", "status");
  notice.hidden = true;
  form.append(
    lines.node,
    controls[0],
    express,
    or,
    label,
    email,
    hint,
    optOut,
    card,
    controls[1],
    notice,
    problem,
    pay,
    keeps,
  );
  // The page's price above the form follows the code: struck through, with the code's price beside it.
  const price = document.querySelector<HTMLElement>('[data-testid="paywall-price"]');
  const showTerms = () => {
    lines.show(terms);
    code.show();
    vat.show();
    pay.textContent = `Pay ${formatDollarsPlain(terms.amount)}`;
    if (!price || start.customAmount !== undefined) return;
    const list = itemAmount(terms);
    if (!terms.discount) {
      price.textContent = formatDollars(list);
      return;
    }
    const struck = el("s", "text-xl font-semibold text-muted-foreground", formatDollars(list));
    struck.dataset.testid = "paywall-list-price";
    price.replaceChildren(struck, ` ${formatDollars(Math.round((list - terms.discount.amountOff) * 100) / 100)}`);
  };
  // One change at a time, for the code and the bump together; paying waits for it, so Stripe
  // charges the total shown. After a failed change the rows or Stripe may have moved (a 502 after
  // Stripe applied it, a 409): the terms on screen are sent again, and paying stays off until they
  // are back; if that fails too, paying stays off and the page says to reload.
  let changing = false;
  let stuck = false;
  let paying = false;
  let loaded = false;
  const payable = () => {
    pay.disabled = !loaded || changing || stuck || paying;
    for (const set of controls) set.disabled = paying;
  };
  const shownTerms = (): Choice => ({ code: terms.discount?.code ?? null, bump: !!terms.bump, vatId });
  const apply = async (next: Choice) => {
    terms = await changeTerms(start.clientSecret, next);
    vatId = next.vatId;
    // Real Stripe.js reads the new amount into its Elements (wallets show it); the card typed stays.
    await elements.fetchUpdates().catch(() => undefined);
    showTerms();
  };
  async function change(next: Choice) {
    if (changing || stuck) throw new Error("Please wait a moment and try again.");
    changing = true;
    payable();
    showProblem(null);
    notice.hidden = true;
    try {
      await apply(next);
    } catch (err) {
      await apply(shownTerms()).catch(() => {
        stuck = true;
        showProblem(CHECKOUT_TERMS_MESSAGES.stuck);
      });
      throw err;
    } finally {
      changing = false;
      payable();
    }
  }
  showTerms();

  // `title` heads a payment that failed ('Payment Failed' above Stripe's message, as the app's checkout
  // toasts it); a problem with what the buyer typed is its message alone.
  const showProblem = (message: string | null, field?: HTMLElement, title?: string) => {
    problem.hidden = !message;
    problem.replaceChildren(
      ...(message ? [...(title ? [el("p", "font-semibold", title)] : []), el("p", "", message)] : []),
    );
    email.toggleAttribute("aria-invalid", !!message && field === email);
    if (message) (field ?? problem).focus?.();
  };
  // A confirm that was not charged: the new tax and total when the billing address changed them
  // (the Payment Element learns the new amount; Pay is on again), else Stripe's or our message.
  const refused = async (result: PayFailure) => {
    if (!result.taxChanged) return showProblem(result.error, undefined, PAYMENT_FAILED);
    terms = { ...terms, ...result.taxChanged };
    await elements.fetchUpdates().catch(() => undefined);
    showTerms();
    showProblem(null);
    notice.textContent = TAX_UPDATED;
    notice.hidden = false;
    pay.focus();
  };
  const successUrl = `/success?content_id=${encodeURIComponent(start.id)}`;
  // Where Stripe's own redirect would land, with the same parameters (the success page goes on to the
  // funnel's offer only on the way back from paying: redirect_status).
  const done = (intent: PaymentIntentLike) =>
    location.assign(
      `${successUrl}&payment_intent=${encodeURIComponent(intent.id)}&redirect_status=${encodeURIComponent(intent.status)}`,
    );

  const elements = stripe.elements({
    clientSecret: start.clientSecret,
    appearance: { theme: "stripe", variables: { colorPrimary: "#7c3aed", borderRadius: "8px" } },
  });
  // Wallets first, where the browser offers one; hidden when it offers none.
  const wallets = elements.create("expressCheckout", { buttonHeight: 44 });
  wallets.on("ready", ((e: { availablePaymentMethods?: Record<string, boolean> }) => {
    const any = !!e.availablePaymentMethods && Object.values(e.availablePaymentMethods).some(Boolean);
    express.hidden = !any;
    or.hidden = !any;
  }) as never);
  wallets.on("click", ((e: { resolve: (o: Record<string, unknown>) => void }) =>
    e.resolve({ emailRequired: true })) as never);
  wallets.on("confirm", (async (e: { billingDetails?: { email?: string | null }; paymentFailed: () => void }) => {
    // The wallet's sheet shows the total as it was when opened: not while a change is under way.
    if (changing || stuck) {
      e.paymentFailed();
      return showProblem(stuck ? CHECKOUT_TERMS_MESSAGES.stuck : "Please wait a moment and try again.");
    }
    const receipt = e.billingDetails?.email ?? (EMAIL.test(email.value.trim()) ? email.value.trim() : undefined);
    paying = true;
    payable();
    // Confirmed by our server (web/lib/pay-on-server.ts). A rejected call (not an error answer) must
    // not leave Pay disabled for good.
    const result = await payOnServer(stripe, elements, start.clientSecret, receipt).finally(() => {
      paying = false;
      payable();
    });
    if ("error" in result) {
      e.paymentFailed();
      return refused(result);
    }
    done(result.paymentIntent);
  }) as never);
  wallets.mount(express);

  const payment = elements.create("payment");
  const ready = new Promise<void>((resolve) => payment.on("ready", (() => resolve()) as never));
  payment.mount(card);

  // The email typed here is kept on the checkout: one reminder an hour later should the buyer leave.
  let remembered = "";
  email.addEventListener("blur", () => {
    const typed = email.value.trim();
    if (!EMAIL.test(typed) || typed === remembered) return;
    remembered = typed;
    void apiRequest("POST", "/api/checkout/email", {
      paymentIntent: start.clientSecret.split("_secret_")[0],
      email: typed,
    }).catch(() => (remembered = ""));
  });
  email.addEventListener("input", () => showProblem(null));

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (changing || stuck || paying) return;
    const typed = email.value.trim();
    if (!typed) return showProblem("Please enter your email address to receive access links.", email);
    if (!EMAIL.test(typed)) return showProblem("Please enter a valid email address.", email);
    showProblem(null);
    paying = true;
    payable();
    pay.setAttribute("aria-busy", "true");
    const result = await payOnServer(stripe, elements, start.clientSecret, typed).finally(() => {
      paying = false;
      payable();
      pay.removeAttribute("aria-busy");
    });
    if ("error" in result) return refused(result);
    done(result.paymentIntent);
  });

  // The page's price (and its code note, now in the lines) stays; 'Unlock' and the amount field go.
  for (const child of Array.from(unlockForm.children) as HTMLElement[])
    if (child.dataset.testid !== "paywall-price") child.hidden = true;
  unlockForm.after(form);
  await ready;
  loaded = true;
  payable();
  form.dataset.ready = "true";
  email.focus();
}
