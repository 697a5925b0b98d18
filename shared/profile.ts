// The creator's public profile ("Who the buyer pays"): the /settings form's rules, shared by
// the form and PUT /api/profile, and how every page and email names the creator a buyer pays.
import { z } from "zod";
import { MAX_PREVIEW_IMAGE_BYTES } from "./uploads";
import { PRODUCT_NAME } from "./site";

export const MAX_DISPLAY_NAME_CHARS = 60;
export const MAX_BIO_CHARS = 280;
/** The avatar takes the preview image's limit; only what every browser and mail client shows. */
export const MAX_AVATAR_BYTES = MAX_PREVIEW_IMAGE_BYTES;
export const AVATAR_TYPES = ["image/jpeg", "image/png", "image/webp"] as const;

export const PROFILE_MESSAGES = {
  displayName: `Display name must be 1 to ${MAX_DISPLAY_NAME_CHARS} characters`,
  displayNameLine: "Display name must be one line",
  displayNameOurs: `Display name cannot include "${PRODUCT_NAME}": buyers would take it for us`,
  bio: `Bio must be at most ${MAX_BIO_CHARS} characters`,
  supportEmail: "Enter a valid support email address, like help@example.com",
  supportEmailOurs: `Support email must be your own address, not one of ${PRODUCT_NAME}'s`,
  avatarType: "Avatar must be a JPEG, PNG or WebP image",
  avatarSize: `Avatar must be at most ${MAX_AVATAR_BYTES / 1024 / 1024} MB`,
  emailOnSale: "Email me when I make a sale must be on or off",
} as const;

/** The /settings switch's label (the creator's own emails, not shown to buyers). */
export const EMAIL_ON_SALE_LABEL = "Email me when I make a sale";

/**
 * Our name and our domains are ours: a profile naming itself "ApeWall Support", or giving an
 * @apewall… address, would have our own receipts send buyers to someone posing as us.
 */
const OUR_NAME = new RegExp(PRODUCT_NAME, "i");
const OUR_DOMAIN = new RegExp(`@([^@]+\\.)?${PRODUCT_NAME}\\.[a-z.]+$`, "i");

/** "" (or only spaces) is "not given": the field is cleared, and buyers see the fallback. */
const blankToNull = (v: string) => (v === "" ? null : v);

/**
 * PUT /api/profile: the fields given (a field left out stays as it was; a repeat is a no-op): the
 * form sends its three text fields, the sale-email switch only `emailOnSale`, so neither undoes the
 * other and a name saved before a rule existed never blocks the switch. Each field's message names
 * that field, so the form shows it beside the field.
 */
export const profileSchema = z.object({
  displayName: z
    .string({ error: PROFILE_MESSAGES.displayName })
    .trim()
    .max(MAX_DISPLAY_NAME_CHARS, PROFILE_MESSAGES.displayName)
    .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), PROFILE_MESSAGES.displayNameLine)
    .refine((v) => !OUR_NAME.test(v), PROFILE_MESSAGES.displayNameOurs)
    .transform(blankToNull)
    .optional(),
  bio: z
    .string({ error: PROFILE_MESSAGES.bio })
    .trim()
    .max(MAX_BIO_CHARS, PROFILE_MESSAGES.bio)
    .transform(blankToNull)
    .optional(),
  supportEmail: z
    .string({ error: PROFILE_MESSAGES.supportEmail })
    .trim()
    .toLowerCase()
    .max(254, PROFILE_MESSAGES.supportEmail)
    .refine((v) => v === "" || z.email().safeParse(v).success, PROFILE_MESSAGES.supportEmail)
    .refine((v) => !OUR_DOMAIN.test(v), PROFILE_MESSAGES.supportEmailOurs)
    .transform(blankToNull)
    .optional(),
  /** "Email me when I make a sale" (default on). Left out: the setting stays as it was. */
  emailOnSale: z.boolean({ error: PROFILE_MESSAGES.emailOnSale }).optional(),
});
export type ProfileInput = z.input<typeof profileSchema>;
export type ProfileValues = z.output<typeof profileSchema>;

/** GET /api/profile (and the PUTs' answer): what the creator set, and the name buyers see without one. */
export const creatorProfileSchema = z.object({
  displayName: z.string().nullable(),
  bio: z.string().nullable(),
  supportEmail: z.string().nullable(),
  avatarUrl: z.string().nullable(),
  /** The account's first and last name: what buyers see while no display name is set. */
  accountName: z.string().nullable(),
  /** The creator gets "You made a sale" for each sale (private: never shown to buyers). */
  emailOnSale: z.boolean(),
});
export type CreatorProfile = z.infer<typeof creatorProfileSchema>;

/** What buyers see of the creator they pay. `name` is null only when the creator gave no name at all. */
export const publicCreatorSchema = z.object({
  name: z.string().nullable(),
  avatarUrl: z.string().nullable(),
  bio: z.string().nullable(),
  supportEmail: z.string().nullable(),
});
export type PublicCreator = z.infer<typeof publicCreatorSchema>;

export const ANONYMOUS_CREATOR = "an ApeWall creator";

/** "by {name}", the wording of every page and email; today's "by an ApeWall creator" only without a name. */
export const creatorByline = (creator: Pick<PublicCreator, "name"> | null | undefined) =>
  `by ${creator?.name || ANONYMOUS_CREATOR}`;

/** The display name, else the account's first and last name, else null. */
export function publicName(
  displayName: string | null | undefined,
  firstName: string | null | undefined,
  lastName: string | null | undefined,
): string | null {
  if (displayName?.trim()) return displayName.trim();
  const account = [firstName, lastName]
    .map((p) => p?.trim())
    .filter(Boolean)
    .join(" ");
  return account || null;
}
