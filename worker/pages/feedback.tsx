/** @jsxImportSource hono/jsx */
// /feedback (docs/pages.md): the feedback form (spec §2, §5) and its confirmation, as the SPA drew
// them, inside the site's frame. The form posts to /feedback without JavaScript; web/site/feedback.ts
// sends it through POST /api/feedback with the bot check's token instead.
import { FEEDBACK_PRIORITIES, FEEDBACK_TYPES } from "../../shared/feedback";
import {
  FEEDBACK_PART as PART,
  FEEDBACK_PRIORITY_LABELS,
  FEEDBACK_TEXT as T,
  FEEDBACK_TYPE_LABELS,
} from "../../shared/feedback-page";
import { Icon } from "./icons";
import { SitePage } from "./site";
import { button, CARD, TEXT_INPUT, TEXTAREA } from "./ui";

export type FeedbackField = "type" | "priority" | "subject" | "message" | "email";
export type FeedbackView = {
  /** After a form post without JavaScript: the confirmation instead of the form. */
  sent?: boolean;
  values?: Partial<Record<FeedbackField, string>>;
  /** Messages by field, and `form` for the whole form. */
  errors?: Partial<Record<FeedbackField | "form", string>>;
  /** The spec's "Missing Information" words, above the form (what the island shows as a toast). */
  missing?: boolean;
};

const LABEL = "flex items-center gap-2 text-sm leading-none font-medium select-none";
const ERROR = "text-sm text-destructive [overflow-wrap:anywhere]";
/** The SPA's `<SelectTrigger>` look on a native select, its chevron drawn beside it. */
const SELECT =
  "border-input flex h-9 w-full appearance-none items-center rounded-md border bg-transparent py-2 pr-9 pl-3 text-sm shadow-xs outline-none focus-visible:border-ring focus-visible:ring-ring/50 focus-visible:ring-[3px] aria-invalid:border-destructive aria-invalid:ring-destructive/20 [&:has(option[value='']:checked)]:text-muted-foreground";

const errorId = (field: string) => `fb-${field}-error`;

/** The message under a field: always there (empty and hidden when none), so the island fills it in place. */
function FieldError({ field, message }: { field: string; message?: string }) {
  return (
    <p id={errorId(field)} data-field-error={field} role="alert" hidden={!message} class={ERROR}>
      {message ?? ""}
    </p>
  );
}

const invalid = (message?: string, field?: string) =>
  message ? { "aria-invalid": "true", "aria-describedby": errorId(field ?? "") } : {};

function Select({
  field,
  label,
  options,
  value,
  error,
  placeholder,
}: {
  field: FeedbackField;
  label: string;
  options: { value: string; label: string }[];
  value: string;
  error?: string;
  placeholder?: string;
}) {
  return (
    <div class="space-y-2">
      <label for={`fb-${field}`} class={LABEL}>
        {label}
      </label>
      <div class="relative">
        <select id={`fb-${field}`} name={field} class={SELECT} {...invalid(error, field)}>
          {placeholder !== undefined && (
            <option value="" selected={value === ""}>
              {placeholder}
            </option>
          )}
          {options.map((o) => (
            <option key={o.value} value={o.value} selected={o.value === value} class="text-foreground">
              {o.label}
            </option>
          ))}
        </select>
        <Icon name="chevronDown" class="pointer-events-none absolute top-2.5 right-3 size-4 opacity-50" />
      </div>
      {field === "type" && <FieldError field={field} message={error} />}
    </div>
  );
}

