// The bot check (docs/security.md, "Bot protection") for a public page's form, as the paywall does
// it: its code and Turnstile's script load only once the visitor heads for the form (pointer over,
// touch, focus, a key; a field the page focused itself waits for the first key), never before the
// first paint, so the token is usually ready by the press. Whatever goes wrong (its chunk late or
// missing), the request goes without a token: never a dead button.
import { HUMAN_CHECK_HEADER, HUMAN_CHECK_UNAVAILABLE, type HumanCheckAction } from "@shared/human-check";

/** How long a press waits for the check's code to load, as long as the widget waits for a token. */
const CHECK_LOAD_MS = 5000;

type Check = import("@/lib/human-check").HumanCheck;
type Request<T> = (headers: Record<string, string>) => Promise<T>;

/** The check of `form`, drawn in `slot`; `send(request)` runs the request with its header (retried once when refused). */
export function formCheck(action: HumanCheckAction, form: HTMLFormElement, slot: HTMLElement) {
  let check: Promise<Check> | undefined;
  // A chunk that failed to load is forgotten, so the next press tries again.
  const start = () =>
    (check ??= import("@/lib/human-check")
      .then(({ createHumanCheck }) => {
        const made = createHumanCheck(action);
        made.mount(slot);
        return made;
      })
      .catch((err) => {
        check = undefined;
        throw err;
      }));
  const onIntent = () => void start().catch(() => {});
  for (const type of ["pointerenter", "pointerdown", "focusin", "keydown"])
    form.addEventListener(type, onIntent, { once: true });

  const loaded = async (): Promise<Check | null> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("The bot check did not load in time")), CHECK_LOAD_MS);
      });
      return await Promise.race([start(), late]);
    } catch {
      return null;
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    async send<T>(request: Request<T>): Promise<T> {
      const made = await loaded();
      return made ? made.send(request) : request({ [HUMAN_CHECK_HEADER]: HUMAN_CHECK_UNAVAILABLE });
    },
  };
}
