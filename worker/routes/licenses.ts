// License keys: the public verify/deactivate calls apps make (no account, no CORS headers: apps
// call from their own servers or desktop code), and the creator's disable / enable.
// verify answers 200 with the key's status (valid / refunded / disabled), 404 with "not_found" for
// an unknown key, and 409 with "limit_reached" when a new instance finds every seat taken, so a
// client can branch on either the HTTP status or the body's status.
import { Hono } from "hono";
import {
  deactivateLicenseSchema,
  disableLicenseSchema,
  verifyLicenseSchema,
  licenseActionSchema,
  licenseNotFoundSchema,
  licenseVerificationSchema,
} from "../../shared/licenses";
import { requireUser, type AppEnv } from "../middleware/context";
import { limitOrThrow, rateLimit } from "../lib/rate-limit";
import { validate } from "../lib/validate";
import { deactivateLicense, setLicenseDisabled, verifyLicense } from "../services/licenses";
import { doc } from "../openapi/describe";

const NOT_FOUND = "License key not found";
const LICENSE_ID = /^[A-Za-z0-9]{1,32}$/;

export const licenseRoutes = new Hono<AppEnv>()
  .post(
    "/licenses/verify",
    doc({
      tag: "License keys",
      summary: "Verify a license key (and take a seat)",
      description: "With `instance`, a valid key records an activation for it (once per instance).",
      access: "public",
      ok: licenseVerificationSchema,
      errors: {
        404: { description: "No such key (status not_found)", schema: licenseNotFoundSchema },
        409: { description: "Every seat is taken (status limit_reached)", schema: licenseVerificationSchema },
        429: "Too many checks from this address or for this key",
      },
    }),
    rateLimit("LICENSE_IP_LIMITER", "license"),
    validate("json", verifyLicenseSchema),
    async (c) => {
      const input = c.req.valid("json");
      await limitOrThrow(c as never, "LICENSE_KEY_LIMITER", `license:${input.key}`);
      const { http, body } = await verifyLicense(c.env.DB, input, c.env.WEBHOOKS);
      return c.json(http === 404 ? { ...body, message: NOT_FOUND } : body, http);
    },
  )
  .post(
    "/licenses/deactivate",
    doc({
      tag: "License keys",
      summary: "Free a seat",
      access: "public",
      ok: licenseVerificationSchema,
      errors: {
        404: { description: "No such key (status not_found)", schema: licenseNotFoundSchema },
        429: "Too many checks from this address or for this key",
      },
    }),
    rateLimit("LICENSE_IP_LIMITER", "license"),
    validate("json", deactivateLicenseSchema),
    async (c) => {
      const input = c.req.valid("json");
      await limitOrThrow(c as never, "LICENSE_KEY_LIMITER", `license:${input.key}`);
      const { http, body } = await deactivateLicense(c.env.DB, input);
      return c.json(http === 404 ? { ...body, message: NOT_FOUND } : body, http);
    },
  )
  .post(
    "/licenses/:id/disable",
    doc({
      tag: "License keys",
      summary: "Disable a sale's license key",
      access: "creator",
      ok: licenseActionSchema,
      errors: { 404: "No such key of yours" },
    }),
    requireUser,
    validate("json", disableLicenseSchema),
    async (c) => {
      const id = c.req.param("id");
      if (!LICENSE_ID.test(id)) return c.json({ message: NOT_FOUND }, 404);
      const { reason } = c.req.valid("json");
      return c.json(await setLicenseDisabled(c.env.DB, c.var.userId, id, { reason: reason || null }));
    },
  )
  .post(
    "/licenses/:id/enable",
    doc({
      tag: "License keys",
      summary: "Enable a key again",
      access: "creator",
      ok: licenseActionSchema,
      errors: { 404: "No such key of yours" },
    }),
    requireUser,
    async (c) => {
      const id = c.req.param("id");
      if (!LICENSE_ID.test(id)) return c.json({ message: NOT_FOUND }, 404);
      return c.json(await setLicenseDisabled(c.env.DB, c.var.userId, id, null));
    },
  );
