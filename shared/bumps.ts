// The order bump: one add-on per item, another of the creator's items at a bump price,
// offered as a checkbox at checkout. Ticked, one PaymentIntent charges the total and two purchases
// are made, each with its own access, ledger rows and refunds (worker/services/funnels/bumps.ts).
import { z } from "zod";
import { dollars, publicId } from "./answers";
import { MAX_PRICE_CENTS, MIN_PRICE_CENTS } from "./pricing";
import { dollarsToCents } from "./money";

export const BUMP_MESSAGES = {
  sameItem: "An item cannot be its own add-on",
  notYours: "Choose one of your own items",
  unavailable: "This add-on is no longer available: reload the page",
  owned: (title: string) => `You already own ${title}: untick the add-on to buy just this item`,
  price: `The add-on price must be from $${(MIN_PRICE_CENTS / 100).toFixed(2)} to $${(MAX_PRICE_CENTS / 100).toLocaleString("en-US")}`,
  currency: "The add-on must be sold in the same currency as this item",
} as const;

/** The creator's form: which item, and its price as an add-on (dollars). */
export const orderBumpSchema = z
  .object({
    contentId: z.string().regex(/^[A-Za-z0-9]{1,32}$/, "Choose one of your items"),
    price: z.union([z.number(), z.string().max(12)]),
  })
  .transform((v, ctx) => {
    const cents = dollarsToCents(String(v.price).trim());
    if (!Number.isFinite(cents) || cents < MIN_PRICE_CENTS || cents > MAX_PRICE_CENTS) {
      ctx.addIssue({ code: "custom", path: ["price"], message: BUMP_MESSAGES.price });
      return z.NEVER;
    }
    return { contentId: v.contentId, priceCents: cents };
  });

/** An item's add-on as its creator sees it (null: none). */
export const creatorBumpSchema = z.object({ contentId: publicId, price: dollars }).nullable();
export type CreatorBump = z.infer<typeof creatorBumpSchema>;
/** PUT and DELETE /api/content/{id}/bump: the item's add-on now. */
export const bumpAnswerSchema = z.object({ bump: creatorBumpSchema });
/** An item's add-on as a buyer sees it on the paywall and at checkout (null: none, or not on sale). */
export const publicBumpSchema = z.object({ id: publicId, title: z.string(), price: dollars }).nullable();
export type PublicBump = z.infer<typeof publicBumpSchema>;
