// GET /api/human-check's answer schema (the zod-free contract is ./human-check.ts, which the paywall imports).
import { z } from "zod";
import type { HumanCheckConfig } from "./human-check";

export const humanCheckConfigSchema = z.object({
  siteKey: z.string().nullable().meta({ description: "The Turnstile widget's sitekey; null when none is configured" }),
  scriptUrl: z.string().meta({ description: "Where the Turnstile script loads from" }),
}) satisfies z.ZodType<HumanCheckConfig>;
