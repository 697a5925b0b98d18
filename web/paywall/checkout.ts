// The one-page checkout (issue 19): 'Unlock' opens the payment form in place on the paywall page —
// email, the wallets Stripe offers this browser (Express Checkout Element: Apple Pay, Google Pay,
// Link) and the Payment Element — with no navigation and no React. island.ts loads this chunk and
// Stripe.js only when 'Unlock' is pressed, so the page itself stays as small as before. After
// paying it goes where the SPA checkout goes (/success, which shows the upsell when the item has a
// funnel); a 3D Secure step happens in place. `/checkout/{id}` still works for links made before.
import type { PublicBump } from "@shared/bumps";
import { bumpLabel, NO_REMINDER_LABEL, REMINDER_HINT } from "@shared/paywall";
import { api, apiRequest } from "@/lib/api";

type StripeError = { message?: string };
type PaymentIntentLike = { id: string; status: string };
type StripeElement = {
  mount(el: HTMLElement): void;
  on(event: string, handler: (e: never) => void): StripeElement;
  destroy(): void;
};
type StripeElements = {
  create(type: string, options?: Record<string, unknown>): StripeElement;
  submit(): Promise<{ error?: StripeError }>;
};
type StripeLike = {
  elements(options: Record<string, unknown>): StripeElements;
  confirmPayment(options: Record<string, unknown>): Promise<{ error?: StripeError; paymentIntent?: PaymentIntentLike }>;
  retrievePaymentIntent(clientSecret: string): Promise<{ paymentIntent?: { setup_future_usage?: string | null } }>;
};

const STRIPE_JS = "https://js.stripe.com/v3/";
let stripePromise: Promise<StripeLike> | null = null;

/** Stripe.js, loaded once from Stripe (or the configured local stand-in), then initialised with the publishable key. */
function loadStripe(): Promise<StripeLike> {
  stripePromise ??= (async () => {
    const config = await api("GET /api/payments/config");
    const w = window as unknown as { Stripe?: (key: string) => StripeLike };
    if (!w.Stripe) {
      await new Promise<void>((resolve, reject) => {
        const script = document.createElement("script");
        script.src = config.stripeJsUrl ?? STRIPE_JS;
        script.onload = () => resolve();
        script.onerror = () => reject(new Error("Stripe.js did not load"));
        document.head.append(script);
      });
    }
    return w.Stripe!(config.publishableKey);
  })().catch((err) => {
    stripePromise = null;
    throw err;
  });
  return stripePromise;
}

const usd = (dollars: number) => `$${dollars.toFixed(2)}`;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** The spec's title for a card or wallet payment that did not go through (Stripe's message follows it). */
const PAYMENT_FAILED = "Payment Failed";
const el = <K extends keyof HTMLElementTagNameMap>(tag: K, className = "", text = "") => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
};

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
  const res = await apiRequest("POST", "/api/create-payment-intent", {
    contentId: start.id,
    ...(code ? { discountCode: code } : {}),
    ...(bumpTaken ? { bump: true } : {}),
    ...(start.customAmount !== undefined ? { customAmount: start.customAmount } : {}),
    ...(EMAIL.test(email) ? { buyerEmail: email } : {}),
    ...(start.noReminder ? { noReminder: true } : {}),
  });
  return {
    body: (await res.json()) as {
      clientSecret?: string;
      amount?: number;
      accessUrl?: string;
      discount?: { code: string };
    },
    code,
    bumpTaken,
  };
}

/**
 * Replaces the page's 'Unlock' form with the payment form for `start`'s PaymentIntent. Resolves when
 * the card form is ready to type in (the bench times this from the click on 'Unlock').
 */
