// A bounced receipt on the buyer's success page: "We couldn't reach {email}." with what to do. The
// provider's word comes seconds after the page opens (or after the buyer changes the address), so
// while the latest receipt is unconfirmed, or went to another address than the order's, the page
// asks again for a minute. docs/payments.md ("Receipts and emails").
import { useQueryClient } from "@tanstack/react-query";
import { MailWarning } from "lucide-react";
import { useEffect } from "react";
import type { PurchaseVerification } from "@shared/payments";
import { queryKeys } from "@/lib/query-keys";

type Params = { paymentIntent?: string; contentId?: string; access?: string };

const ASK_EVERY_MS = 3000;
const ASK_FOR_MS = 60_000;

/** Whether the receipt's word is still to come: none recorded, unconfirmed, or not yet to the order's current address. */
const awaited = ({ receipt, purchase }: PurchaseVerification) =>
  !!purchase.emailedTo && (!receipt || receipt.state === "sent" || receipt.state === "delayed" || !receipt.current);

function useUntilConfirmed(v: PurchaseVerification, params: Params) {
  const queryClient = useQueryClient();
  const waiting = awaited(v);
  const { paymentIntent = "", contentId = "", access = "" } = params;
  useEffect(() => {
    if (!waiting) return;
    const since = Date.now();
    const timer = setInterval(() => {
      if (Date.now() - since > ASK_FOR_MS) return clearInterval(timer);
      void queryClient.invalidateQueries({ queryKey: queryKeys.purchaseVerify(paymentIntent, contentId, access) });
    }, ASK_EVERY_MS);
    return () => clearInterval(timer);
  }, [waiting, queryClient, paymentIntent, contentId, access]);
}

export function ReceiptBanner({ v, params }: { v: PurchaseVerification; params: Params }) {
  useUntilConfirmed(v, params);
  const { receipt } = v;
  // A bounce at an address the order no longer has is old news: the new address's receipt is on its way.
  if (receipt?.state !== "bounced" || !receipt.current) return null;
  return (
    <div
      role="alert"
      data-testid="receipt-bounced"
      className="flex gap-3 rounded-xl border border-amber-300 bg-amber-50 p-4 text-sm text-amber-950"
    >
      <MailWarning className="mt-0.5 size-5 shrink-0 text-amber-700" />
      <div className="min-w-0 space-y-1">
        <p className="font-semibold break-words">We couldn't reach {receipt.to}.</p>
        <p>
          Your receipt and access link bounced.{" "}
          {v.purchase.canChangeEmail
            ? "Check the address for a typo and change it below if it's wrong."
            : "If the address is wrong, contact the creator with your order number."}{" "}
          Your access on this page works either way: copy the access link to keep it.
        </p>
      </div>
    </div>
  );
}
