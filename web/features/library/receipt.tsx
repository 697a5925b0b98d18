// A purchase's receipt in the library: what its receipt email says, read from the server.
import { Copy, ExternalLink, ReceiptText } from "lucide-react";
import { useState } from "react";
import { formatDollars } from "@shared/money";
import { LoadFailed } from "@/components/load-failed";
import { SectionSpinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
  DialogTrigger,
} from "@/components/ui/dialog";
import { toast } from "@/hooks/use-toast";
import { withoutStatus } from "@/lib/api";
import { dateInWords } from "./format";
import { useLibraryReceipt } from "./queries";

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="flex flex-wrap justify-between gap-x-4 gap-y-0.5 py-2">
      <dt className="text-muted-foreground">{label}</dt>
      <dd className="min-w-0 break-words text-right font-medium">{children}</dd>
    </div>
  );
}

function ReceiptBody({ id }: { id: string }) {
  const receipt = useLibraryReceipt(id, true);
  if (receipt.isLoading) return <SectionSpinner className="py-6" />;
  if (receipt.error || !receipt.data)
    return (
      <LoadFailed
        what="the receipt"
        detail={receipt.error ? withoutStatus(receipt.error.message) : undefined}
        onRetry={() => receipt.refetch()}
      />
    );
  const r = receipt.data;
  const copy = async (text: string, what: string) => {
    try {
      await navigator.clipboard.writeText(text);
      toast({ title: "Copied", description: `${what} copied to the clipboard.` });
    } catch {
      toast({ title: "Copy failed", description: "Select it and copy it by hand.", variant: "destructive" });
    }
  };
  return (
    <div className="space-y-4" data-testid="library-receipt">
      <dl className="divide-y text-sm">
        <Row label="Order">#{r.orderId}</Row>
        <Row label="Item">{r.title}</Row>
        <Row label="Sold by">{r.creator.name ?? "an ApeWall creator"}</Row>
        <Row label="Date">{dateInWords(r.purchasedAt)}</Row>
        <Row label="Amount paid">{formatDollars(r.amount)}</Row>
        <Row label="Receipt sent to">{r.emailedTo}</Row>
        {r.state !== "paid" && <Row label="Status">{r.state === "refunded" ? "Refunded" : "Disputed"}</Row>}
        {r.licenseKey && (
          <Row label="License key">
            <code className="select-all break-all font-mono">{r.licenseKey}</code>
          </Row>
        )}
      </dl>
      {r.accessUrl && (
        <div className="flex flex-col gap-2 sm:flex-row">
          <Button variant="outline" className="flex-1" onClick={() => copy(r.accessUrl!, "Access link")}>
            <Copy /> Copy access link
          </Button>
          <Button variant="outline" className="flex-1" asChild>
            <a href={r.accessUrl}>
              <ExternalLink /> Open access page
            </a>
          </Button>
        </div>
      )}
      <p className="text-xs text-muted-foreground">
        {r.creator.supportEmail
          ? `Questions? Write to ${r.creator.name ?? "the creator"} at ${r.creator.supportEmail} with your order number.`
          : `Questions? Reply to your receipt email with your order number.`}
      </p>
    </div>
  );
}

export function ReceiptButton({ id, title }: { id: string; title: string }) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="outline" size="sm">
          <ReceiptText /> Receipt
        </Button>
      </DialogTrigger>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Receipt</DialogTitle>
          <DialogDescription className="break-words">{title}</DialogDescription>
        </DialogHeader>
        {open && <ReceiptBody id={id} />}
      </DialogContent>
    </Dialog>
  );
}
