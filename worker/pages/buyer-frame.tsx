/** @jsxImportSource hono/jsx */
// The frame of the buyer's pages the Worker draws, the paywall and the success page (docs/pages.md),
// as the SPA's checkout draws it (web/features/paywall/paywall-shell.tsx): the product's name, the
// page, the payment line, and the list the islands put their toasts in (web/lib/dom-toast.ts).
import type { Child } from "hono/jsx";
import { PAYWALL_PART } from "../../shared/paywall";
import { LogoMark } from "./icons";

export function BuyerFrame({ children }: { children: Child }) {
  return (
    <div class="flex min-h-screen flex-col bg-muted/40">
      <header class="border-b bg-background">
        <div class="mx-auto flex h-14 max-w-4xl items-center px-4">
          <a href="/" class="flex items-center gap-2 font-bold">
            <LogoMark class="size-7" /> ApeWall
          </a>
        </div>
      </header>
      <main class="flex-1">{children}</main>
      <footer class="px-4 py-6 text-center text-xs text-muted-foreground">
        Secure card payment · No account needed · Powered by ApeWall
      </footer>
      <ol
        data-part={PAYWALL_PART.toasts}
        aria-live="polite"
        class="pointer-events-none fixed top-0 z-[100] flex max-h-screen w-full flex-col-reverse p-4 sm:top-auto sm:right-0 sm:bottom-0 sm:flex-col md:max-w-[420px]"
      />
    </div>
  );
}
