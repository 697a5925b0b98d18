/** @jsxImportSource hono/jsx */
// /feedback (docs/pages.md): the same page for every visitor, kept by the edge cache; a signed-in
// creator's address is filled in by the island after load. The form posts here without JavaScript
// (worker/lib/site-form.ts): the same limit, bot check and row as POST /api/feedback.
import { Hono, type Context } from "hono";
import { getCookie } from "hono/cookie";
import { feedbackSchema } from "../../shared/feedback";
import { FEEDBACK_TEXT } from "../../shared/feedback-page";
import { guardForm, readForm } from "../lib/site-form";
import { sendPrivatePage, sendSharedPage, type SiteDocument } from "../lib/site-page";
import type { AppEnv } from "../middleware/context";
import { type FeedbackField, FeedbackPage, type FeedbackView } from "../pages/feedback";
import { readSession, SESSION_COOKIE } from "../services/sessions";
import { storeFeedback } from "./feedback";

type Ctx = Context<AppEnv>;

const FIELDS: FeedbackField[] = ["type", "priority", "subject", "message", "email"];
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

const page = (view: FeedbackView): SiteDocument => ({
  shell: "/shells/feedback",
  title: `${FEEDBACK_TEXT.title} · ApeWall`,
  description: FEEDBACK_TEXT.lead,
  body: (<FeedbackPage view={view} />).toString() as string,
});

const answer = (c: Ctx, view: FeedbackView, status: number) => sendPrivatePage(c, page(view), status);

export const feedbackPageRoutes = new Hono<AppEnv>()
  .get("/feedback", (c) => sendSharedPage(c, "feedback", async () => page({})))
  // The form without JavaScript; the page it answers shows what was typed, so it is nobody else's.
  .post("/feedback", async (c) => {
    const form = await readForm(c);
    if ("refused" in form) return answer(c, { errors: { form: form.refused.message } }, form.refused.status);
    const values = Object.fromEntries(FIELDS.map((f) => [f, (form.fields[f] ?? "").slice(0, 6000)]));
    // A form without a priority gets the schema's default, as the API's body without one does.
    const parsed = feedbackSchema.safeParse({ ...values, priority: values.priority || undefined });
    if (!parsed.success) {
      const errors: FeedbackView["errors"] = {};
      for (const issue of parsed.error.issues) {
        const field = String(issue.path[0] ?? "form") as FeedbackField | "form";
        const message = field === "type" && !values.type ? "type is required" : issue.message;
        errors[FIELDS.includes(field as FeedbackField) ? field : "form"] ??= capital(message);
      }
      const missing = !values.type || !values.subject.trim() || !values.message.trim();
      return answer(c, { values, errors, missing }, 400);
    }
    const refused = await guardForm(c, "feedback", "feedback");
    if (refused) return answer(c, { values, errors: { form: refused.message } }, refused.status);
    const session = await readSession(c.env.SESSIONS, getCookie(c, SESSION_COOKIE));
    await storeFeedback(c.var.db, session?.userId ?? null, parsed.data);
    return answer(c, { sent: true }, 200);
  });
