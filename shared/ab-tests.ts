// A/B tests of funnel offers: the form for variant B, what the API answers, and the one
// piece of statistics, how sure a result is: P(B beats A) under Beta(1 + accepted, 1 + declined)
// posteriors (a uniform prior), computed exactly for whole counts (Evan Miller's closed form).
import { z } from "zod";
import { dollars, isoTime, publicId } from "./answers";
import { MAX_PRICE_CENTS, MIN_PRICE_CENTS } from "./pricing";
import { dollarsToCents } from "./content";

/** Below this many buyers per variant, the readout says it is too early. */
const AB_MIN_SHOWN = 30;
/** A result this sure (either way) is called. */
const AB_SURE = 0.95;

export const createAbTestSchema = z.object({
  stepId: z.string().regex(/^[A-Za-z0-9]{1,32}$/, "stepId is invalid"),
  title: z.string().trim().min(1, "Title is required").max(200, "Title must be at most 200 characters"),
  description: z.string().trim().max(2000, "Description must be at most 2,000 characters").optional().default(""),
  ctaText: z.string().trim().min(1, "Button text is required").max(60, "Button text must be at most 60 characters"),
  /** Dollars; empty keeps the step's own price. */
  price: z
    .union([z.number(), z.string().max(20), z.null()])
    .optional()
    .transform((v) =>
      v === undefined || v === null || String(v).trim() === ""
        ? null
        : dollarsToCents(typeof v === "number" ? String(Math.round(v * 100) / 100) : v.trim()),
    )
    .refine(
      (c) => c === null || (Number.isFinite(c) && c >= MIN_PRICE_CENTS && c <= MAX_PRICE_CENTS),
      "Price must be between $0.50 and $10,000 with at most two decimals",
    ),
});

export const endAbTestSchema = z.object({ keep: z.enum(["A", "B"], { error: "keep must be A or B" }) });

const abVariantSchema = z.object({
  variant: z.enum(["A", "B"]),
  title: z.string(),
  description: z.string(),
  ctaText: z.string(),
  price: dollars,
  shown: z.number().int(),
  accepted: z.number().int(),
  acceptanceRate: z.number().meta({ description: "accepted / shown, 0 to 1" }),
  revenue: dollars,
  /** Revenue divided by the buyers shown the variant. */
  revenuePerBuyer: dollars,
});
export type AbVariantFigures = z.infer<typeof abVariantSchema>;

export const abTestSchema = z.object({
  id: publicId,
  stepId: z.string(),
  stepTitle: z.string(),
  status: z.enum(["running", "ended"]),
  winner: z.enum(["A", "B"]).nullable(),
  createdAt: isoTime,
  endedAt: isoTime.nullable(),
  variants: z.tuple([abVariantSchema, abVariantSchema]),
  probabilityBBeatsA: z
    .number()
    .nullable()
    .meta({ description: "P(B's acceptance rate beats A's) under Beta(1 + accepted, 1 + declined) posteriors" }),
  readout: z.string().meta({
    example: "Not sure yet: B beats A with 62% probability. Keep the test running until one side reaches 95%.",
  }),
});
export type AbTest = z.infer<typeof abTestSchema>;
export const abTestListSchema = z.array(abTestSchema);

// ---- the maths ----

/** ln Γ(x) for x > 0 (Lanczos, g = 7): about 15 significant digits. */
function lnGamma(x: number): number {
  const g = 7;
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  x -= 1;
  let a = c[0];
  const t = x + g + 0.5;
  for (let i = 1; i < g + 2; i++) a += c[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}
const lnBeta = (a: number, b: number) => lnGamma(a) + lnGamma(b) - lnGamma(a + b);

/**
 * P(pB > pA) with pA ~ Beta(1 + acceptedA, 1 + shownA − acceptedA) and the same for B:
 * Σ_{i=0}^{αB−1} exp(lnB(αA+i, βA+βB) − ln(βB+i) − lnB(1+i, βB) − lnB(αA, βA)).
 * Deterministic; exact up to floating point for whole counts.
 */
export function probabilityBBeatsA(
  a: { shown: number; accepted: number },
  b: { shown: number; accepted: number },
): number {
  const alphaA = 1 + a.accepted;
  const betaA = 1 + Math.max(0, a.shown - a.accepted);
  const alphaB = 1 + b.accepted;
  const betaB = 1 + Math.max(0, b.shown - b.accepted);
  let total = 0;
  for (let i = 0; i < alphaB; i++) {
    total += Math.exp(
      lnBeta(alphaA + i, betaA + betaB) - Math.log(betaB + i) - lnBeta(1 + i, betaB) - lnBeta(alphaA, betaA),
    );
  }
  return Math.min(1, Math.max(0, total));
}

const pct = (p: number) => `${Math.round(p * 100)}%`;

/** The plain-language readout for the figures so far. */
export function abReadout(
  a: { shown: number; accepted: number },
  b: { shown: number; accepted: number },
): { probability: number | null; text: string } {
  if (a.shown === 0 || b.shown === 0) return { probability: null, text: "No buyer has seen both variants yet." };
  const p = probabilityBBeatsA(a, b);
  if (Math.min(a.shown, b.shown) < AB_MIN_SHOWN) {
    return {
      probability: p,
      text: `Too early to tell: fewer than ${AB_MIN_SHOWN} buyers have seen each variant (B beats A with ${pct(p)} probability so far).`,
    };
  }
  if (p >= AB_SURE) return { probability: p, text: `B beats A with ${pct(p)} probability. You can make B the step.` };
  if (p <= 1 - AB_SURE) return { probability: p, text: `A beats B with ${pct(1 - p)} probability. Keep A.` };
  return {
    probability: p,
    text: `Not sure yet: B beats A with ${pct(p)} probability. Keep the test running until one side reaches ${pct(AB_SURE)}.`,
  };
}
