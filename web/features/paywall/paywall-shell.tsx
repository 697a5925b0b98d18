// The frame the buyer-facing screens share with the server-rendered paywall
// (worker/pages/paywall.tsx): checkout, success and upsell pages, and their 'Content Not Found'.
import { SearchX } from "lucide-react";
import { LogoMark } from "@/components/logo";
import { Button } from "@/components/ui/button";

export function PaywallShell({ children }: { children: React.ReactNode }) {
  return (
    <div className="flex min-h-screen flex-col bg-muted/40">
      <header className="border-b bg-background">
        <div className="mx-auto flex h-14 max-w-4xl items-center px-4">
          <a href="/" className="flex items-center gap-2 font-bold">
            <LogoMark className="size-7" /> ApeWall
          </a>
        </div>
      </header>
      <main className="flex-1">{children}</main>
      <footer className="py-6 text-center text-xs text-muted-foreground">
        Secure card payment · No account needed · Powered by ApeWall
      </footer>
    </div>
  );
}

export function ContentNotFound() {
  return (
    <PaywallShell>
      <div className="mx-auto flex max-w-md flex-col items-center gap-3 px-4 py-24 text-center">
        <SearchX className="size-12 text-muted-foreground" />
        <h1 className="text-2xl font-bold">Content Not Found</h1>
        <p className="text-muted-foreground">This content may have been removed or doesn't exist.</p>
        <Button variant="outline" asChild>
          <a href="/">Go to ApeWall</a>
        </Button>
      </div>
    </PaywallShell>
  );
}
