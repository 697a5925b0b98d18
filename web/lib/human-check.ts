// The Turnstile widget for the forms anyone can send (docs/security.md, "Bot protection"): the script
// loads only when a form mounts the widget (never before the page's first paint), the widget runs
// unseen unless Turnstile wants a click, and each request gets the header to send: a fresh token, or
// "unavailable" when the widget could not give one in time. The server then holds the request to a
// stricter limit instead of refusing it, so a blocked script never leaves a dead button.
// No React and no zod: the paywall's small bundle uses it as the SPA does.
import {
  HUMAN_CHECK_HEADER,
  HUMAN_CHECK_REFUSED,
  HUMAN_CHECK_UNAVAILABLE,
  type HumanCheckAction,
} from "@shared/human-check";
import { api } from "./api";

type Turnstile = {
  render(el: HTMLElement, options: Record<string, unknown>): string | undefined;
  reset(id: string): void;
  remove(id: string): void;
};

/** How long a request waits for the widget's token before it goes without one. */
const WAIT_MS = 5000;
/** How long it waits once the widget asked the visitor to click (from the ask, the request, and the click). */
const INTERACTIVE_WAIT_MS = 60_000;
/**
 * A token older than this is not sent (Turnstile's last 300 s; a laptop asleep, a page kept in the
 * back/forward cache or a background tab may never have heard `expired-callback`): the widget is
 * reset and the request waits for a fresh one.
 */
const TOKEN_MAX_AGE_MS = 270_000;

let loading: Promise<{ turnstile: Turnstile; siteKey: string }> | null = null;

/** The configured sitekey and Turnstile's script, loaded once; a failure is forgotten so a later try loads again. */
function loadTurnstile(): Promise<{ turnstile: Turnstile; siteKey: string }> {
  loading ??= (async () => {
    const { siteKey, scriptUrl } = await api("GET /api/human-check");
    if (!siteKey) throw new Error("No Turnstile sitekey configured");
    const w = window as unknown as { turnstile?: Turnstile };
    if (!w.turnstile) {
      const src = new URL(scriptUrl, location.href);
      src.searchParams.set("render", "explicit");
      await new Promise<void>((resolve, reject) => {
        const script = document.createElement("script");
        script.src = src.toString();
        script.async = true;
        script.onload = () => resolve();
        script.onerror = () => reject(new Error("Turnstile did not load"));
        document.head.append(script);
      });
    }
    if (!w.turnstile) throw new Error("Turnstile did not load");
    return { turnstile: w.turnstile, siteKey };
  })().catch((err) => {
    loading = null;
    throw err;
  });
  return loading;
}

export type HumanCheck = {
  /** Draws the widget in `el` (null removes it). Call early: the token is then ready by the click. */
  mount(el: HTMLElement | null): void;
  /** The header for one request: a token (the widget then fetches the next), or "unavailable". */
  headers(): Promise<Record<string, string>>;
  /** `request` with `headers()`, and once more with a fresh token when the server refused the first (403). */
  send<T>(request: (headers: Record<string, string>) => Promise<T>): Promise<T>;
};

/** Whether `err` is the server's refusal of a token (as `api()` throws it). */
const refusedByCheck = (err: unknown) => err instanceof Error && err.message === `403: ${HUMAN_CHECK_REFUSED}`;

/**
 * One form's widget. `onInteractive(true)` when Turnstile asks the visitor to click (the widget shows
 * itself in the mounted element), `false` once done.
 */
export function createHumanCheck(action: HumanCheckAction, onInteractive?: (asking: boolean) => void): HumanCheck {
  let el: HTMLElement | null = null;
  let widget: { turnstile: Turnstile; id: string } | null = null;
  let token: string | undefined;
  /** When the token arrived (Date.now()). */
  let tokenAt = 0;
  let failed = false;
  let asking = false;
  /** While a click challenge is up: when it appeared or was last clicked, the start of its own wait. */
  let askedAt = 0;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of waiters) w();
  };
  const ask = (value: boolean) => {
    asking = value;
    askedAt = Date.now();
    onInteractive?.(value);
    wake();
  };

  const mount = (next: HTMLElement | null) => {
    if (next === el && (widget || !failed)) return;
    if (widget) widget.turnstile.remove(widget.id);
    widget = null;
    token = undefined;
    failed = false;
    el = next;
    if (!next) return;
    loadTurnstile().then(
      ({ turnstile, siteKey }) => {
        if (el !== next) return;
        const id = turnstile.render(next, {
          sitekey: siteKey,
          action,
          appearance: "interaction-only",
          "response-field": false,
          callback: (t: string) => {
            token = t;
            tokenAt = Date.now();
            failed = false;
            if (asking) ask(false);
            wake();
          },
          "error-callback": () => {
            failed = true;
            token = undefined;
            if (asking) ask(false);
            wake();
            return true;
          },
          "expired-callback": () => (token = undefined),
          "before-interactive-callback": () => ask(true),
          // The visitor clicked; the token follows in its own callback: wait for it, 60 s from now.
          "after-interactive-callback": () => {
            askedAt = Date.now();
          },
          // The challenge went unanswered: stop waiting for it.
          "timeout-callback": () => ask(false),
        });
        if (id) widget = { turnstile, id };
        else failed = true;
        wake();
      },
      () => {
        if (el !== next) return;
        failed = true;
        wake();
      },
    );
  };

  const headers = async () => {
    // Not drawn yet (the page had no place for it): at the end of the page, where a click request shows.
    if (!el) mount(document.body.appendChild(document.createElement("div")));
    // A script that failed earlier (a network blip) gets one more chance, for this request or the next.
    if (failed && !widget && el) mount(el);
    if (token && widget && Date.now() - tokenAt > TOKEN_MAX_AGE_MS) {
      token = undefined;
      widget.turnstile.reset(widget.id);
    }
    const started = Date.now();
    while (!token && !failed) {
      // A challenge up: 60 s from the latest of its appearance, the click and this request.
      const left = asking
        ? Math.max(askedAt, started) + INTERACTIVE_WAIT_MS - Date.now()
        : started + WAIT_MS - Date.now();
      if (left <= 0) break;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, left);
        waiters.add(done);
      });
    }
    const value = token ?? HUMAN_CHECK_UNAVAILABLE;
    // A token is good for one request: the widget starts on the next one now.
    if (token && widget) {
      token = undefined;
      widget.turnstile.reset(widget.id);
    }
    return { [HUMAN_CHECK_HEADER]: value };
  };

  const send = async <T>(request: (headers: Record<string, string>) => Promise<T>): Promise<T> => {
    try {
      return await request(await headers());
    } catch (err) {
      // An expired or spent token (a page left open, a slept laptop): once more with a fresh one.
      if (!refusedByCheck(err)) throw err;
      return request(await headers());
    }
  };

  return { mount, headers, send };
}
