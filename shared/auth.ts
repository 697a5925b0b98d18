// Signing in: the email-link form's rules (shared by the form and POST /api/auth/email), the
// signed-in user and the ways to sign in, as GET /api/auth/user, /api/auth/me and /api/auth/providers answer them.
import { z } from "zod";
import { publicId } from "./answers";
import { PAYOUT_DEFAULTS } from "./payouts";
import { isSameOriginPath } from "./return-path";

/** A lost session shows "Unauthorized" for this long before the SPA goes to sign in again. */
export const RELOGIN_DELAY_MS = 500;

export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, "email is too long")
  .email("enter a valid email address");

/** A same-origin path to come back to after sign-in (shared/return-path.ts says which). */
export const returnToSchema = z.string().refine(isSameOriginPath, {
  message: "returnTo must be a path on this site",
});

export const emailLoginSchema = z.object({
  email: emailSchema,
  returnTo: returnToSchema.optional(),
});
export type EmailLoginInput = z.infer<typeof emailLoginSchema>;

/** The signed-in user as GET /api/auth/user returns it. */
export const currentUserSchema = z.object({
  id: publicId,
  email: z.string(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  plan: z.enum(["free", "pro"]),
  isAdmin: z.boolean(),
  /** The next payout run would pay this creator somewhere (a bank Stripe can transfer to, or a manual method). */
  payoutEnabled: z.boolean(),
  /** The creator's manual method and its email (never 'bank': bank payouts go through Connect). */
  payoutMethod: z.string().nullable(),
  payoutEmail: z.string().nullable(),
  /** Where the next payout goes: the connected bank, the manual method, or nowhere (not set up). */
  payoutDestination: z.enum(["bank", "manual"]).nullable(),
  /** The creator's choice when both are set up. */
  payoutDefault: z.enum(PAYOUT_DEFAULTS),
  /** A connected bank that Stripe says can receive transfers. */
  bankReady: z.boolean(),
  /** The admin held this creator's payouts: no money is sent to them until released. */
  payoutsHeld: z.boolean(),
});
export type CurrentUser = z.infer<typeof currentUserSchema>;

/**
 * GET /api/auth/me, the SPA's sign-in probe: the user, or null when signed out (a 200 either way).
 * `firstSignIn`: this session's sign-in created the account ("Welcome", not "Welcome back").
 */
export const sessionProbeSchema = z.object({ user: currentUserSchema.nullable(), firstSignIn: z.boolean() });
export type SessionProbe = z.infer<typeof sessionProbeSchema>;

/** How one can sign in here; `devOutbox` is true only on a local run, where emails land in /dev/mail. */
export const authProvidersSchema = z.object({
  email: z.literal(true),
  google: z.boolean(),
  github: z.boolean(),
  devOutbox: z.boolean(),
});
export type AuthProviders = z.infer<typeof authProvidersSchema>;
