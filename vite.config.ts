import { cloudflare } from "@cloudflare/vite-plugin";
import tailwindcss from "@tailwindcss/vite";
import { tanstackRouter } from "@tanstack/router-plugin/vite";
import react from "@vitejs/plugin-react";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vite";

/**
 * The API reference at /docs/api (worker/openapi/reference.ts) runs Scalar's standalone bundle from
 * our own origin, pinned by package-lock, rather than from a CDN: a script on this origin can call
 * the API as whoever is signed in, so it comes from npm with the rest of the build.
 */
// shared/site.ts SCALAR_BUNDLE_PATH (a config file imports nothing of the app's; worker/test/api-and-webhooks/openapi.test.ts
// fails if the bundle is not where /docs/api loads it from).
const SCALAR_BUNDLE_PATH = "docs/scalar-api-reference.js";
function scalarBundle(): Plugin {
  const file = fileURLToPath(
    new URL("./node_modules/@scalar/api-reference/dist/browser/standalone.js", import.meta.url),
  );
  return {
    name: "apewall:scalar-bundle",
    applyToEnvironment: (environment) => environment.name === "client",
    generateBundle() {
      this.emitFile({ type: "asset", fileName: SCALAR_BUNDLE_PATH, source: readFileSync(file) });
    },
    configureServer(server) {
      server.middlewares.use(`/${SCALAR_BUNDLE_PATH}`, (_req, res) => {
        res.setHeader("content-type", "text/javascript; charset=utf-8");
        res.end(readFileSync(file));
      });
    },
  };
}

export default defineConfig({
  publicDir: "web/public",
  resolve: {
    alias: {
      "@": fileURLToPath(new URL("./web", import.meta.url)),
      "@shared": fileURLToPath(new URL("./shared", import.meta.url)),
    },
  },
  plugins: [
    // Each route's component is its own chunk.
    tanstackRouter({
      target: "react",
      routesDirectory: "./web/routes",
      generatedRouteTree: "./web/route-tree.gen.ts",
      autoCodeSplitting: true,
    }),
    react(),
    tailwindcss(),
    scalarBundle(),
    cloudflare(),
  ],
  // The Worker's build is minified like the SPA's (Vite leaves server builds as they are): half the
  // bytes to upload and to parse at each isolate's start (docs/operations.md, "Worker size").
  environments: { apewall: { build: { minify: true } } },
});
