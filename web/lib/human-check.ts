// The Turnstile widget for the forms anyone can send (docs/security.md, "Bot protection"): the script
// loads only when a form mounts the widget (never before the page's first paint), the widget runs
// unseen unless Turnstile wants a click, and each request gets the header to send: a fresh token, or
// "unavailable" when the widget could not give one in time. The server then holds the request to a
// stricter limit instead of refusing it, so a blocked script never leaves a dead button.
// No React and no zod: the paywall's small bundle uses it as the SPA does.
import { HUMAN_CHECK_HEADER, HUMAN_CHECK_UNAVAILABLE, type HumanCheckAction } from "@shared/human-check";
import { api } from "./api";

type Turnstile = {
  render(el: HTMLElement, options: Record<string, unknown>): string | undefined;
  reset(id: string): void;
  remove(id: string): void;
};

/** How long a request waits for the widget's token before it goes without one. */
const WAIT_MS = 5000;
/** How long it waits while the widget asks the visitor to click. */
const INTERACTIVE_WAIT_MS = 60_000;

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
};

/**
 * One form's widget. `onInteractive(true)` when Turnstile asks the visitor to click (the widget shows
 * itself in the mounted element), `false` once done.
 */
export function createHumanCheck(action: HumanCheckAction, onInteractive?: (asking: boolean) => void): HumanCheck {
  let el: HTMLElement | null = null;
  let widget: { turnstile: Turnstile; id: string } | null = null;
  let token: string | undefined;
  let failed = false;
  let asking = false;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of waiters) w();
  };
  const ask = (value: boolean) => {
    asking = value;
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
            failed = false;
            if (asking) ask(false);
            wake();
          },
          "error-callback": () => {
            failed = true;
            token = undefined;
            wake();
            return true;
          },
          "expired-callback": () => (token = undefined),
          "before-interactive-callback": () => ask(true),
          "after-interactive-callback": () => ask(false),
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
    const started = Date.now();
    while (!token && !failed) {
      const left = started + (asking ? INTERACTIVE_WAIT_MS : WAIT_MS) - Date.now();
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

  return { mount, headers };
}
