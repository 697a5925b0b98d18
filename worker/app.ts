// The Hono app: every API route under /api, one router per resource, one error shape.
import { Hono } from "hono";
import { getCookie } from "hono/cookie";
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";
import { secureHeaders } from "hono/secure-headers";
import { createDb } from "./db/client";
import { ApiError } from "./lib/errors";
import type { AppEnv } from "./middleware/context";
import { bodyGuard } from "./lib/validate";
import { auditKeyCall, authenticateApiKey, bearerToken, hasBearer } from "./middleware/api-key-auth";
import { adminRoutes } from "./routes/admin";
import { adminTaxRoutes } from "./routes/admin-tax";
import { analyticsRoutes } from "./routes/analytics";
import { authRoutes } from "./routes/auth";
import { connectRoutes } from "./routes/connect";
import { contentRoutes } from "./routes/content";
import { creatorRoutes } from "./routes/creator";
import { developerRoutes } from "./routes/developer";
import { webhookRoutes } from "./routes/webhooks";
import { devRoutes } from "./routes/dev";
import { feedbackRoutes } from "./routes/feedback";
import { funnelRoutes } from "./routes/funnels";
import { humanCheckRoutes } from "./routes/human-check";
import { libraryRoutes } from "./routes/library";
import { siteLibraryRoutes } from "./routes/site-library";
import { licenseRoutes } from "./routes/licenses";
import { mailEventRoutes } from "./routes/mail-events";
import { discountRoutes } from "./routes/discounts";
import { recoveryRoutes } from "./routes/recovery";
import { bumpRoutes } from "./routes/bumps";
import { checkoutRoutes } from "./routes/checkout";
import { checkoutConfirmRoutes } from "./routes/checkout-confirm";
import { downloadRoutes } from "./routes/downloads";
import { purchaseAccessRoutes } from "./routes/purchase-access";
import { invoiceRoutes } from "./routes/invoices";
import { purchaseEmailRoutes } from "./routes/purchase-email";
import { paywallPageRoutes } from "./routes/paywall-page";
import { profileRoutes } from "./routes/profile";
import { taxSettingsRoutes } from "./routes/tax-settings";
import { salesExportRoutes } from "./routes/sales-export";
import { landingRoutes } from "./routes/site-landing";
import { pricingRoutes } from "./routes/site-pricing";
import { spaRoutes } from "./routes/spa";
import { successPageRoutes } from "./routes/site-success";
import { signInPageRoutes } from "./routes/site-sign-in";
import { feedbackPageRoutes } from "./routes/site-feedback";
import { stripeWebhookRoutes } from "./routes/stripe-webhook";
import { subscriptionRoutes } from "./routes/subscription";
import { uploadRoutes } from "./routes/uploads";
import { upsellRoutes } from "./routes/upsells";
import { readSession, SESSION_COOKIE } from "./services/sessions";
import { openApiRoutes } from "./openapi/reference";

const sameSiteOnly = csrf();
export const CROSS_SITE_REFUSED =
  "Cross-site request refused: this form post did not come from this site (Origin and Sec-Fetch-Site do not match).";

const api = new Hono<AppEnv>()
  .use("*", async (c, next) => {
    c.set("db", createDb(c.env.DB));
    // An API key, when the request carries one, is the only credential read (worker/middleware/api-key-auth.ts).
    const token = bearerToken(c.req.header("authorization"));
    if (token !== null) {
      await authenticateApiKey(c, token, c.req.path.slice("/api".length));
    } else {
      const session = await readSession(c.env.SESSIONS, getCookie(c, SESSION_COOKIE));
      c.set("userId", session?.userId ?? null);
      c.set("caller", session ? { kind: "session", signedInAt: session.createdAt } : null);
    }
    await next();
    // Every change an API key makes is in its audit log (worker/middleware/api-key-auth.ts).
    await auditKeyCall(c);
  })
  .route("/", authRoutes)
  .route("/", creatorRoutes)
  .route("/", uploadRoutes)
  .route("/", contentRoutes)
  .route("/", checkoutRoutes)
  .route("/", checkoutConfirmRoutes)
  .route("/", purchaseAccessRoutes)
  .route("/", invoiceRoutes)
  .route("/", purchaseEmailRoutes)
  .route("/", downloadRoutes)
  .route("/", stripeWebhookRoutes)
  .route("/", mailEventRoutes)
  .route("/", feedbackRoutes)
  .route("/", humanCheckRoutes)
  .route("/", adminRoutes)
  .route("/", adminTaxRoutes)
  .route("/", funnelRoutes)
  .route("/", upsellRoutes)
  .route("/", connectRoutes)
  .route("/", subscriptionRoutes)
  .route("/", analyticsRoutes)
  .route("/", profileRoutes)
  .route("/", taxSettingsRoutes)
  .route("/", salesExportRoutes)
  .route("/", developerRoutes)
  .route("/", webhookRoutes)
  .route("/", licenseRoutes)
  .route("/", discountRoutes)
  .route("/", recoveryRoutes)
  .route("/", bumpRoutes)
  .route("/", libraryRoutes);

export const app: Hono<AppEnv> = new Hono<AppEnv>()
  .use("*", secureHeaders({ crossOriginResourcePolicy: "same-origin", crossOriginOpenerPolicy: "same-origin" }))
  // Browsers send Origin on cross-site form posts; refuse those (JSON bodies need CORS anyway).
  // A Bearer request is judged by its API key alone, never the cookie, so it cannot be a forged
  // cross-site post; servers calling the API send no Origin (worker/middleware/api-key-auth.ts).
  .use("/api/*", async (c, next) => {
    if (hasBearer(c)) return next();
    try {
      await sameSiteOnly(c, async () => {});
    } catch {
      throw new ApiError(403, CROSS_SITE_REFUSED);
    }
    await next();
  })
  // No body is read unchecked: a size limit everywhere, and JSON that is a UTF-8 object.
  .use("/api/*", bodyGuard)
  .use("/dev/*", bodyGuard)
  .route(
    "/",
    openApiRoutes(() => app as never),
  )
  .route("/api", api)
  .route("/dev", devRoutes)
  .route("/", paywallPageRoutes)
  .route("/", successPageRoutes)
  .route("/", siteLibraryRoutes)
  .route("/", signInPageRoutes)
  .route("/", feedbackPageRoutes)
  .route("/", landingRoutes)
  .route("/", pricingRoutes)
  .route("/", spaRoutes);

app.notFound((c) => c.json({ message: "Not found" }, 404));

app.onError((err, c) => {
  if (err instanceof HTTPException) {
    return c.json({ message: err.message || "Error" }, err.status);
  }
  console.error("unhandled error", c.req.method, new URL(c.req.url).pathname, err);
  return c.json({ message: "Internal Server Error" }, 500);
});

export type AppType = typeof api;
