// The feedback form's rules, shared by the form and POST /api/feedback (and the admin's filters).
import { z } from "zod";
import { emailSchema } from "./auth";

export const FEEDBACK_TYPES = ["bug", "feature", "improvement", "general"] as const;
export const FEEDBACK_PRIORITIES = ["low", "medium", "high", "urgent"] as const;

const trimmed = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`);

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
