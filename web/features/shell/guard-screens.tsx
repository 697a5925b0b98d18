// The not-found / sign-in-required screen of spec §2 and the guard that creator pages share.
import { Link } from "@tanstack/react-router";
import { FileQuestion, Lock } from "lucide-react";
import type { ReactNode } from "react";
import type { CurrentUser } from "@shared/schemas";
import { PageSpinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { goToLogin, useAuth } from "@/lib/auth";

export function MessageScreen({ icon, title, message, action }: { icon: ReactNode; title: string; message: string; action?: ReactNode }) {
  return (
    <div className="flex min-h-screen items-center justify-center bg-background px-4">
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

/** Unknown paths: a spinner while auth loads, 404 when signed in, 'Sign In Required' when signed out. */
export function NotFoundScreen() {
  const { user, isLoading } = useAuth();
  if (isLoading) return <PageSpinner />;
  if (!user) return <SignInRequired />;
  return (
    <MessageScreen
      icon={<FileQuestion className="size-7" />}
      title="404 Page Not Found"
      message="The page you're looking for doesn't exist."
      action={
        <Button asChild>
          <Link to="/">Go to Dashboard</Link>
        </Button>
      }
    />
  );
}

/** Renders `children(user)` when signed in; a spinner while loading; `signedOut` (default 'Sign In Required') otherwise. */
export function RequireAuth({ children, signedOut }: { children: (user: CurrentUser) => ReactNode; signedOut?: ReactNode }) {
  const { user, isLoading } = useAuth();
  if (isLoading) return <PageSpinner />;
  if (!user) return <>{signedOut ?? <SignInRequired />}</>;
  return <>{children(user)}</>;
}