export async function mountCheckout(unlockForm: HTMLElement, start: CheckoutStart): Promise<void> {
  const stripe = await loadStripe();
  const form = el("form", "space-y-3");
  form.noValidate = true;
  form.setAttribute("aria-label", "Pay by card");
  form.dataset.testid = "one-page-checkout";
  // What Stripe will charge (the server's amount), and the code that made it.
  const heading = el("p", "flex items-baseline justify-between text-lg font-semibold", "Total");
  const total = el("span", "", usd(start.amount));
  total.dataset.testid = "checkout-total";
  heading.append(total);
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
    value: start.email ?? "",
  });
  email.setAttribute("aria-describedby", "pay-email-hint");
  const hint = el("p", "text-xs text-muted-foreground", `Your access link and receipt are sent here. ${REMINDER_HINT}`);
  hint.id = "pay-email-hint";
  // The buyer's "no" is kept on this checkout, and on any checkout started again from this form.
  const optOut = el("label", "flex items-center gap-2 text-xs text-muted-foreground");
  const noReminder = el("input", "size-3.5");
  noReminder.type = "checkbox";
  noReminder.checked = !!start.noReminder;
  noReminder.dataset.testid = "no-reminder";
  optOut.append(noReminder, document.createTextNode(NO_REMINDER_LABEL));
  noReminder.addEventListener("change", () => {
    start = { ...start, noReminder: noReminder.checked };
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
    `Pay ${usd(start.amount)}`,
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
  form.append(heading, express, or, label, email, hint, optOut, card, problem, pay, keeps);
  if (start.bump)
    form.insertBefore(
      bumpBox(
        form,
        () => start,
        start.bump,
        () => email.value.trim(),
      ),
      problem,
    );
  if (start.code) {
    const applied = el("p", "text-sm font-medium text-emerald-700", `Code ${start.code} applied.`);
    applied.dataset.testid = "checkout-discount";
    form.insertBefore(applied, express);
  } else
    form.insertBefore(
      codeField(form, () => start),
      pay,
    );

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
    const receipt = e.billingDetails?.email ?? (EMAIL.test(email.value.trim()) ? email.value.trim() : undefined);
    const result = await stripe.confirmPayment({
      elements,
      clientSecret: start.clientSecret,
      confirmParams: {
        return_url: new URL(successUrl, location.href).toString(),
        ...(receipt ? { receipt_email: receipt } : {}),
      },
      redirect: "if_required",
    });
    if (result.error) {
      e.paymentFailed();
      return showProblem(result.error.message ?? "Your payment could not be completed.", undefined, PAYMENT_FAILED);
    }
    if (result.paymentIntent) done(result.paymentIntent);
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
    const typed = email.value.trim();
    if (!typed) return showProblem("Please enter your email address to receive access links.", email);
    if (!EMAIL.test(typed)) return showProblem("Please enter a valid email address.", email);
    showProblem(null);
    pay.disabled = true;
    pay.setAttribute("aria-busy", "true");
    const result = await stripe.confirmPayment({
      elements,
      clientSecret: start.clientSecret,
      confirmParams: { return_url: new URL(successUrl, location.href).toString(), receipt_email: typed },
      redirect: "if_required",
    });
    pay.disabled = false;
    pay.removeAttribute("aria-busy");
    if (result.error)
      return showProblem(result.error.message ?? "Your payment could not be completed.", undefined, PAYMENT_FAILED);
    if (result.paymentIntent) done(result.paymentIntent);
  });

  unlockForm.replaceWith(form);
  await ready;
  pay.disabled = false;
  form.dataset.ready = "true";
  email.focus();
}

/**
 * "Have a discount code?": applying one starts the checkout again with it (a new PaymentIntent at the
 * price the server computes) and opens its form in place of this one. A code that does not apply
 * says why beside the field; nothing else changes.
 */
function codeField(form: HTMLElement, current: () => CheckoutStart): HTMLElement {
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
      if (body.accessUrl) return location.assign(body.accessUrl);
      await mountCheckout(form, {
        ...start,
        clientSecret: body.clientSecret!,
        amount: body.amount!,
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
function bumpBox(
  form: HTMLElement,
  current: () => CheckoutStart,
  offer: NonNullable<PublicBump>,
  typedEmail: () => string,
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
      if (body.accessUrl) return location.assign(body.accessUrl);
      await mountCheckout(form, {
        ...start,
        clientSecret: body.clientSecret!,
        amount: body.amount!,
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
