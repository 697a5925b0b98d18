import { Link } from "@tanstack/react-router";
import { MessageSquare } from "lucide-react";
import { Logo } from "@/components/logo";
import { Button } from "@/components/ui/button";
import { goToLogin, useAuth } from "@/lib/auth";

/** The signed-out top bar: product name, feedback, 'View Pricing' and 'Sign In'. */
export function PublicTopBar() {
  const { isAuthenticated } = useAuth();
  return (
    <header className="sticky top-0 z-40 border-b bg-background/80 backdrop-blur">
      <div className="mx-auto flex h-16 max-w-6xl items-center justify-between gap-2 px-4">
        <Logo />
        <nav className="flex min-w-0 items-center gap-1 sm:gap-2">
          {/* On a phone 'Feedback' is its icon (as in the signed-in bar), so the product name keeps its room. */}
          <Button variant="ghost" size="sm" asChild>
            <a href="/feedback" aria-label="Feedback">
              <MessageSquare className="sm:hidden" />
              <span className="hidden sm:inline">Feedback</span>
            </a>
          </Button>
          <Button variant="ghost" size="sm" asChild>
            <a href="/pricing">View Pricing</a>
          </Button>
          {isAuthenticated ? (
            <Button size="sm" asChild>
              <Link to="/">Dashboard</Link>
            </Button>
          ) : (
            <Button size="sm" onClick={goToLogin}>
              Sign In
            </Button>
          )}
        </nav>
      </div>
    </header>
  );
}
