// What the refund dialog asks before a creator refunds: how much of their balance the typed amount
// would take (GET /api/sales/{purchaseId}/refund-quote). Behaviour: docs/refunds-and-disputes.md.
import { z } from "zod";
import { dollars } from "./answers";

const AMOUNT_MESSAGE = "amountCents must be a whole number of cents, at least 1";

export const refundQuoteQuerySchema = z.object({
  amountCents: z.coerce
    .number({ error: AMOUNT_MESSAGE })
    .int(AMOUNT_MESSAGE)
    .min(1, AMOUNT_MESSAGE)
    .max(100_000_000, AMOUNT_MESSAGE),
});

/** `amount`: what the refund would give back (no more than is left of the sale); `leavesBalance`: the creator's share of it. */
export const refundQuoteSchema = z.object({
  amount: dollars,
  leavesBalance: dollars.meta({
    description: "What the refund takes from the creator's balance, in US dollars",
    example: 16,
  }),
});
export type RefundQuote = z.infer<typeof refundQuoteSchema>;
