import { Link } from "@tanstack/react-router";
import { BadgePercent, LogOut, MessageSquare, Settings, Shield, Tag, Workflow } from "lucide-react";
import type { CurrentUser } from "@shared/auth";
import { Logo } from "@/components/logo";
import { Button } from "@/components/ui/button";
import { goToLogout } from "@/lib/auth";

const LINKS = [
  { to: "/funnels", label: "Funnels", icon: Workflow },
  { to: "/discounts", label: "Discounts", icon: BadgePercent },
  { to: "/pricing", label: "Pricing", icon: Tag },
  { to: "/feedback", label: "Feedback", icon: MessageSquare },
  { to: "/settings", label: "Settings", icon: Settings },
  { to: "/admin", label: "Admin", icon: Shield, adminOnly: true },
] as const;

/** The signed-in top bar: who is signed in, funnels, pricing, feedback, settings, Admin (admin only), logout. */
export function CreatorTopBar({ user }: { user: CurrentUser }) {
  return (
    <header className="sticky top-0 z-40 border-b bg-background/80 backdrop-blur">
      <div className="mx-auto flex h-16 max-w-6xl items-center justify-between gap-2 px-4">
        <Logo />
        <nav className="flex items-center gap-0.5 sm:gap-1">
          <span
            className="mr-2 hidden max-w-48 truncate text-sm text-muted-foreground md:inline"
            data-testid="user-name"
          >
            {user.firstName || user.email}
          </span>
          {LINKS.filter((l) => !("adminOnly" in l) || user.isAdmin).map(({ to, label, icon: Icon }) => (
            // Icons only on a phone, narrower: seven of them and the logo fit 390 px (e2e/security/phone.test.ts).
            <Button key={to} variant="ghost" size="sm" className="has-[>svg]:px-1.5 sm:has-[>svg]:px-2.5" asChild>
              <Link to={to} aria-label={label}>
                <Icon />
                <span className="hidden sm:inline">{label}</span>
              </Link>
            </Button>
          ))}
          <Button
            variant="outline"
            size="sm"
            className="has-[>svg]:px-1.5 sm:has-[>svg]:px-2.5"
            onClick={goToLogout}
            aria-label="Log out"
          >
            <LogOut />
            <span className="hidden sm:inline">Logout</span>
          </Button>
        </nav>
      </div>
    </header>
  );
}
