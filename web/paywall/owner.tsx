// Loaded by the paywall's script only for a visitor who owns the item: the same access controls as
// the success page (download, view, stream, link), with the app's toasts.
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import type { PurchaseVerification } from "@shared/payments";
import { Toaster } from "@/components/ui/toaster";
import { PurchaseAccess } from "@/features/access/purchase-access";

export function mountOwnerControls(el: HTMLElement, verification: PurchaseVerification, access: string | undefined) {
  createRoot(el).render(
    <StrictMode>
      <PurchaseAccess v={verification} access={access} place="paywall" />
      <Toaster />
    </StrictMode>,
  );
}
