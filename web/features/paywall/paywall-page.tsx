// The public paywall (spec §2): what the buyer gets, the price or a pay-what-you-want amount, and
// 'Unlock'. This route is its own small chunk: it never loads the creator app.
import { useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { Eye, FileText, Link2, Lock, LockOpen, PlayCircle, SearchX, ShieldCheck, Type } from "lucide-react";
import { useEffect, useState, type FormEvent } from "react";
import { formatFileSize } from "@shared/constants";
import type { PublicContent } from "@shared/content";
import type { AlreadyOwned, ContentAccess } from "@shared/payments";
import { LogoMark } from "@/components/logo";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { toast } from "@/hooks/use-toast";
import { apiRequest } from "@/lib/api";
import { formatUsd } from "@/lib/utils";
import { LostAccess } from "@/features/access/lost-access";
import { PurchaseAccess } from "@/features/access/purchase-access";
import { FunnelPreviewBar } from "@/features/funnels/funnel-preview-bar";
import { probablyOwned, rememberAccess } from "@/lib/access-tokens";
import { useContentAccess, usePaywallContent } from "./paywall-data";

const ACCESS = {
  download: { icon: FileText, label: "Instant download" },
  view: { icon: Type, label: "View online" },
  stream: { icon: PlayCircle, label: "Stream online" },
  link: { icon: Link2, label: "Private link" },
} as const;

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

/** The amount to charge in dollars, or an error message (spec §5 'Paywall tip'). */
export function chosenAmount(item: PublicContent, input: string): { amount: number } | { error: { title: string; description: string } } {
  if (item.pricingModel !== "pay_what_you_want") return { amount: item.price };
  const min = item.minimumPrice ?? item.price;
  if (!input.trim()) return { amount: min };
  const amount = Number(input);
  if (!Number.isFinite(amount) || amount < min) return { error: { title: "Amount too low", description: `Minimum amount is $${min.toFixed(2)}` } };
  return { amount: Math.round(amount * 100) / 100 };
}

/** Back from payment: confirmed, or still processing (the access call then keeps asking). */
type Returned = { state: "none" } | { state: "returned"; processing: boolean };

type CardProps = { item: PublicContent; preview: boolean; access: ContentAccess | undefined; accessLoading: boolean; accessToken?: string; returned: Returned; onUnlock: (amount: number) => Promise<void> | void };

function PaywallCard({ item, preview, access, accessLoading, accessToken, returned, onUnlock }: CardProps) {
  const [tip, setTip] = useState("");
  const [busy, setBusy] = useState(false);
  const kind = ACCESS[item.accessType];
  const pwyw = item.pricingModel === "pay_what_you_want";
  const min = item.minimumPrice ?? item.price;
  const owned = access?.owned === true;
  // A browser that paid before waits for the access call rather than being offered 'Unlock' again.
  const waiting = !owned && (returned.state === "returned" || (accessLoading && probablyOwned(item.id)));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const choice = chosenAmount(item, tip);
    if ("error" in choice) return toast({ ...choice.error, variant: "destructive" });
    setBusy(true);
    try {
      await onUnlock(choice.amount);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="mx-auto max-w-4xl px-4 py-8 sm:py-12">
      {preview && (
        <div className="mb-4 flex items-center gap-2 rounded-lg border border-amber-200 bg-amber-50 px-4 py-2 text-sm text-amber-900">
          <Eye className="size-4" /> Preview: this is what buyers see.
        </div>
      )}
      <div className="grid overflow-hidden rounded-2xl border bg-card shadow-xl md:grid-cols-2">
        <div className="relative aspect-[4/3] bg-brand-gradient md:aspect-auto">
          {item.previewImage ? (
            <img src={item.previewImage} alt={item.title} className="absolute inset-0 size-full object-cover" />
          ) : (
            <div className="absolute inset-0 flex items-center justify-center text-white/90">
              <kind.icon className="size-20" />
            </div>
          )}
          <div className="absolute top-3 left-3 flex items-center gap-1.5 rounded-full bg-black/60 px-3 py-1 text-xs font-medium text-white backdrop-blur">
            {owned ? (
              <>
                <LockOpen className="size-3.5" /> Unlocked
              </>
            ) : (
              <>
                <Lock className="size-3.5" /> Locked
              </>
            )}
          </div>
        </div>
        <div className="flex flex-col gap-5 p-6 sm:p-8">
          <div className="space-y-2">
            <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">{item.title}</h1>
            <p className="text-sm text-muted-foreground">by {item.user.firstName || "an ApeWall creator"}</p>
          </div>
          {item.description && <p className="whitespace-pre-line text-muted-foreground">{item.description}</p>}
          <div className="flex flex-wrap gap-2 text-sm">
            <span className="inline-flex items-center gap-1.5 rounded-full bg-accent px-3 py-1 text-accent-foreground">
              <kind.icon className="size-4" /> {kind.label}
            </span>
            {item.fileName && (
              <span className="inline-flex items-center gap-1.5 rounded-full bg-muted px-3 py-1 text-muted-foreground">
                {item.fileName}
                {item.fileSize !== null && ` · ${formatFileSize(item.fileSize)}`}
              </span>
            )}
          </div>
          {access?.owned ? (
            <div className="mt-auto" data-testid="unlocked">
              <PurchaseAccess v={access.verification} access={accessToken} place="paywall" />
            </div>
          ) : waiting ? (
            <div className="mt-auto space-y-3" data-testid="unlocked">
              {returned.state === "returned" && returned.processing ? (
                <p className="flex items-center gap-2 rounded-lg bg-amber-50 px-3 py-2 text-sm text-amber-900" role="status">
                  <Spinner className="size-4" /> Your payment is still processing. Your access appears here as soon as it is confirmed.
                </p>
              ) : (
                <p className="flex items-center gap-2 text-sm text-muted-foreground" role="status">
                  <Spinner className="size-4" /> Checking your access…
                </p>
              )}
            </div>
          ) : (
          <>
          <form onSubmit={submit} className="mt-auto space-y-3" noValidate>
            {pwyw ? (
              <div className="space-y-2">
                <label htmlFor="tip" className="text-sm font-medium">
                  Name your price
                </label>
                <div className="relative">
                  <span className="absolute top-1/2 left-3 -translate-y-1/2 text-muted-foreground">$</span>
                  <Input
                    id="tip"
                    type="number"
                    inputMode="decimal"
                    step="0.01"
                    min={min}
                    placeholder={min.toFixed(2)}
                    value={tip}
                    onChange={(e) => setTip(e.target.value)}
                    className="h-11 pl-7 text-lg"
                  />
                </div>
                <p className="text-xs text-muted-foreground">Minimum {formatUsd(min)}. Pay more to support the creator.</p>
              </div>
            ) : (
              <p className="text-3xl font-extrabold" data-testid="paywall-price">
                {formatUsd(item.price)}
              </p>
            )}
            <Button type="submit" variant="brand" size="lg" className="h-12 w-full text-base" disabled={busy}>
              {busy ? <Spinner className="size-5 text-white" /> : <Lock />}
              Unlock
            </Button>
            <p className="flex items-center justify-center gap-1.5 text-xs text-muted-foreground">
              <ShieldCheck className="size-3.5" /> Pay by card · permanent access · receipt by email
            </p>
          </form>
          {!preview && (
            <div className="text-center">
              <LostAccess />
            </div>
          )}
          </>
          )}
        </div>
      </div>
    </div>
  );
}

/**
 * Spec §4: back from payment with success=true, the page confirms the payment (payment completion,
 * or process-recent-purchase without a payment_intent) and unlocks; on failure it still shows the
 * unlocked state with a processing notice. The query string is cleared after 2000 ms.
 */
function useReturnFromPayment(id: string, success: boolean, paymentIntent: string | undefined, onConfirmed: () => void): Returned {
  const navigate = useNavigate();
  const [returned, setReturned] = useState<Returned>({ state: "none" });
  useEffect(() => {
    if (!success) return;
    const call = paymentIntent ? `/api/payments/${encodeURIComponent(paymentIntent)}/complete` : `/api/content/${encodeURIComponent(id)}/process-recent-purchase`;
    apiRequest("POST", call)
      .then(async (res) => {
        const unlocked = ((await res.json()) as { unlocked: boolean }).unlocked;
        setReturned({ state: "returned", processing: !unlocked });
        if (unlocked) rememberAccess(id);
        onConfirmed();
      })
      .catch(() => setReturned({ state: "returned", processing: true }));
    const timer = setTimeout(() => navigate({ to: ".", search: (prev: Record<string, unknown>) => ({ ...prev, success: undefined, payment_intent: undefined }), replace: true }), 2000);
    return () => clearTimeout(timer);
    // onConfirmed is a fresh closure each render; the effect runs once per return.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [id, success, paymentIntent, navigate]);
  return returned;
}

export function PaywallPage({ id, preview, success = false, paymentIntent, access: accessParam }: { id: string; preview: boolean; success?: boolean; paymentIntent?: string; access?: string }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { data, isLoading, error } = usePaywallContent(id, preview);
  const [returnedPending, setReturnedPending] = useState(false);
  const access = useContentAccess(id, accessParam, !preview, returnedPending);
  const returned = useReturnFromPayment(id, success, paymentIntent, () => access.refetch());
  useEffect(() => setReturnedPending(returned.state === "returned" && returned.processing && !access.data?.owned), [returned, access.data?.owned]);
  useEffect(() => {
    if (access.data?.owned) rememberAccess(id, access.data.verification.accessUrl);
  }, [id, access.data]);

  if (isLoading) {
    return (
      <div className="flex min-h-screen items-center justify-center">
        <Spinner />
      </div>
    );
  }
  if (error || !data) return <ContentNotFound />;
  const unlock = async (amount: number) => {
    try {
      const res = await apiRequest("POST", "/api/create-payment-intent", {
        contentId: data.id,
        customAmount: data.pricingModel === "pay_what_you_want" ? amount : undefined,
      });
      const body = (await res.json()) as { clientSecret: string; amount: number } | AlreadyOwned;
      if ("alreadyOwned" in body) {
        // This browser bought it already: show its access instead of charging again.
        rememberAccess(data.id, body.accessUrl);
        await queryClient.invalidateQueries({ queryKey: ["/api/content", data.id, "access"] });
        return;
      }
      await navigate({ to: "/checkout/$id", params: { id: data.id }, search: { payment_intent: body.clientSecret, amount: body.amount } });
    } catch {
      toast({ title: "Payment Error", description: "Failed to start payment process. Please try again.", variant: "destructive" });
    }
  };
  return (
    <PaywallShell>
      {preview && <FunnelPreviewBar contentId={data.id} title={data.title} />}
      <PaywallCard
        item={data}
        preview={preview}
        access={access.data}
        accessLoading={access.isLoading}
        accessToken={access.token}
        returned={returned}
        onUnlock={unlock}
      />
    </PaywallShell>
  );
}
