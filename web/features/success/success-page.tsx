// /success: verifies the purchase, then gives access by type, the permanent access link and an
// email reminder (spec §2 Success page).
import { useMutation, useQuery } from "@tanstack/react-query";
import { AlertCircle, CheckCircle2, Copy, Info, Mail, Undo2 } from "lucide-react";
import { type ReactNode, useEffect, useState } from "react";
import { CreatorByline } from "@/components/creator-byline";
import { ReceiptBanner } from "./receipt-banner";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { LostAccess } from "@/features/access/lost-access";
import { PurchaseAccess } from "@/features/access/purchase-access";
import { PaywallShell } from "@/features/paywall/paywall-shell";
import { rememberAccess } from "@/lib/access-tokens";
import { toast } from "@/hooks/use-toast";
import { api, apiRequest, withoutStatus } from "@/lib/api";
import type { PurchaseVerification, RevokedPurchase } from "@shared/payments";
import { formatDollars } from "@shared/money";
import { FunnelContinue, OrderExtras } from "@/features/upsell/order-extras";
import { useOrderExtras } from "@/features/upsell/queries";
import { queryKeys } from "@/lib/query-keys";
import { ChangeEmail } from "./change-email";
import { InvoiceLink } from "./invoice-link";

type Params = { paymentIntent?: string; contentId?: string; access?: string };

type Verified = { paid: PurchaseVerification } | { revoked: RevokedPurchase };

/** The purchase unlocked or, when a refund or chargeback ended it (403), why and since when. */
function useVerification({ paymentIntent, contentId, access }: Params) {
  return useQuery({
    queryKey: queryKeys.purchaseVerify(paymentIntent ?? "", contentId ?? "", access ?? ""),
    enabled: !!paymentIntent || !!access,
    queryFn: async ({ signal }): Promise<Verified> => {
      const query = { payment_intent: paymentIntent, content_id: contentId, access };
      try {
        return { paid: await api("GET /api/purchase/verify", { query, signal }) };
      } catch (err) {
        if (!(err instanceof Error && err.message.startsWith("403: "))) throw err;
        return { revoked: await api("GET /api/purchase/revoked", { query, signal }) };
      }
    },
  });
}

function Verifying() {
  return (
    <div className="flex flex-col items-center gap-4 py-24 text-center" role="status">
      <Spinner className="size-10" />
      <h1 className="text-2xl font-bold">Verifying Your Purchase</h1>
      <p className="text-muted-foreground">Please wait while we confirm your payment...</p>
    </div>
  );
}

function NotFound() {
  return (
    <div className="mx-auto max-w-md px-4 py-20">
      <Card>
        <CardContent className="space-y-4 text-center">
          <AlertCircle className="mx-auto size-12 text-destructive" />
          <h1 className="text-2xl font-bold">Purchase Not Found</h1>
          <p className="text-muted-foreground">We couldn't find this purchase. This can happen when:</p>
          <ul className="space-y-1 text-left text-sm text-muted-foreground">
            <li>• the payment is still processing (try again in a minute),</li>
            <li>• the link has expired or is incomplete,</li>
            <li>• there was an error with the transaction.</li>
          </ul>
          <Button asChild>
            <a href="/">Back to Home</a>
          </Button>
          <div className="border-t pt-4">
            <LostAccess defaultOpen />
          </div>
        </CardContent>
      </Card>
    </div>
  );
}

const dateInWords = (iso: string) =>
  new Date(iso).toLocaleDateString("en-US", { month: "short", day: "numeric", year: "numeric" });

