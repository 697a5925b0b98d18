// License keys: what apps send to verify a key, what they get back, and the creator's actions.
import { z } from "zod";
import { publicId } from "./answers";

const MAX_ACTIVATION_LIMIT = 1000;

/** valid: paid or partly refunded; refunded: in full; disabled: by its creator, or a chargeback took the sale. */
const licenseStatusSchema = z.enum(["valid", "refunded", "disabled"]);
export type LicenseStatus = z.infer<typeof licenseStatusSchema>;

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
export const licenseVerificationSchema = z.object({
  status: z.enum(["valid", "refunded", "disabled", "limit_reached", "not_found"]),
  item: z.object({ id: z.string(), title: z.string() }).nullable(),
  activations: z.number().int(),
  limit: z.number().int().nullable(),
});
export type LicenseVerification = z.infer<typeof licenseVerificationSchema>;
export const licenseNotFoundSchema = licenseVerificationSchema.extend({ message: z.string() });

/** A key as its creator sees it in the sales table; `disabledByCreator`: their switch (enable undoes it). */
export const creatorLicenseSchema = z.object({
  id: publicId,
  key: z.string().meta({ example: "AW-7K2QX-M9PD4-R3TVW-8HJNB" }),
  status: licenseStatusSchema,
  activations: z.number().int(),
  limit: z.number().int().nullable(),
  disabledByCreator: z.boolean(),
  disabledReason: z.string().nullable(),
});
export type CreatorLicense = z.infer<typeof creatorLicenseSchema>;
/** The creator's disable / enable: the key, and the sale it belongs to. */
export const licenseActionSchema = creatorLicenseSchema.extend({ purchaseId: z.string() });
export type LicenseAction = z.infer<typeof licenseActionSchema>;

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
