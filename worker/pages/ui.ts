// The React app's shadcn Button, Input, Textarea and Card (web/components/ui) as plain class strings,
// for the server-rendered pages (docs/pages.md): the same look with no React.

/** What every `<Button>` has, whatever its variant and size. */
export const BUTTON_BASE =
  "inline-flex items-center justify-center gap-2 whitespace-nowrap rounded-md font-medium transition-all disabled:pointer-events-none disabled:opacity-50 [&_svg]:pointer-events-none [&_svg:not([class*='size-'])]:size-4 shrink-0 [&_svg]:shrink-0 outline-none focus-visible:border-ring focus-visible:ring-ring/50 focus-visible:ring-[3px]";

const VARIANTS = {
  default: "bg-primary text-primary-foreground shadow-xs hover:bg-primary/90",
  brand: "bg-brand-gradient text-white shadow-md hover:opacity-95 hover:shadow-lg",
  outline: "border bg-background shadow-xs hover:bg-accent hover:text-accent-foreground",
  secondary: "bg-secondary text-secondary-foreground shadow-xs hover:bg-secondary/80",
  ghost: "hover:bg-accent hover:text-accent-foreground",
  link: "text-primary underline-offset-4 hover:underline",
} as const;

const SIZES = {
  default: "h-9 px-4 py-2 text-sm has-[>svg]:px-3",
  sm: "h-8 gap-1.5 px-3 text-sm has-[>svg]:px-2.5",
  lg: "h-11 px-6 text-base has-[>svg]:px-4",
  icon: "size-9",
} as const;

/** The classes of `<Button variant size>`, plus `extra`. */
export const button = (
  variant: keyof typeof VARIANTS = "default",
  size: keyof typeof SIZES = "default",
  extra = "",
): string => `${BUTTON_BASE} ${VARIANTS[variant]} ${SIZES[size]}${extra ? ` ${extra}` : ""}`;

/** `<Input>` without its height and text size (each use sets them). */
export const INPUT =
  "placeholder:text-muted-foreground selection:bg-primary selection:text-primary-foreground border-input flex w-full min-w-0 rounded-md border bg-transparent px-3 py-1 shadow-xs transition-[color,box-shadow] outline-none disabled:pointer-events-none disabled:opacity-50 focus-visible:border-ring focus-visible:ring-ring/50 focus-visible:ring-[3px] aria-invalid:ring-destructive/20 aria-invalid:border-destructive";

/** `<Input>` as the app draws it. */
export const TEXT_INPUT = `${INPUT} h-9 text-base md:text-sm`;

/** `<Textarea>`. */
export const TEXTAREA =
  "border-input placeholder:text-muted-foreground focus-visible:border-ring focus-visible:ring-ring/50 aria-invalid:ring-destructive/20 aria-invalid:border-destructive flex min-h-16 w-full rounded-md border bg-transparent px-3 py-2 text-base shadow-xs transition-[color,box-shadow] outline-none focus-visible:ring-[3px] disabled:opacity-50 md:text-sm";

/** `<Card>`, `<CardHeader>`, `<CardTitle>`, `<CardDescription>`, `<CardContent>`. */
export const CARD = {
  root: "bg-card text-card-foreground flex flex-col gap-6 rounded-xl border py-6 shadow-sm",
  header: "grid auto-rows-min items-start gap-1.5 px-6",
  title: "leading-none font-semibold",
  description: "text-muted-foreground text-sm",
  content: "px-6",
} as const;
