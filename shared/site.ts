// Names both the Worker and the SPA (and the build) use for the site itself.
export const PRODUCT_NAME = "ApeWall";

/** Scalar's API reference bundle, built into the static assets by vite.config.ts and loaded by /docs/api. */
export const SCALAR_BUNDLE_PATH = "docs/scalar-api-reference.js";
