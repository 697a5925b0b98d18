// Stripe Connect for bank payouts: account status, the onboarding redirect and the Express
// dashboard link. Every call acts on the signed-in creator's own account only.
import { Hono } from "hono";
import type { Db } from "../db/client";
import type { Bindings } from "../lib/env";
import { requireUser, type AppEnv } from "../middleware/context";
import { accountStatus, dashboardLink, onboardingUrl } from "../services/connect";
import { stripeClient } from "../services/stripe";
import { PAYOUT_DESTINATION_RECENT_SIGN_IN_MS } from "../../shared/payout-destination";
import { doc } from "../openapi/describe";
import { urlSchema } from "../../shared/answers";
import { connectStatusSchema } from "../../shared/payouts";

const deps = (c: { var: { db: Db }; env: Bindings }) => ({
  db: c.var.db,
  stripe: stripeClient(c.env),
  appUrl: c.env.APP_URL,
  d1: c.env.DB,
  emails: c.env.EMAILS,
});

export const connectRoutes = new Hono<AppEnv>()
  .get(
    "/connect/account-status",
    doc({
      tag: "Payouts",
      summary: "The connected Stripe account's state",
      access: "creator",
      ok: connectStatusSchema,
    }),
    requireUser,
    async (c) => c.json(await accountStatus(deps(c), c.var.userId)),
  )
  // A browser navigation: signed out goes to sign-in and comes back to /connect.
  .get(
    "/stripe/connect/onboard",
    doc({
      tag: "Payouts",
      summary: "Connect a bank with Stripe",
      access: "session",
      status: 303,
      ok: { redirect: "To Stripe's onboarding" },
      also: {
        302: {
          description:
            "Not signed in: to sign-in, then back; signed in more than 10 minutes ago: to /connect?signInAgain=true",
          answer: { redirect: "To /api/login or /connect?signInAgain=true" },
        },
      },
      errors: { 502: "Stripe could not be reached" },
    }),
    async (c) => {
      if (!c.var.userId) return c.redirect(`/api/login?returnTo=${encodeURIComponent("/connect")}`, 302);
      // Connecting a bank changes where payouts go: like the manual method, it needs a recent sign-in.
      const caller = c.var.caller;
      if (caller?.kind !== "session" || Date.now() - caller.signedInAt > PAYOUT_DESTINATION_RECENT_SIGN_IN_MS)
        return c.redirect("/connect?signInAgain=true", 302);
      return c.redirect(await onboardingUrl(deps(c), c.var.userId), 303);
    },
  )
  .post(
    "/stripe/connect/dashboard-link",
    doc({
      tag: "Payouts",
      summary: "A link to the Stripe Express dashboard",
      access: "session",
      ok: urlSchema,
      errors: { 404: "No connected account", 502: "Failed to access payout dashboard. Please try again." },
    }),
    requireUser,
    async (c) => c.json({ url: await dashboardLink(deps(c), c.var.userId) }),
  );
