import { QueryClientProvider } from "@tanstack/react-query";
import { createRouter, RouterProvider } from "@tanstack/react-router";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { Toaster } from "@/components/ui/toaster";
import { TooltipProvider } from "@/components/ui/tooltip";
import { queryClient } from "@/lib/query-client";
import { routeTree } from "./route-tree.gen";
import "./styles.css";

// The page's CSP nonce (worker/routes/spa.ts): the dialogs' scroll lock adds a <style> element and
// takes its nonce from here (react-style-singleton reads __webpack_nonce__).
(window as { __webpack_nonce__?: string }).__webpack_nonce__ = document.querySelector<HTMLMetaElement>('meta[property="csp-nonce"]')?.nonce || undefined;

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
