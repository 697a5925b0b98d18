// GET /api/openapi.json (the document, built once per isolate) and GET /docs/api (Scalar's
// interactive reference of it). Scalar's script is served from this origin (vite.config.ts copies
// the pinned bundle into the assets), under a Content-Security-Policy that allows nothing else.
import { Scalar } from "@scalar/hono-api-reference";
import { Hono } from "hono";
import { SCALAR_BUNDLE_PATH } from "../../shared/site";
import type { AppEnv } from "../middleware/context";
import { apiReferencePolicy } from "../lib/csp";
import { newToken } from "../lib/ids";
import { openApiDocument } from "./document";

let built: Promise<unknown> | null = null;

export function openApiRoutes(app: () => Hono<never>) {
  return new Hono<AppEnv>()
    .get("/api/openapi.json", async (c) => {
      built ??= openApiDocument(app(), c.env.APP_URL).catch((err) => {
        built = null;
        throw err;
      });
      c.header("cache-control", "public, max-age=300");
      return c.json(await built);
    })
    .get("/docs/api", async (c, next) => {
      const nonce = newToken();
      c.header("content-security-policy", apiReferencePolicy(nonce));
      return Scalar<AppEnv>({
        url: "/api/openapi.json",
        pageTitle: "ApeWall API reference",
        cdn: `/${SCALAR_BUNDLE_PATH}`,
        nonce,
        withDefaultFonts: false,
        telemetry: false,
        hideClientButton: false,
        showDeveloperTools: "never",
        persistAuth: false,
        agent: { disabled: true },
        mcp: { disabled: true },
      } as never)(c, next);
    });
}
