/** @jsxImportSource hono/jsx */
// "Lost your access?" (spec §2), the form the paywall and the success page draw alike: the email, 'Send
// links', the answer's place, the library link, and the template of the "sent" note. web/lib/lost-access.ts
// sends it from either page's island (the API takes JSON); the library link works without script.
import { Icon } from "./icons";
import { button, TEXT_INPUT } from "./ui";

/** "See everything you bought in your library" (docs/library.md). */
const LIBRARY_LINK = "font-medium underline underline-offset-4 hover:text-foreground";

/**
 * The form and its "sent" template. `hidden`: drawn closed (the paywall opens it from its own button);
 * `disabled`: 'Send links' waits for the island (the success page, where the form shows at once).
 */
export function LostAccessForm({ hidden = false, disabled = false }: { hidden?: boolean; disabled?: boolean }) {
  return (
    <>
      <form hidden={hidden} class="space-y-2 text-left" novalidate aria-label="Lost your access?">
        <label for="lost-access-email" class="text-sm font-medium">
          Lost your access? Enter the email you paid with and we'll send your access links.
        </label>
        <div class="flex gap-2">
          <input
            id="lost-access-email"
            name="email"
            type="email"
            autocomplete="email"
            placeholder="you@example.com"
            class={TEXT_INPUT}
          />
          <button type="submit" disabled={disabled} class={button("outline")}>
            <Icon name="loader" class="hidden size-4 animate-spin text-primary" /> Send links
          </button>
        </div>
        <p role="alert" class="text-sm text-destructive" />
        <p class="text-sm text-muted-foreground">
          <a href="/library" class={LIBRARY_LINK}>
            See everything you bought in your library
          </a>
        </p>
      </form>
      <template>
        <div
          class="flex items-start gap-2 rounded-lg bg-emerald-50 px-3 py-2 text-left text-sm text-emerald-900"
          role="status"
          data-testid="lost-access-sent"
        >
          <Icon name="mailCheck" class="mt-0.5 size-4 shrink-0" />
          {/* The island writes the answer into the first span (a div holds a div; a p would not). */}
          <div>
            <span />{" "}
            <a href="/library" class={LIBRARY_LINK}>
              See everything you bought in your library
            </a>
          </div>
        </div>
      </template>
    </>
  );
}
