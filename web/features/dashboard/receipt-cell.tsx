// A sale's receipt in the sales table: where it stands by the mail provider's word ('Receipt
// delivered', 'Bounced', 'Receipt sent' while unconfirmed…) and "Resend receipt", which emails the
// access link again to the buyer's current address (one email per press). docs/payments.md ("Receipts and emails").
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Send } from "lucide-react";
import type { Sale } from "@shared/earnings";
import { RECEIPT_WORDS, type MailDeliveryState } from "@shared/mail";
import { Spinner } from "@/components/spinner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { toast } from "@/hooks/use-toast";
import { api, withoutStatus } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

const VARIANT: Record<MailDeliveryState, "success" | "warning" | "destructive" | "secondary"> = {
  sent: "secondary",
  delayed: "warning",
  delivered: "success",
  bounced: "destructive",
  complained: "destructive",
};

const WHY: Record<MailDeliveryState, string> = {
  sent: "Sent; the buyer's mail server has not confirmed it yet",
  delayed: "The buyer's mail server is not taking it yet; it is being retried",
  delivered: "The buyer's mail server accepted it",
  bounced: "The buyer's mail server refused it: check the address with the buyer",
  complained: "Delivered, and the buyer marked it as spam",
};

export function ReceiptBadge({ sale }: { sale: Sale }) {
  if (!sale.receipt) return null;
  const { state, to } = sale.receipt;
  return (
    <Badge variant={VARIANT[state]} data-testid="receipt-state" title={`${WHY[state]} (${to})`}>
      {RECEIPT_WORDS[state]}
    </Badge>
  );
}

/** Only for a sale that still gives access and has an address; each press is its own request (its key). */
export function ResendReceiptButton({ sale }: { sale: Sale }) {
  const queryClient = useQueryClient();
  const resend = useMutation({
    mutationFn: () =>
      api("POST /api/sales/:purchaseId/resend-receipt", {
        params: { purchaseId: sale.id },
        body: { requestKey: crypto.randomUUID() },
      }),
    onSuccess: (r) => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.creatorSales });
      toast({ title: "Receipt resent", description: `The receipt and access link are on their way to ${r.to}.` });
    },
    onError: (e) => toast({ title: "Receipt not sent", description: withoutStatus(e.message), variant: "destructive" }),
  });
  if (sale.status !== "completed" || !sale.buyerEmail) return null;
  return (
    <Button
      size="sm"
      variant="ghost"
      className="h-7 px-2 text-xs"
      onClick={() => resend.mutate()}
      disabled={resend.isPending}
      aria-label={`Resend receipt to ${sale.buyerEmail}`}
    >
      {resend.isPending ? <Spinner className="size-3.5" /> : <Send className="size-3.5" />}
      Resend receipt
    </Button>
  );
}