function FeedbackForm({ view }: { view: FeedbackView }) {
  const v = view.values ?? {};
  const e = view.errors ?? {};
  return (
    <div data-part={PART.formPanel} hidden={view.sent} class={CARD.root}>
      <div class={CARD.header}>
        <h2 class={CARD.title}>{T.cardTitle}</h2>
        <p class={CARD.description}>{T.cardLead}</p>
      </div>
      <div class={CARD.content}>
        {view.missing && (
          <div
            role="alert"
            class="mb-5 rounded-md border border-destructive/30 bg-destructive/5 px-3 py-2 text-sm text-destructive"
          >
            <p class="font-semibold">{T.missingTitle}</p>
            <p>{T.missing}</p>
          </div>
        )}
        <form method="post" action="/feedback" data-part={PART.form} class="space-y-5" novalidate>
          <div class="grid gap-4 sm:grid-cols-2">
            <Select
              field="type"
              label={T.type}
              placeholder={T.typePlaceholder}
              options={FEEDBACK_TYPES.map((t) => ({ value: t, label: FEEDBACK_TYPE_LABELS[t] }))}
              value={v.type ?? ""}
              error={e.type}
            />
            <Select
              field="priority"
              label={T.priority}
              options={FEEDBACK_PRIORITIES.map((p) => ({ value: p, label: FEEDBACK_PRIORITY_LABELS[p] }))}
              value={v.priority ?? "medium"}
            />
          </div>
          <div class="space-y-2">
            <label for="fb-subject" class={LABEL}>
              {T.subject}
            </label>
            <input
              id="fb-subject"
              name="subject"
              maxlength={200}
              value={v.subject ?? ""}
              class={TEXT_INPUT}
              {...invalid(e.subject, "subject")}
            />
            <FieldError field="subject" message={e.subject} />
          </div>
          <div class="space-y-2">
            <label for="fb-message" class={LABEL}>
              {T.message}
            </label>
            <textarea
              id="fb-message"
              name="message"
              rows={6}
              maxlength={5000}
              class={`${TEXTAREA} field-sizing-fixed`}
              {...invalid(e.message, "message")}
            >
              {v.message ?? ""}
            </textarea>
            <FieldError field="message" message={e.message} />
          </div>
          <div class="space-y-2">
            <label for="fb-email" class={LABEL}>
              {T.email}
            </label>
            <input
              id="fb-email"
              name="email"
              type="email"
              autocomplete="email"
              placeholder={T.emailPlaceholder}
              value={v.email ?? ""}
              class={TEXT_INPUT}
              {...invalid(e.email, "email")}
            />
            <FieldError field="email" message={e.email} />
            <FieldError field="priority" message={e.priority} />
            <p data-part={PART.formError} role="alert" hidden={!e.form} class={ERROR}>
              {e.form ?? ""}
            </p>
          </div>
          <div data-part={PART.humanCheck} data-testid="human-check" />
          <button type="submit" data-part={PART.submit} class={button("default", "default", "w-full")}>
            <Icon name="loader" class="hidden size-4 animate-spin" />
            {T.submit}
          </button>
        </form>
      </div>
    </div>
  );
}

function Thanks({ view }: { view: FeedbackView }) {
  return (
    <div data-part={PART.sentPanel} hidden={!view.sent} class={CARD.root}>
      <div class={`${CARD.content} flex flex-col items-center gap-3 py-8 text-center`} role="status">
        <Icon name="circleCheck" class="size-12 text-emerald-600" />
        <h2 class="text-xl font-semibold">{T.thanks}</h2>
        <p class="text-muted-foreground">{T.thanksLead}</p>
        <a href="/feedback" data-part={PART.more} class={button("outline")}>
          {T.more}
        </a>
      </div>
    </div>
  );
}

export function FeedbackPage({ view }: { view: FeedbackView }) {
  return (
    <SitePage>
      <div class="mx-auto max-w-2xl px-4 py-12">
        <div class="mb-8 text-center">
          <h1 class="text-3xl font-bold tracking-tight">{T.title}</h1>
          <p class="mt-2 text-muted-foreground">{T.lead}</p>
        </div>
        <FeedbackForm view={view} />
        <Thanks view={view} />
      </div>
      <ol
        data-part={PART.toasts}
        aria-live="polite"
        class="fixed top-0 z-[100] flex max-h-screen w-full flex-col-reverse p-4 sm:top-auto sm:right-0 sm:bottom-0 sm:flex-col md:max-w-[420px]"
      />
    </SitePage>
  );
}
