// The paywall page's one script. The Worker sends the finished page (worker/pages/paywall.tsx), the
// same for every visitor; this brings it to life without React: the tip check and 'Unlock' (spec §4,
// §5), the return from payment, "Lost your access?", and the owner's state, whose controls (and
// React) load only for an owner. The creator's preview loads its funnel bar the same way.
import type { PublicContent } from "@shared/content";
import {
  HUMAN_CHECK_ACTIONS,
  HUMAN_CHECK_HEADER,
  HUMAN_CHECK_REFUSED,
  HUMAN_CHECK_UNAVAILABLE,
} from "@shared/human-check";
import type { PurchaseVerification } from "@shared/payments";
import {
  chosenAmount,
  PAYWALL_DATA_ID,
  PAYWALL_DISCOUNT_ID,
  PAYWALL_PART as PART,
  PAYWALL_TEXT,
} from "@shared/paywall";
import { probablyOwned, rememberAccess, rememberedAccess } from "@/lib/access-tokens";
import { api } from "@/lib/api";
import { showToast } from "@/lib/dom-toast";
import { sendsLostAccess } from "@/lib/lost-access";

/** How long 'Unlock' waits for the bot check's code to load, as long as it waits for a token. */
const CHECK_LOAD_MS = 5000;
/** The server's refusal of a token, as `api()` throws it. */
const REFUSED = `403: ${HUMAN_CHECK_REFUSED}`;

const part = <T extends HTMLElement = HTMLElement>(name: string, scope: ParentNode = document) =>
  scope.querySelector<T>(`[data-part="${name}"]`);
const show = (el: HTMLElement | null, visible: boolean) => {
  if (el) el.hidden = !visible;
};

/** One toast at a time (spec §4), styled as the app's destructive toast. */
const toast = (title: string, description: string) => showToast(part(PART.toasts), { title, description }, true);

