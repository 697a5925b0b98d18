import { QueryClientProvider } from "@tanstack/react-query";
import { createRouter, RouterProvider } from "@tanstack/react-router";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { z } from "zod";
import { Toaster } from "@/components/ui/toaster";
import { TooltipProvider } from "@/components/ui/tooltip";
import { cspNonce } from "@/lib/csp-nonce";
import { queryClient } from "@/lib/query-client";
import { routeTree } from "./route-tree.gen";
import "./styles.css";

// Under the page's Content-Security-Policy (worker/routes/spa.ts): the dialogs' scroll lock adds a
// <style> element with the nonce it finds here (react-style-singleton reads __webpack_nonce__), and
// zod checks without compiling code (its JIT would try `new Function`, which the policy refuses).
(window as { __webpack_nonce__?: string }).__webpack_nonce__ = cspNonce();
z.config({ jitless: true });

const router = createRouter({ routeTree, context: { queryClient }, defaultPreload: "intent", scrollRestoration: true });

declare module "@tanstack/react-router" {
  interface Register {
    router: typeof router;
  }
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <TooltipProvider>
        <RouterProvider router={router} />
        <Toaster />
      </TooltipProvider>
    </QueryClientProvider>
  </StrictMode>,
);
