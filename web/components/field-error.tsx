// Errors beside the field they belong to, for every form: the same shared zod schema the route uses
// is checked before the request, and the API's 400 answer ("field: problem; other: problem", see
// worker/lib/errors.ts) is mapped back onto the fields it names. Each message sits under its field,
// the field is aria-invalid and described by it, and the first invalid field gets the focus. Nothing
// the user typed is touched. What belongs to no field (a 4xx about the whole form) shows beside the
// submit button; a network failure or a 5xx is left to the caller's toast.
import {
  Children,
  cloneElement,
  isValidElement,
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactElement,
  type ReactNode,
} from "react";
import { Label } from "@/components/ui/label";
import type { ZodType, z } from "zod";
import { cn } from "@/lib/utils";

/** Messages by field name; `form` holds what belongs to no field. */
export type FieldErrors = Partial<Record<string, string>>;
export const FORM = "form";

type Check = {
  /** A schema path's first segment -> the form's field name (e.g. hasFile -> file). */
  alias?: Record<string, string>;
  /**
   * Where a message belongs when the schema's path says too little (default: the field it names):
   * field names, or [field, message] to word it for that field.
   */
  place?: (field: string, message: string) => (string | [string, string])[];
};

/** "400: title: Title is required; price: …" -> messages by field (known names only; the rest is the form's). */
function errorsFromServer(
  err: unknown,
  known: readonly string[],
  alias: Record<string, string> = {},
): FieldErrors | null {
  if (!(err instanceof Error)) return null;
  const status = /^(\d{3}): /.exec(err.message);
  if (!status?.[1].startsWith("4") || status[1] === "401") return null;
  const out: FieldErrors = {};
  for (const part of err.message.slice(5).split("; ")) {
    const named = /^([A-Za-z]\w*)(?:[.[][^:]*)?: (.+)$/s.exec(part);
    const worded = /^([a-z][A-Za-z]+) (?:must|is|are) /.exec(part);
    const raw = named?.[1] ?? worded?.[1];
    const field = raw ? (alias[raw] ?? raw) : undefined;
    if (field && known.includes(field)) out[field] ??= named ? named[2] : part;
    else if (part) out[FORM] = out[FORM] ? `${out[FORM]}; ${part}` : part;
  }
  return out;
}

export function useFieldErrors(prefix: string) {
  const [errors, setErrors] = useState<FieldErrors>({});
  const focusPending = useRef<string[] | null>(null);
  const errorId = useCallback((field: string) => `${prefix}-${field}-error`, [prefix]);

  // After the messages are on screen, the first invalid field (in the form's order) takes the focus.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `errors` is the trigger: the focus moves after new messages render
  useEffect(() => {
    const wanted = focusPending.current;
    if (!wanted) return;
    focusPending.current = null;
    const invalid = wanted
      .map((f) => document.querySelector<HTMLElement>(`[aria-describedby~="${errorId(f)}"]`))
      .filter((el): el is HTMLElement => !!el);
    invalid.sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
    invalid[0]?.focus();
  }, [errors, errorId]);

  const show = useCallback((next: FieldErrors) => {
    focusPending.current = Object.keys(next).filter((k) => next[k]);
    setErrors(next);
  }, []);

  return useMemo(() => {
    /** The schema's verdict on `values`: the parsed data, or null with each issue shown beside its field. */
    const check = <S extends ZodType>(schema: S, values: unknown, opts: Check = {}): z.output<S> | null => {
      const parsed = schema.safeParse(values);
      if (parsed.success) {
        setErrors({});
        return parsed.data;
      }
      const next: FieldErrors = {};
      for (const issue of parsed.error.issues) {
        const head = issue.path[0];
        const field = typeof head === "string" ? (opts.alias?.[head] ?? head) : FORM;
        for (const to of opts.place?.(field, issue.message) ?? [field]) {
          const [f, message] = typeof to === "string" ? [to, issue.message] : to;
          next[f] ??= message;
        }
      }
      show(next);
      return null;
    };
    /** Shows a 4xx answer beside the fields it names (true), or leaves it to the caller (false: network, 5xx, 401). */
    const fromServer = (err: unknown, known: readonly string[], alias?: Record<string, string>): boolean => {
      const next = errorsFromServer(err, known, alias);
      if (!next) return false;
      show(next);
      return true;
    };
    const set = (field: string, message: string | undefined) =>
      message ? show({ ...errors, [field]: message }) : setErrors((e) => ({ ...e, [field]: undefined }));
    const clear = (...fields: string[]) =>
      setErrors((e) =>
        fields.some((f) => e[f]) ? { ...e, ...Object.fromEntries(fields.map((f) => [f, undefined])) } : e,
      );
    /** Spread on the field's control: aria-invalid and the message it is described by. */
    const field = (name: string, describedBy?: string) => ({
      "aria-invalid": errors[name] ? true : undefined,
      "aria-describedby":
        [errors[name] ? errorId(name) : undefined, describedBy].filter(Boolean).join(" ") || undefined,
    });
    return { errors, check, fromServer, set, clear, field, errorId, reset: () => setErrors({}) };
  }, [errors, errorId, show]);
}

export type FieldErrorsApi = ReturnType<typeof useFieldErrors>;

/** The message under a field (or, for `form`, beside the submit button). */
export function FieldError({ of, name, className }: { of: FieldErrorsApi; name: string; className?: string }) {
  const message = of.errors[name];
  if (!message) return null;
  return (
    <p
      id={of.errorId(name)}
      className={cn("text-sm text-destructive [overflow-wrap:anywhere]", className)}
      role="alert"
      data-field-error={name}
    >
      {message.charAt(0).toUpperCase() + message.slice(1)}
    </p>
  );
}

/**
 * A label, one control and its message, for forms that keep their own error state: the control is
 * aria-invalid and described by the message (id `{htmlFor}-error`).
 */
export function LabelledField({
  label,
  htmlFor,
  error,
  hint,
  children,
  className,
}: {
  label: ReactNode;
  htmlFor: string;
  error?: string;
  hint?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  const errorId = `${htmlFor}-error`;
  const only =
    Children.count(children) === 1 && isValidElement(children)
      ? (children as ReactElement<Record<string, unknown>>)
      : null;
  const control =
    only && error
      ? cloneElement(only, {
          "aria-invalid": true,
          "aria-describedby": [errorId, only.props["aria-describedby"]].filter(Boolean).join(" "),
        })
      : children;
  return (
    <div className={cn("space-y-1.5", className)}>
      <Label htmlFor={htmlFor}>{label}</Label>
      {control}
      {hint && <p className="text-xs text-muted-foreground">{hint}</p>}
      {error && (
        <p
          id={errorId}
          className="text-sm text-destructive [overflow-wrap:anywhere]"
          role="alert"
          data-testid={errorId}
        >
          {error}
        </p>
      )}
    </div>
  );
}

/** After errors are shown, the first invalid control inside `root` takes the focus (call from an effect). */
export function focusFirstInvalid(root: HTMLElement | null) {
  root?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
}
