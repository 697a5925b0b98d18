// The not-found and sign-in-required screens of spec §2 and the guard that creator pages share.
import { Link } from "@tanstack/react-router";
import { FileQuestion, Lock } from "lucide-react";
import type { ReactNode } from "react";
import type { CurrentUser } from "@shared/auth";
import { PageSpinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { goToLogin, useAuth } from "@/lib/auth";
import { AppShell } from "./app-shell";

export function MessageScreen({
  icon,
  title,
  message,
  action,
  inShell = false,
}: {
  icon: ReactNode;
  title: string;
  message: string;
  action?: ReactNode;
  inShell?: boolean;
}) {
  return (
    <div className={`flex items-center justify-center bg-background px-4 ${inShell ? "py-16" : "min-h-screen"}`}>
      <Card className="w-full max-w-md">
        <CardContent className="flex flex-col items-center gap-4 pt-2 text-center">
          <div className="flex size-14 items-center justify-center rounded-full bg-accent text-primary">{icon}</div>
          <h1 className="text-2xl font-bold">{title}</h1>
          <p className="text-muted-foreground">{message}</p>
          {action}
        </CardContent>
      </Card>
    </div>
  );
}

export function SignInRequired() {
  return (
    <MessageScreen
      icon={<Lock className="size-7" />}
      title="Sign In Required"
      message="This page requires authentication. Please sign in to continue."
      action={<Button onClick={goToLogin}>Sign In to Continue</Button>}
    />
  );
}

/**
 * Unknown paths (the Worker answers them with status 404): a spinner while auth loads, then the
 * not-found message inside the app's shell, for everyone. Signed in it leads to the dashboard,
 * signed out to the home page. Known pages that need an account keep 'Sign In Required' (RequireAuth).
 */
export function NotFoundScreen() {
  const { user, isLoading } = useAuth();
  if (isLoading) return <PageSpinner />;
  return (
    <AppShell>
      <MessageScreen
        inShell
        icon={<FileQuestion className="size-7" />}
        title="404 Page Not Found"
        message="The page you're looking for doesn't exist."
        action={
          <Button asChild>
            <Link to="/">{user ? "Go to Dashboard" : "Go to Home"}</Link>
          </Button>
        }
      />
    </AppShell>
  );
}

/** Renders `children(user)` when signed in; a spinner while loading; `signedOut` (default 'Sign In Required') otherwise. */
export function RequireAuth({
  children,
  signedOut,
}: {
  children: (user: CurrentUser) => ReactNode;
  signedOut?: ReactNode;
}) {
  const { user, isLoading } = useAuth();
  if (isLoading) return <PageSpinner />;
  if (!user) return <>{signedOut ?? <SignInRequired />}</>;
  return <>{children(user)}</>;
}
