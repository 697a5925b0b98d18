// A secret shown to be copied (an API key, a signing secret): every character visible. Monospace,
// wrapped rather than cut at the right edge, and lines tall enough that an underscore (which sits
// below the baseline) is never clipped, as it was in a one-line input at a small font size. A block
// of text, not a textarea: it grows with its value in every browser (a textarea grows only where
// `field-sizing` is supported, Chromium), and a click selects the whole secret.

export function SecretField({ value, label }: { value: string; label: string }) {
  return (
    <p
      role="textbox"
      aria-readonly="true"
      aria-label={label}
      tabIndex={0}
      spellCheck={false}
      className="select-all break-all rounded-md border bg-background px-3 py-2 font-mono text-sm leading-relaxed"
    >
      {value}
    </p>
  );
}
