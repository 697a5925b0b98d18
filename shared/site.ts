// Names both the Worker and the SPA (and the build) use for the site itself.
export const PRODUCT_NAME = "ApeWall";

/** Scalar's API reference bundle, built into the static assets by vite.config.ts and loaded by /docs/api. */
export const SCALAR_BUNDLE_PATH = "docs/scalar-api-reference.js";

/** Hooks the public pages' shared island (web/site/common.ts) finds in the Worker's HTML (docs/pages.md). */
export const SITE_PART = { signIn: "site-sign-in", start: "site-start" } as const;
/** What those links say to a signed-in visitor (they go to "/", the dashboard): 'Sign In', 'Get Started Free'. */
export const SIGNED_IN_TEXT = { [SITE_PART.signIn]: "Dashboard", [SITE_PART.start]: "Go to Dashboard" } as const;
/** The element id of the SPA's entry files, which the public pages prefetch when the visitor shows intent. */
export const SPA_ASSETS_ID = "spa-assets";
