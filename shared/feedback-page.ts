// The feedback page's words and hooks, printed by the Worker (worker/pages/feedback.tsx) and its
// island (web/site/feedback.ts) alike (docs/pages.md). Zod-free: the island's bundle imports it.

export const FEEDBACK_TEXT = {
  title: "Send us feedback",
  lead: "Found a bug or have an idea? We read every message.",
  cardTitle: "Your feedback",
  cardLead: "Fields marked * are required.",
  type: "Type *",
  typePlaceholder: "Choose a type",
  priority: "Priority",
  subject: "Subject *",
  message: "Message *",
  email: "Email",
  emailPlaceholder: "So we can reply (optional)",
  submit: "Submit Feedback",
  thanks: "Thank you for your feedback!",
  thanksLead: "We've received your message and will look into it.",
  more: "Send more feedback",
  /** Spec §5 and §8, word for word. */
  missingTitle: "Missing Information",
  missing: "Please fill in all required fields.",
  failedTitle: "Submission Failed",
  failed: "There was an error submitting your feedback. Please try again.",
} as const;

export const FEEDBACK_TYPE_LABELS = {
  bug: "Bug report",
  feature: "Feature request",
  improvement: "Improvement",
  general: "General feedback",
} as const;

export const FEEDBACK_PRIORITY_LABELS = { low: "Low", medium: "Medium", high: "High", urgent: "Urgent" } as const;

/** The hooks the island finds in the page (`data-part`). */
export const FEEDBACK_PART = {
  form: "feedback-form",
  formPanel: "feedback-form-panel",
  sentPanel: "feedback-sent-panel",
  submit: "feedback-submit",
  formError: "feedback-form-error",
  humanCheck: "feedback-human-check",
  more: "feedback-more",
  toasts: "feedback-toasts",
} as const;
