// The signed-out landing's words (spec §2 "Landing (signed out)"), printed by the Worker's page
// (worker/pages/landing.tsx) and its island (web/site/landing.ts): one source (docs/pages.md).

/** Hooks the landing's island finds in the Worker's HTML. */
export const LANDING_PART = {
  dropZone: "drop-zone",
  fileInput: "file-input",
  dropTitle: "drop-title",
  selected: "selected-file",
  selectedName: "selected-name",
  selectedSize: "selected-size",
  clear: "clear-file",
  submit: "ape-it",
  linkForm: "link-form",
  textForm: "text-form",
} as const;

export const DROP_ZONE_TEXT = {
  title: "Drag & drop your file here, or click to upload",
  dragOver: "Drop your file here!",
  hint: "Support for images, videos, PDFs, documents, and more",
  maxSize: (size: string) => `Maximum file size: ${size}`,
  apeIt: "Ape It",
  upload: (fileName: string) => `Upload ${fileName}`,
  remove: "Remove file",
} as const;

export const LANDING_TEXT = {
  title: "ApeWall — Sell files, links and text behind a paywall",
  description: "Paywall any file, link or text and get paid by card. No account needed for buyers.",
  badge: "Buyers pay by card, no account needed",
  headline: "Drop it. Price it.",
  headlineBrand: "Get paid.",
  lede: "Turn any file, link or text into a paywalled link you can share anywhere. You set the price, from $1 to $1000+, and keep 80% of every sale (100% on Pro).",
  ticks: ["Files up to 5 GB", "Pay-what-you-want", "Upsell funnels"],
  linkTitle: "Paywall a Link",
  linkDescription: "Sell access to a private video, doc, community or any URL.",
  linkPlaceholder: "https://example.com/your-private-content",
  linkLabel: "Link to paywall",
  textTitle: "Paywall Text Content",
  textDescription: "Sell a secret, a guide, a code or any text.",
  textPlaceholder: "Write the text buyers unlock…",
  textLabel: "Text to paywall",
  create: "Create Paywall",
} as const;

export const LANDING_FEATURES = [
  {
    icon: "zap",
    title: "Instant Paywalls",
    text: "Drop a file, paste a link or write a note and get a shareable paywall link in seconds.",
  },
  {
    icon: "dollarSign",
    title: "Set Your Price",
    text: "Charge a fixed price from $1 to $1000+, or let fans pay what they want above your minimum.",
  },
  {
    icon: "chartColumn",
    title: "Track Everything",
    text: "See views, conversions and earnings in real time, and get paid out every month.",
  },
] as const;
