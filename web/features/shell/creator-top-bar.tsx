// The signed-in top bar: every creator page named in words with the icon that fits it (the tag is
// Discounts). Wide screens show them in the bar; narrower ones (a phone) behind "Menu", a list of the
// same words, so nothing is an unlabelled icon. The page you are on is marked (aria-current).
// Checked at 390 and 1280 px: e2e/checkout-and-codes/discounts-phone.test.ts (docs/security.md "Phones").
import { Link, useRouterState } from "@tanstack/react-router";
import {
  CircleDollarSign,
  LayoutDashboard,
  LogOut,
  Menu,
  MessageSquare,
  Settings,
  Shield,
  Tag,
  Workflow,
  X,
} from "lucide-react";
import { useEffect, useId, useRef, useState } from "react";
import type { CurrentUser } from "@shared/auth";
import { Logo } from "@/components/logo";
import { Button } from "@/components/ui/button";
import { goToLogout } from "@/lib/auth";

const LINKS = [
  { to: "/", label: "Dashboard", icon: LayoutDashboard, also: ["/dashboard"] },
  { to: "/funnels", label: "Funnels", icon: Workflow },
  { to: "/discounts", label: "Discounts", icon: Tag },
  // Pages the Worker renders (docs/pages.md): plain links, a full page load.
  { to: "/pricing", label: "Pricing", icon: CircleDollarSign, worker: true },
  { to: "/feedback", label: "Feedback", icon: MessageSquare, worker: true },
  { to: "/settings", label: "Settings", icon: Settings },
  { to: "/admin", label: "Admin", icon: Shield, adminOnly: true },
] as const;

type Item = (typeof LINKS)[number];
const isCurrent = (l: Item, path: string) =>
  path === l.to || ("also" in l && (l.also as readonly string[]).includes(path));

function PageLinks({ user, path, inMenu }: { user: CurrentUser; path: string; inMenu: boolean }) {
  return LINKS.filter((l) => !("adminOnly" in l) || user.isAdmin).map((l) => {
    const current = isCurrent(l, path);
    return (
      <Button
        key={l.to}
        variant="ghost"
        size={inMenu ? "lg" : "sm"}
        className={`${inMenu ? "h-11 w-full justify-start" : ""} ${current ? "bg-accent text-accent-foreground" : ""}`}
        asChild
      >
        {"worker" in l ? (
          <a href={l.to} aria-current={current ? "page" : undefined}>
            <l.icon />
            {l.label}
          </a>
        ) : (
          <Link to={l.to} aria-current={current ? "page" : undefined}>
            <l.icon />
            {l.label}
          </Link>
        )}
      </Button>
    );
  });
}

export function CreatorTopBar({ user }: { user: CurrentUser }) {
  const path = useRouterState({ select: (s) => s.location.pathname });
  const [open, setOpen] = useState(false);
  const menuId = useId();
  const menuButton = useRef<HTMLButtonElement>(null);
  // A page chosen (or Back) closes the menu; so does Escape.
  // biome-ignore lint/correctness/useExhaustiveDependencies: closes on each change of page
  useEffect(() => setOpen(false), [path]);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setOpen(false);
      menuButton.current?.focus(); // the focused item leaves with the menu; focus returns to its button
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, [open]);

  return (
    <header className="sticky top-0 z-40 border-b bg-background/80 backdrop-blur">
      <div className="mx-auto flex h-16 max-w-6xl items-center justify-between gap-2 px-4">
        <Logo />
        <nav className="hidden items-center gap-1 lg:flex" aria-label="Pages">
          <span
            className="mr-2 hidden max-w-48 truncate text-sm text-muted-foreground 2xl:inline"
            data-testid="user-name"
          >
            {user.firstName || user.email}
          </span>
          <PageLinks user={user} path={path} inMenu={false} />
          <Button variant="outline" size="sm" onClick={goToLogout}>
            <LogOut />
            Log out
          </Button>
        </nav>
        <Button
          variant="outline"
          size="sm"
          className="lg:hidden"
          aria-expanded={open}
          aria-controls={menuId}
          ref={menuButton}
          onClick={() => setOpen((o) => !o)}
        >
          {open ? <X /> : <Menu />}
          Menu
        </Button>
      </div>
      {open && (
        <>
          <button
            type="button"
            aria-label="Close the menu"
            tabIndex={-1}
            className="fixed inset-x-0 top-16 bottom-0 bg-black/20 lg:hidden"
            onClick={() => setOpen(false)}
          />
          <nav
            id={menuId}
            aria-label="Pages"
            className="absolute inset-x-0 top-full border-b bg-background shadow-md lg:hidden"
          >
            <div className="mx-auto grid max-w-6xl gap-1 px-4 py-3">
              <p className="truncate px-3 pb-1 text-sm text-muted-foreground">{user.firstName || user.email}</p>
              <PageLinks user={user} path={path} inMenu />
              <Button variant="ghost" size="lg" className="h-11 w-full justify-start" onClick={goToLogout}>
                <LogOut />
                Log out
              </Button>
            </div>
          </nav>
        </>
      )}
    </header>
  );
}