/** An old link to a purchase a refund or chargeback ended: what happened and when, nothing more. */
function Revoked({ r }: { r: RevokedPurchase }) {
  const what = r.state === "refunded" ? "refunded" : "disputed";
  return (
    <div className="mx-auto max-w-md px-4 py-20">
      <Card>
        <CardContent className="space-y-4 text-center" data-testid="purchase-revoked">
          <Undo2 className="mx-auto size-12 text-muted-foreground" />
          <h1 className="text-2xl font-bold">
            This order was {what} on {dateInWords(r.since)}
          </h1>
          <div>
            <p className="font-medium break-words">{r.content.title}</p>
            <p className="text-sm text-muted-foreground">Order #{r.orderId}</p>
          </div>
          <p className="text-sm text-muted-foreground">
            {r.state === "refunded"
              ? "The refund ended access to this item, so this link no longer opens it."
              : "The dispute ended access to this item, so this link no longer opens it."}
          </p>
          <Button asChild variant="outline">
            <a href={`/p/${r.content.id}`}>Go to the item</a>
          </Button>
        </CardContent>
      </Card>
    </div>
  );
}

function Purchased({ v, params }: { v: PurchaseVerification; params: Params }) {
  const [sent, setSent] = useState(false);
  const accessUrl = v.accessUrl;
  const access = new URL(accessUrl).searchParams.get("access") ?? undefined;

  // Keep the permanent link in the address bar, so a bookmark or a refresh keeps working; and
  // remember it, so the item's paywall opens unlocked in this browser from now on.
  useEffect(() => {
    rememberAccess(v.content.id, accessUrl);
    const target = new URL(accessUrl);
    if (window.location.search !== target.search)
      window.history.replaceState(window.history.state, "", target.pathname + target.search);
  }, [accessUrl, v.content.id]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(accessUrl);
      toast({ title: "Link Copied", description: "Access link copied to clipboard." });
    } catch {
      toast({ title: "Copy Failed", description: "Could not copy link to clipboard.", variant: "destructive" });
    }
  };
  const email = useMutation({
    mutationFn: () =>
      apiRequest("POST", "/api/purchase/send-access-email", {
        paymentIntentId: params.paymentIntent ?? new URL(accessUrl).searchParams.get("payment_intent") ?? undefined,
        contentId: v.content.id,
        access,
      }),
    onSuccess: () => {
      setSent(true);
      toast({ title: "Email Sent", description: "Access instructions have been sent to your email." });
    },
    // A cheap order over the receipt cap (429) says why; anything else is a plain failure.
    onError: (err) =>
      toast({
        title: "Email Failed",
        description:
          err instanceof Error && err.message.startsWith("429: ")
            ? withoutStatus(err.message)
            : "Could not send email reminder.",
        variant: "destructive",
      }),
  });
  const preview = v.content.previewImage;

  return (
    <div className="mx-auto max-w-2xl space-y-6 px-4 py-10">
      <div className="space-y-2 text-center">
        <CheckCircle2 className="mx-auto size-14 text-emerald-600" />
        <h1 className="text-3xl font-bold">Payment Successful!</h1>
        <p className="text-muted-foreground" data-testid="order-line">
          Order #{v.purchase.id} • {formatDollars(v.purchase.amount)}
        </p>
        {v.invoice && <InvoiceLink invoice={v.invoice} className="justify-center" />}
      </div>
      <ReceiptBanner v={v} params={params} />
      <Card>
        <CardContent className="space-y-5">
          <div className="flex gap-4">
            {preview && (
              <img
                src={preview.startsWith("data:") ? preview : `/api/content/${v.content.id}/preview-image`}
                alt=""
                className="size-20 rounded-lg object-cover"
              />
            )}
            <div className="min-w-0">
              <h2 className="text-xl font-semibold">{v.content.title}</h2>
              {v.content.creator && <CreatorByline creator={v.content.creator} className="mt-1" />}
              {v.content.description && <p className="mt-1 text-sm text-muted-foreground">{v.content.description}</p>}
            </div>
          </div>
          <PurchaseAccess v={v} access={access} place="success" />
          <Button variant="outline" className="w-full" onClick={copy}>
            <Copy /> Copy Access Link
          </Button>
        </CardContent>
      </Card>
      {v.addOns.length > 0 && <AddOns addOns={v.addOns} access={access} />}
      <FunnelContinue purchaseId={v.purchase.id} access={access} />
      <OrderExtras access={access} />
      <Card data-testid="email-access">
        <CardHeader>
          <CardTitle className="flex items-center gap-2">
            <Mail className="size-5" /> Email Access Link
          </CardTitle>
          <CardDescription className="break-words" data-testid="email-access-sent">
            {!v.purchase.emailedTo
              ? "No email address is on this order: copy your access link to keep it."
              : v.purchase.receiptHeld
                ? "We didn't email a receipt for this order: copy your access link to come back to it."
                : `We emailed your receipt and access link to ${v.purchase.emailedTo}.`}
          </CardDescription>
        </CardHeader>
        {v.purchase.emailedTo && (
          <CardContent>
            <Button variant="outline" onClick={() => email.mutate()} disabled={sent || email.isPending}>
              {email.isPending && <Spinner className="size-4" />}
              {sent ? "Sent" : "Send it again"}
            </Button>
          </CardContent>
        )}
        {v.purchase.canChangeEmail && <ChangeEmail purchaseId={v.purchase.id} emailedTo={v.purchase.emailedTo} />}
      </Card>
      <div className="flex gap-3 rounded-xl border border-sky-200 bg-sky-50 p-4 text-sm text-sky-900">
        <Info className="mt-0.5 size-5 shrink-0" />
        <ul className="space-y-1">
          <li>Your access link is permanent and won't expire.</li>
          <li>Bookmark this page to come back to your purchase anytime.</li>
          <li>You can request an email reminder of your link anytime.</li>
          <li>Need help? Contact support with your order number #{v.purchase.id}.</li>
        </ul>
      </div>
      <p className="text-center">
        <a href={`/p/${v.content.id}`} className="break-words text-sm text-muted-foreground hover:text-foreground">
          ← Return to {v.content.title}
        </a>
      </p>
    </div>
  );
}

