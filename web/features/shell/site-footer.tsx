import { PRODUCT_NAME } from "@shared/site";

export function SiteFooter() {
  return (
    <footer className="border-t bg-background">
      <div className="mx-auto flex max-w-6xl flex-col items-center justify-between gap-2 px-4 py-6 text-sm text-muted-foreground sm:flex-row">
        <span>
          © {new Date().getFullYear()} {PRODUCT_NAME}. Payments by card, secured by Stripe.
        </span>
        <nav className="flex gap-4">
          <a href="/pricing" className="hover:text-foreground">
            Pricing
          </a>
          <a href="/feedback" className="hover:text-foreground">
            Feedback
          </a>
        </nav>
      </div>
    </footer>
  );
}
