// /library: a buyer signs in with an emailed one-time link and sees every purchase made with that
// address, across creators, each opened as its access link opens it (docs/library.md).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { Clock, KeyRound, Library, LogOut, MailWarning, PackageOpen } from "lucide-react";
import type { ReactNode } from "react";
import { LIBRARY_TEXT } from "@shared/library";
import { EmptyState } from "@/components/empty-state";
import { LoadFailed } from "@/components/load-failed";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { PaywallShell } from "@/features/paywall/paywall-shell";
import { api, withoutStatus } from "@/lib/api";
import { PurchaseCard } from "./purchase-card";
import { forgetSessionEnded, LIBRARY_KEY, useLibraryPurchases, useLibrarySession, useSessionEnded } from "./queries";
import { RequestLinkForm } from "./request-link";

const SESSION_ENDED = "Your library session ended. Sign in again.";

/** Why a call failed, for a person: the server's message, or the network's. */
const failedBecause = (err: Error) =>
  /^\d{3}: /.test(err.message)
    ? `${withoutStatus(err.message).replace(/\.$/, "")}. Try again.`
    : "Check your connection and try again.";

function Frame({ children }: { children: ReactNode }) {
  return (
    <PaywallShell>
      <div className="mx-auto w-full max-w-2xl px-4 py-10">{children}</div>
    </PaywallShell>
  );
}

function Centered({
  icon,
  title,
  text,
  children,
}: {
  icon: ReactNode;
  title: string;
  text: string;
  children?: ReactNode;
}) {
  return (
    <Card className="mx-auto max-w-md">
      <CardContent className="space-y-4 text-center">
        <div className="mx-auto flex size-14 items-center justify-center rounded-full bg-accent text-primary">
          {icon}
        </div>
        <h1 className="text-2xl font-bold">{title}</h1>
        <p className="text-muted-foreground">{text}</p>
        {children}
      </CardContent>
    </Card>
  );
}

/** Not signed in: the email form; after a session ended under the page (expired, signed out elsewhere), a note. */
function SignIn() {
  const ended = useSessionEnded();
  return (
    <Centered
      icon={<Library className="size-7" />}
      title="Your library"
      text="Everything you bought on ApeWall, from every creator, in one place. Enter the email you paid with and we'll send you a sign-in link."
    >
      {ended && (
        <p
          className="flex items-center justify-center gap-2 rounded-lg bg-muted px-3 py-2 text-sm font-medium"
          role="status"
          data-testid="library-session-ended"
        >
          <Clock className="size-4 shrink-0" /> {SESSION_ENDED}
        </p>
      )}
      <RequestLinkForm />
    </Centered>
  );
}

/**
 * The emailed link's page: nothing is used up until the button is pressed (a mail scanner opening
 * the link only loads this page). An expired or used link says so and offers a new one.
 */
function OpenWithLink({ token }: { token: string }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const open = useMutation({
    mutationFn: () => api("POST /api/library/session", { body: { token } }),
    onSuccess: async () => {
      forgetSessionEnded(queryClient);
      await queryClient.invalidateQueries({ queryKey: LIBRARY_KEY });
      await navigate({ to: "/library", search: { token: undefined }, hash: "", replace: true });
    },
  });
  if (open.error?.message.startsWith("400: ")) {
    return (
      <Centered
        icon={<MailWarning className="size-7" />}
        title={LIBRARY_TEXT.linkInvalid}
        text="Links work once, for 15 minutes. Get a new one: it takes a moment."
      >
        <div data-testid="library-link-invalid">
          <RequestLinkForm submitLabel="Email me a new link" />
        </div>
      </Centered>
    );
  }
  return (
    <Centered
      icon={<KeyRound className="size-7" />}
      title="Open your library"
      text="You're one click away from everything you bought with your email."
    >
      <Button variant="brand" size="lg" className="w-full" onClick={() => open.mutate()} disabled={open.isPending}>
        {open.isPending && <Spinner className="size-4 text-white" />} Open my library
      </Button>
      {open.error && (
        <p className="text-sm text-destructive" role="alert">
          {withoutStatus(open.error.message)}
        </p>
      )}
    </Centered>
  );
}

/** "Show more" under the list while older purchases remain; a page that failed says so and retries. */
function MorePurchases({ list }: { list: ReturnType<typeof useLibraryPurchases> }) {
  if (!list.hasNextPage) return null;
  return (
    <div className="space-y-2 text-center">
      {list.isFetchNextPageError && list.error && (
        <p className="text-sm text-destructive" role="alert">
          Couldn't load more purchases. {withoutStatus(list.error.message)}
        </p>
      )}
      <Button variant="outline" onClick={() => list.fetchNextPage()} disabled={list.isFetchingNextPage}>
        {list.isFetchingNextPage && <Spinner className="size-4" />} Show more
      </Button>
    </div>
  );
}

function SignedIn({ email }: { email: string }) {
  const queryClient = useQueryClient();
  const list = useLibraryPurchases();
  const purchases = list.data?.pages.flatMap((p) => p.purchases) ?? [];
  const signOut = useMutation({
    mutationFn: () => api("POST /api/library/sign-out"),
    onSuccess: () => {
      forgetSessionEnded(queryClient);
      return queryClient.resetQueries({ queryKey: LIBRARY_KEY });
    },
  });
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div className="min-w-0">
          <h1 className="text-3xl font-bold">Your library</h1>
          <p className="break-words text-sm text-muted-foreground" data-testid="library-email">
            Signed in as {email}
          </p>
        </div>
        <Button variant="outline" size="sm" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
          {signOut.isPending ? <Spinner className="size-4" /> : <LogOut />} Sign out
        </Button>
      </div>
      {signOut.error && (
        <p className="text-right text-sm text-destructive" role="alert" data-testid="library-sign-out-failed">
          Couldn't sign out. {failedBecause(signOut.error)}
        </p>
      )}
      {list.isLoading ? (
        <div className="flex justify-center py-16" role="status">
          <Spinner className="size-8" label="Loading your purchases" />
        </div>
      ) : !list.data ? (
        <LoadFailed
          what="your purchases"
          detail={list.error ? withoutStatus(list.error.message) : undefined}
          onRetry={() => list.refetch()}
        />
      ) : purchases.length === 0 ? (
        <EmptyState icon={PackageOpen} title={LIBRARY_TEXT.empty} text={LIBRARY_TEXT.emptyHint} />
      ) : (
        <>
          <ul className="space-y-4" data-testid="library-purchases">
            {purchases.map((p) => (
              <li key={p.id}>
                <PurchaseCard p={p} />
              </li>
            ))}
          </ul>
          <MorePurchases list={list} />
        </>
      )}
    </div>
  );
}

export function LibraryPage({ token }: { token?: string }) {
  const session = useLibrarySession();
  let body: ReactNode;
  if (token) body = <OpenWithLink token={token} />;
  else if (session.isLoading)
    body = (
      <div className="flex justify-center py-24" role="status">
        <Spinner className="size-8" />
      </div>
    );
  else if (session.error)
    body = (
      <LoadFailed what="your library" detail={withoutStatus(session.error.message)} onRetry={() => session.refetch()} />
    );
  else if (!session.data) body = <SignIn />;
  else body = <SignedIn email={session.data.email} />;
  return <Frame>{body}</Frame>;
}
