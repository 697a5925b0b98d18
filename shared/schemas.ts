// The API contract: request schemas validated by the Worker and reused by the SPA's forms.
import { z } from "zod";
import { FEEDBACK_PRIORITIES, FEEDBACK_TYPES } from "./constants";

const trimmed = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`);

export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, "email is too long")
  .email("enter a valid email address");

/** A same-site path to come back to after sign-in: "/x", never "//host" or "/\host". */
export const returnToSchema = z
  .string()
  .max(2000)
  .refine((p) => p.startsWith("/") && !p.startsWith("//") && !p.startsWith("/\\") && !/[\r\n\t]/.test(p), {
    message: "returnTo must be a path on this site",
  });

export const emailLoginSchema = z.object({
  email: emailSchema,
  returnTo: returnToSchema.optional(),
});
export type EmailLoginInput = z.infer<typeof emailLoginSchema>;

export const feedbackSchema = z.object({
  type: z.enum(FEEDBACK_TYPES, { error: "type must be one of bug, feature, improvement, general" }),
  subject: trimmed(200).min(1, "subject is required"),
  message: trimmed(5000).min(1, "message is required"),
  email: z.union([z.literal(""), emailSchema]).optional(),
  priority: z
    .enum(FEEDBACK_PRIORITIES, { error: "priority must be one of low, medium, high, urgent" })
    .default("medium"),
});
export type FeedbackInput = z.infer<typeof feedbackSchema>;

/** The signed-in user as GET /api/auth/user returns it. */
export type CurrentUser = {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  plan: "free" | "pro";
  isAdmin: boolean;
  payoutEnabled: boolean;
  payoutMethod: string | null;
  payoutEmail: string | null;
};

/** How one can sign in here; `devOutbox` is true only on a local run, where emails land in /dev/mail. */
export type AuthProviders = { email: true; google: boolean; github: boolean; devOutbox: boolean };
