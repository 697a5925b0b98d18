/** @jsxImportSource hono/jsx */
// The public pages' frame (docs/pages.md): the signed-out top bar (product name, 'Feedback',
// 'View Pricing', 'Sign In' to /api/login) and the site footer, as the SPA draws them
// (web/features/shell/public-top-bar.tsx, site-footer.tsx), with no script. web/site/common.ts turns
// 'Sign In' into 'Dashboard' for a signed-in visitor; the slot keeps its width, so nothing moves.
import type { Child } from "hono/jsx";
import { PRODUCT_NAME, SITE_PART } from "../../shared/site";
import { Icon, LogoMark } from "./icons";
import { button } from "./ui";

function SiteTopBar() {
  return (
    <header class="sticky top-0 z-40 border-b bg-background/80 backdrop-blur">
      <div class="mx-auto flex h-16 max-w-6xl items-center justify-between gap-1 px-4">
        <a href="/" class="flex shrink-0 items-center gap-2 font-bold text-lg tracking-tight">
          <LogoMark class="size-8" />
          <span>{PRODUCT_NAME}</span>
        </a>
        <nav class="flex min-w-0 items-center gap-0.5 sm:gap-2">
          {/* On a phone 'Feedback' is its icon, so the product name keeps its room. */}
          <a href="/feedback" aria-label="Feedback" class={button("ghost", "sm")}>
            <Icon name="messageSquare" class="sm:hidden" />
            <span class="hidden sm:inline">Feedback</span>
          </a>
          <a href="/pricing" class={button("ghost", "sm", "max-sm:px-2")}>
            View Pricing
          </a>
          {/* As wide as 'Dashboard', which the island may put here: neither the swap nor a phone moves anything. */}
          <a
            href="/api/login"
            data-part={SITE_PART.signIn}
            data-spa
            class={button("default", "sm", "max-sm:w-24 max-sm:px-2 sm:min-w-[6.5rem]")}
          >
            Sign In
          </a>
        </nav>
      </div>
    </header>
  );
}

function SiteFooter() {
  return (
    <footer class="border-t bg-background">
      <div class="mx-auto flex max-w-6xl flex-col items-center justify-between gap-2 px-4 py-6 text-sm text-muted-foreground sm:flex-row">
        <span>
          © {new Date().getUTCFullYear()} {PRODUCT_NAME}. Payments by card, secured by Stripe.
        </span>
        <nav class="flex gap-4">
          <a href="/pricing" class="hover:text-foreground">
            Pricing
          </a>
          <a href="/feedback" class="hover:text-foreground">
            Feedback
          </a>
        </nav>
      </div>
    </footer>
  );
}

/** A public page: top bar, the page, footer (the SPA's AppShell when signed out). */
export function SitePage({ children }: { children: Child }) {
  return (
    <div class="flex min-h-screen flex-col">
      <SiteTopBar />
      <main class="flex-1">{children}</main>
      <SiteFooter />
    </div>
  );
}
