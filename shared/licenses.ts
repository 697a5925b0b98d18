// License keys: what apps send to verify a key, what they get back, and the creator's actions.
import { z } from "zod";

export const LICENSE_KEY_PATTERN = /^AW(-[0-9A-HJKMNP-TV-Z]{5}){4}$/;
export const MAX_ACTIVATION_LIMIT = 1000;

/** valid: paid or partly refunded; refunded: in full; disabled: by its creator, or a chargeback took the sale. */
export type LicenseStatus = "valid" | "refunded" | "disabled";

const keyField = z
  .string({ error: "key is required" })
  .trim()
  .toUpperCase()
  .max(64, "key must be at most 64 characters");
const instanceField = z
  .string()
  .trim()
  .min(1, "instance must not be empty")
  .max(200, "instance must be at most 200 characters");

export const verifyLicenseSchema = z.object({ key: keyField, instance: instanceField.optional() });
export const deactivateLicenseSchema = z.object({ key: keyField, instance: instanceField });
export const disableLicenseSchema = z.object({
  reason: z.string().trim().max(200, "reason must be at most 200 characters").optional(),
});

/**
 * POST /api/licenses/verify: "limit_reached" (with HTTP 409) when `instance` is new and every seat is
 * taken; "not_found" (HTTP 404) for a key that does not exist.
 */
export type LicenseVerification = {
  status: LicenseStatus | "limit_reached" | "not_found";
  item: { id: string; title: string } | null;
  activations: number;
  limit: number | null;
};

/** A key as its creator sees it in the sales table; `disabledByCreator`: their switch (enable undoes it). */
export type CreatorLicense = {
  id: string;
  key: string;
  status: LicenseStatus;
  activations: number;
  limit: number | null;
  disabledByCreator: boolean;
  disabledReason: string | null;
};

/** A key as its buyer sees it (success page, unlocked paywall, emails). */
export type BuyerLicense = { key: string; title: string };

/** The item form's two license fields: "Issue a license key with each purchase" and its optional activation limit. */
export const licenseFormFields = {
  issueLicenseKeys: z
    .union([z.boolean(), z.enum(["true", "false", "on", ""])])
    .optional()
    .transform((v) => v === true || v === "true" || v === "on"),
  activationLimit: z
    .union([z.number(), z.string().max(10)])
    .optional()
    .transform((v) => (v === undefined || String(v).trim() === "" ? null : Number(String(v).trim())))
    .refine(
      (v) => v === null || (Number.isInteger(v) && v >= 1 && v <= MAX_ACTIVATION_LIMIT),
      "Activation limit must be a whole number from 1 to 1000, or empty for unlimited",
    ),
};
