// The server-rendered pages' own build, run after the app's into the same dist/client: the paywall
// (paywall-shell.html) and the public pages (shells/*.html, docs/pages.md), each shell with its
// stylesheet and island script. A build of its own shares no chunk with the creator app, so a page
// loads only its island and no code it does not use. React comes in only with the paywall's lazy
// owner and preview chunks.
import tailwindcss from "@tailwindcss/vite";
import react from "@vitejs/plugin-react";
import { readdirSync } from "node:fs";
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
    rollupOptions: {
      input: {
        paywall: "paywall-shell.html",
        ...Object.fromEntries(
          readdirSync("shells")
            .filter((f) => f.endsWith(".html"))
            .map((f) => [`shell-${f.replace(/\.html$/, "")}`, `shells/${f}`]),
        ),
      },
    },
  },
});