function start() {
  const root = part(PART.root);
  const data = document.getElementById(PAYWALL_DATA_ID)?.textContent;
  const item = data ? (JSON.parse(data) as PublicContent) : undefined;
  if (!root || !item || item.id !== root.dataset.id) return;
  const id = item.id;
  const params = new URLSearchParams(location.search);
  const preview = params.get("preview") === "1";
  const success = params.get("success") === "true";
  const paymentIntent = params.get("payment_intent") ?? undefined;
  const token = params.get("access") ?? rememberedAccess(id);

  const buy = part(PART.buy, root);
  const access = part(PART.access, root);
  const states = {
    owned: part(PART.owned, root),
    checking: part(PART.checking, root),
    processing: part(PART.processing, root),
  };
  /** Which of the page's states shows: the form, or the access area in one of its states. */
  const showState = (state: "buy" | keyof typeof states) => {
    show(buy, state === "buy");
    show(access, state !== "buy");
    for (const [name, el] of Object.entries(states)) show(el, name === state);
  };

  let ownerShown = false;
  const showOwner = async (verification: PurchaseVerification) => {
    if (ownerShown) return;
    ownerShown = true;
    let controls: typeof import("./owner");
    try {
      controls = await import("./owner");
    } catch {
      // The controls did not load (network, or a tab left open across a deploy): reloading fetches them.
      ownerShown = false;
      return toast(PAYWALL_TEXT.ownerLoadError.title, PAYWALL_TEXT.ownerLoadError.description);
    }
    // The owner's state is final on this page: what only a buyer-to-be needs leaves it.
    part(PART.badgeLocked, root)?.remove();
    show(part(PART.badgeUnlocked, root), true);
    controls.mountOwnerControls(states.owned!, verification, token);
    showState("owned");
    buy?.remove();
  };

  // ---- the owner's state ----
  let returnedProcessing = false;
  let pollUntil = 0;
  const checkAccess = async (): Promise<void> => {
    try {
      const answer = await api("GET /api/content/:id/access", { params: { id }, query: { access: token } });
      if (answer.owned) {
        rememberAccess(id, answer.verification.accessUrl);
        await showOwner(answer.verification);
        if (ownerShown) return;
      } else if (answer.status === "processing") {
        // This browser's payment settles later (a bank payment): not 'Unlock' again, which would charge twice.
        return showState("processing");
      }
    } catch {
      // Unknown: offer the form (the checkout call refuses a second charge) unless a payment is on its way.
    }
    if (returnedProcessing && Date.now() < pollUntil) {
      showState("processing");
      setTimeout(checkAccess, 2000);
    } else if (!ownerShown) showState(returnedProcessing ? "processing" : "buy");
  };

  if (preview) {
    show(part(PART.previewBanner, root), true);
    void import("./preview").then(({ mountFunnelPreview }) =>
      mountFunnelPreview(part(PART.previewBar)!, id, item.title),
    );
  } else {
    show(part(PART.lostAccess, root)?.querySelector(":scope > button") ?? null, true);
    // A browser with reason to think it owns the item waits for the answer rather than see 'Unlock'.
    if (success || probablyOwned(id) || params.has("access")) showState("checking");
    if (success) {
      // Spec §4: confirm the payment, unlock, or show that it is still processing; clear the query after 2 s.
      const confirm = paymentIntent
        ? api("POST /api/payments/:paymentIntent/complete", { params: { paymentIntent } })
        : api("POST /api/content/:id/process-recent-purchase", { params: { id } });
      confirm
        .then(({ unlocked }) => {
          if (unlocked) rememberAccess(id);
          returnedProcessing = !unlocked;
        })
        .catch(() => (returnedProcessing = true))
        .finally(() => {
          pollUntil = Date.now() + 60_000;
          void checkAccess();
        });
      setTimeout(() => {
        const url = new URL(location.href);
        url.searchParams.delete("success");
        url.searchParams.delete("payment_intent");
        history.replaceState(history.state, "", url.pathname + url.search + url.hash);
      }, 2000);
    } else void checkAccess();
  }

  // ---- 'Unlock' ----
  const form = part<HTMLFormElement>(PART.form, root);
  const button = part<HTMLButtonElement>(PART.unlock, root);
  const tip = part<HTMLInputElement>(PART.tip, root);
  // The bot check (docs/security.md): its code and Turnstile's script load only once the visitor heads
  // for the form (hover, focus, touch), so the page itself still loads one script and the token is
  // usually ready by 'Unlock'.
  let check: Promise<import("@/lib/human-check").HumanCheck> | undefined;
  const slot = document.createElement("div");
  slot.dataset.testid = "human-check";
  // A chunk that failed to load is forgotten, so the next press tries again.
  const startCheck = () =>
    (check ??= import("@/lib/human-check")
      .then(({ createHumanCheck }) => {
        const made = createHumanCheck(HUMAN_CHECK_ACTIONS.checkout);
        made.mount(slot);
        return made;
      })
      .catch((err) => {
        check = undefined;
        throw err;
      }));
  // Whatever goes wrong here (its chunk did not load, or not within the widget's own 5 s), the
  // checkout goes on without a token: never a dead button.
  const checkHeaders = async () => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("The bot check did not load in time")), CHECK_LOAD_MS);
      });
      return await (await Promise.race([startCheck(), late])).headers();
    } catch {
      return { [HUMAN_CHECK_HEADER]: HUMAN_CHECK_UNAVAILABLE };
    } finally {
      clearTimeout(timer);
    }
  };
  if (form) {
    form.insertBefore(slot, form.querySelector("noscript"));
    const start = () => void startCheck().catch(() => {});
    for (const type of ["pointerenter", "pointerdown", "focusin"]) form.addEventListener(type, start, { once: true });
  }
  const setBusy = (busy: boolean) => {
    if (!button) return;
    button.disabled = busy;
    button.setAttribute("aria-busy", String(busy));
    const [idle, spinner] = button.querySelectorAll("svg");
    idle?.classList.toggle("hidden", busy);
    spinner?.classList.toggle("hidden", !busy);
  };
  // Back from checkout through the browser's history: the page may come back as it was left.
  // Restored from the back/forward cache, it asks again: the buyer may have paid meanwhile.
  addEventListener("pageshow", (event) => {
    setBusy(false);
    if (event.persisted && !preview && !ownerShown) void checkAccess();
  });
  // The amount's problem beside the field, as the app's forms show theirs (web/components/field-error.tsx).
  const showTipError = (message: string | null) => {
    if (!tip) return;
    const id = "tip-error";
    let note = document.getElementById(id);
    if (!message) {
      note?.remove();
      tip.removeAttribute("aria-invalid");
      tip.removeAttribute("aria-describedby");
      return;
    }
    if (!note) {
      note = document.createElement("p");
      note.id = id;
      note.className = "text-sm text-destructive";
      note.setAttribute("role", "alert");
      tip.parentElement?.after(note);
    }
    note.textContent = message;
    tip.setAttribute("aria-invalid", "true");
    tip.setAttribute("aria-describedby", id);
  };
  tip?.addEventListener("input", () => showTipError(null));
  form?.addEventListener("submit", async (event) => {
    event.preventDefault();
    const choice = chosenAmount(item, tip?.value ?? "");
    showTipError("error" in choice ? choice.error.description : null);
    if ("error" in choice) {
      tip?.focus();
      return toast(choice.error.title, choice.error.description);
    }
    setBusy(true);
    try {
      // A code the page applied (`?code=`, written in by the Worker): the server charges its price.
      const discount = document.getElementById(PAYWALL_DISCOUNT_ID)?.textContent;
      const code = discount ? (JSON.parse(discount) as { code: string }).code : undefined;
      const startPayment = async () =>
        api("POST /api/create-payment-intent", {
          body: {
            contentId: id,
            customAmount: item.pricingModel === "pay_what_you_want" ? choice.amount : undefined,
            ...(code ? { discountCode: code } : {}),
          },
          headers: await checkHeaders(),
        });
      // A refused token (expired while the page sat open, spent): once more with a fresh one.
      const body = await startPayment().catch((err) => {
        if (err instanceof Error && err.message === REFUSED) return startPayment();
        throw err;
      });
      if ("alreadyOwned" in body) {
        // This browser bought it already: show its access instead of charging again.
        rememberAccess(id, body.accessUrl);
        setBusy(false);
        showState("checking");
        return void checkAccess();
      }
      // The payment form opens here (./checkout.ts, loaded now with Stripe.js); should it fail to
      // load, the app's checkout page takes the same payment.
      try {
        const { mountCheckout } = await import("./checkout");
        await mountCheckout(
          form!,
          {
            id,
            title: item.title,
            clientSecret: body.clientSecret,
            customAmount: item.pricingModel === "pay_what_you_want" ? choice.amount : undefined,
            bump: item.bump,
          },
          // The tax line comes with this first answer: the edge's estimate, before any form is typed.
          { amount: body.amount, discount: body.discount, bump: body.bump, tax: body.tax },
        );
      } catch {
        const checkout = new URLSearchParams({
          payment_intent: body.clientSecret,
          amount: String(body.amount),
          ...(code ? { code } : {}),
        });
        location.assign(`/checkout/${encodeURIComponent(id)}?${checkout}`);
      }
    } catch (err) {
      setBusy(false);
      // A code that stopped applying (used up, expired) says so; anything else is the generic error.
      // So do a bot check refused twice (the widget already has a fresh token for the next press) and
      // the rate limit ("Too many requests. Please wait a minute and try again.").
      const text = err instanceof Error ? err.message : "";
      const message =
        text === REFUSED
          ? HUMAN_CHECK_REFUSED
          : (/^429: (.+)$/.exec(text)?.[1] ?? /^(400|409): (?:discountCode: )?(.*code.*)$/i.exec(text)?.[2]);
      toast(PAYWALL_TEXT.paymentError.title, message ?? PAYWALL_TEXT.paymentError.description);
    }
  });

  // ---- "Lost your access?" ----
  const lost = part(PART.lostAccess, root);
  const lostForm = lost?.querySelector("form");
  const lostButton = lost?.querySelector<HTMLButtonElement>(":scope > button");
  lostButton?.addEventListener("click", () => {
    lostButton.hidden = true;
    lostForm!.hidden = false;
    lostForm!.querySelector("input")?.focus();
  });
  if (lost && lostForm) sendsLostAccess(lost, lostForm);
}

start();
