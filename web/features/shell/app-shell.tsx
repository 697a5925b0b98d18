import type { ReactNode } from "react";
import { useAuth } from "@/lib/auth";
import { CreatorTopBar } from "./creator-top-bar";
import { PublicTopBar } from "./public-top-bar";
import { SiteFooter } from "./site-footer";

/** A page with the top bar that fits the sign-in state. */
export function AppShell({ children }: { children: ReactNode }) {
  const { user } = useAuth();
  return (
    <div className="flex min-h-screen flex-col">
      {user ? <CreatorTopBar user={user} /> : <PublicTopBar />}
      <main className="flex-1">{children}</main>
      <SiteFooter />
    </div>
  );
}
