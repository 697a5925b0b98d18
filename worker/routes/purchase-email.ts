// A buyer changes the email on a paid purchase: only the browser that paid (its aw_buyer key) or the
// library signed in as the purchase's current email; never the access link, a creator or an API key.
// Behaviour: docs/payments.md ("Changing a purchase's email").
import { Hono } from "hono";
import { z } from "zod";
import {
  PURCHASE_EMAIL_MESSAGES as M,
  purchaseEmailChangeSchema,
  purchaseEmailChangedSchema,
} from "../../shared/purchase-email";
import { notFound } from "../lib/errors";
import { humanCheck } from "../lib/human-check";
import { rateLimit } from "../lib/rate-limit";
import { validate } from "../lib/validate";
import type { AppEnv } from "../middleware/context";
import { doc } from "../openapi/describe";
import { libraryEmailOf } from "../services/library/session";
import { changePurchaseEmail, purchaseForEmailChange } from "../services/purchases/email-change";
import { buyerKey, purchaseDeps } from "./purchase-context";

const idParam = z.object({ id: z.string().regex(/^[A-Za-z0-9]{1,32}$/, "invalid id") });

export const purchaseEmailRoutes = new Hono<AppEnv>().post(
  "/purchases/:id/email",
  doc({
    tag: "Checkout and access",
    summary: "Change the email on a paid purchase",
    description:
      "Only the browser that paid (its buyer cookie, for 7 days after paying) or the buyer library signed in as the purchase's current email; " +
      "an order bump's or upsell's id changes its whole order. At most 3 changes per order. " +
      "the access link is not enough. The old address is told, the new one gets the receipt. Anyone else: 404.",
    access: "buyer",
    ok: purchaseEmailChangedSchema,
    errors: {
      403: "The bot check refused the Turnstile token (`cf-turnstile-response`)",
      404: M.notFound,
      409: "The order was refunded or disputed, is still processing, or its email was just changed elsewhere",
      429: "Too many requests from this address, or too many changes of this order's email today",
    },
  }),
  rateLimit("FORMS_LIMITER", "purchase-email"),
  validate("param", idParam),
  validate("json", purchaseEmailChangeSchema),
  // Each change mails a receipt to the address typed: a bot check, as on every form that sends email.
  humanCheck("purchase-email"),
  async (c) => {
    const deps = purchaseDeps(c);
    const changeable = await purchaseForEmailChange(deps, c.req.valid("param").id, {
      buyerKey: buyerKey(c, false),
      libraryEmail: await libraryEmailOf(c),
    });
    if (!changeable) throw notFound(M.notFound);
    return c.json(await changePurchaseEmail(deps, changeable, c.req.valid("json").email));
  },
);