/**
 * The order bump bought with this purchase: its own permanent link, remembered in this browser too,
 * and what the order charged (the server's figure), unless the funnel's card below says it.
 */
function AddOns({ addOns, access }: { addOns: PurchaseVerification["addOns"]; access?: string }) {
  const order = useOrderExtras(access);
  useEffect(() => {
    for (const a of addOns) {
      const contentId = new URL(a.accessUrl).searchParams.get("content_id");
      if (contentId) rememberAccess(contentId, a.accessUrl);
    }
  }, [addOns]);
  return (
    <Card data-testid="order-add-ons">
      <CardHeader>
        <CardTitle>Also in your order</CardTitle>
        <CardDescription>Each has its own permanent access link, also in your receipt.</CardDescription>
      </CardHeader>
      <CardContent>
        <ul className="divide-y">
          {addOns.map((a) => (
            <li key={a.accessUrl} className="flex items-center justify-between gap-3 py-2">
              <span className="min-w-0 truncate font-medium">{a.title}</span>
              <span className="flex shrink-0 items-center gap-3 text-sm">
                <span className="text-muted-foreground">{formatDollars(a.amount)}</span>
                <Button asChild size="sm" variant="outline">
                  <a href={a.accessUrl}>Open</a>
                </Button>
              </span>
            </li>
          ))}
        </ul>
        {order.data && order.data.items.length === 0 && (
          <p className="flex items-baseline justify-between border-t pt-4 font-semibold" data-testid="order-total">
            <span>Total charged</span>
            <span>{formatDollars(order.data.order.total)}</span>
          </p>
        )}
      </CardContent>
    </Card>
  );
}

export function SuccessPage(params: Params) {
  const verification = useVerification(params);
  let body: ReactNode;
  if (!params.paymentIntent && !params.access) body = <NotFound />;
  else if (verification.isLoading) body = <Verifying />;
  else if (verification.error || !verification.data) body = <NotFound />;
  else if ("revoked" in verification.data) body = <Revoked r={verification.data.revoked} />;
  else body = <Purchased v={verification.data.paid} params={params} />;
  return <PaywallShell>{body}</PaywallShell>;
}
