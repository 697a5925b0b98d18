// Stripe.js for the paywall's checkout: loaded once, only when 'Unlock' is pressed, typed by the
// little of it this page uses (the npm types would be the whole API).
import { api } from "@/lib/api";

type StripeError = { message?: string };
export type PaymentIntentLike = { id: string; status: string };
type StripeElement = {
  mount(el: HTMLElement): void;
  on(event: string, handler: (e: never) => void): StripeElement;
  destroy(): void;
};
type StripeElements = {
  create(type: string, options?: Record<string, unknown>): StripeElement;
  submit(): Promise<{ error?: StripeError }>;
  /** Reads the PaymentIntent again after the server changed its amount; the details typed stay. */
  fetchUpdates(): Promise<{ error?: StripeError }>;
};
export type StripeLike = {
  elements(options: Record<string, unknown>): StripeElements;
  createConfirmationToken(options: {
    elements: never;
  }): Promise<{ error?: StripeError; confirmationToken?: { id: string } }>;
  handleNextAction(options: {
    clientSecret: string;
  }): Promise<{ error?: StripeError; paymentIntent?: PaymentIntentLike }>;
  retrievePaymentIntent(clientSecret: string): Promise<{ paymentIntent?: { setup_future_usage?: string | null } }>;
};

const STRIPE_JS = "https://js.stripe.com/v3/";
let stripePromise: Promise<StripeLike> | null = null;

/** Stripe.js, loaded once from Stripe (or the configured local stand-in), then initialised with the publishable key. */
export function loadStripe(): Promise<StripeLike> {
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
