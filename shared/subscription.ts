// ApeWall Pro as GET /api/subscription and POST /api/create-subscription answer it (price: shared/pricing.ts).
import { z } from "zod";
import { isoTime } from "./answers";

export const subscriptionStateSchema = z.object({
  plan: z.enum(["free", "pro"]),
  status: z.string().nullable(),
  currentPeriodEnd: isoTime.nullable(),
  cancelAtPeriodEnd: z.boolean(),
});
export const subscriptionStartedSchema = z.object({ clientSecret: z.string(), subscriptionId: z.string() });
