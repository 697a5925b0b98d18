// The paywall page's own build (paywall-shell.html), run after the app's into the same dist/client:
// a build of its own shares no chunk with the creator app, so the page loads one script and no
// code it does not use. React comes in only with the lazy owner and preview chunks.
import tailwindcss from "@tailwindcss/vite";
import react from "@vitejs/plugin-react";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

export default defineConfig({
  publicDir: false,
  resolve: {
    alias: {
      "@": fileURLToPath(new URL("./web", import.meta.url)),
      "@shared": fileURLToPath(new URL("./shared", import.meta.url)),
    },
  },
  plugins: [react(), tailwindcss()],
  build: {
    outDir: "dist/client",
    emptyOutDir: false,
    rollupOptions: { input: { paywall: "paywall-shell.html" } },
  },
});
