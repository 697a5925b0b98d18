// A secret shown to be copied (an API key, a signing secret): every character visible. Monospace,
// wrapped rather than cut at the right edge, and lines tall enough that an underscore (which sits
// below the baseline) is never clipped, as it was in a one-line input at a small font size. Its rows
// fit the secret at phone width (about 30 characters a line) where a textarea cannot size itself to
// its content (`field-sizing` is Chromium's; there it fits exactly).
import { Textarea } from "@/components/ui/textarea";

export function SecretField({ value, label }: { value: string; label: string }) {
  return (
    <Textarea
      readOnly
      rows={Math.max(1, Math.ceil(value.length / 30))}
      value={value}
      aria-label={label}
      spellCheck={false}
      autoComplete="off"
      className="min-h-0 resize-none break-all bg-background font-mono text-sm leading-relaxed md:text-sm"
      onFocus={(e) => e.target.select()}
    />
  );
}
