// The server-rendered pages' own build, run after the app's into the same dist/client, in two
// environments built one after the other: the paywall (paywall-shell.html) and the public pages
// (shells/*.html, docs/pages.md), each shell with its stylesheet and island script. Builds of their
// own share no chunk with the creator app, nor the paywall with the public pages, so the paywall loads
// its one script and a page only its island. React comes in only with the paywall's lazy owner and
// preview chunks.
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
  environments: {
    paywall: {
      consumer: "client",
      build: { outDir: "dist/client", emptyOutDir: false, rollupOptions: { input: { paywall: "paywall-shell.html" } } },
    },
    pages: {
      consumer: "client",
      build: {
        outDir: "dist/client",
        emptyOutDir: false,
        rollupOptions: {
          input: Object.fromEntries(
            readdirSync("shells")
              .filter((f) => f.endsWith(".html"))
              .map((f) => [`shell-${f.replace(/\.html$/, "")}`, `shells/${f}`]),
          ),
        },
      },
    },
  },
  builder: {
    async buildApp(builder) {
      await builder.build(builder.environments.paywall);
      await builder.build(builder.environments.pages);
    },
  },
});
