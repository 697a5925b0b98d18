// The item form's license setting (create and edit): "Issue a license key with each purchase" and
// its optional activation limit, checked by the same shared rule as the server, error beside it.
import { licenseFormFields } from "@shared/licenses";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";

export type LicenseDraft = { issueLicenseKeys: boolean; activationLimit: string };

/** The limit's error message, or undefined when the setting is valid. */
export function licenseError(d: LicenseDraft): string | undefined {
  if (!d.issueLicenseKeys) return undefined;
  const parsed = licenseFormFields.activationLimit.safeParse(d.activationLimit);
  return parsed.success ? undefined : parsed.error.issues[0]?.message;
}

export function LicenseFields({
  value,
  onChange,
  error,
  disabled,
}: {
  value: LicenseDraft;
  onChange: (next: LicenseDraft) => void;
  error?: string;
  disabled?: boolean;
}) {
  return (
    <div className="space-y-3 rounded-lg border p-4">
      <label className="flex items-center gap-2 text-sm font-medium">
        <input
          type="checkbox"
          id="issueLicenseKeys"
          className="size-4"
          checked={value.issueLicenseKeys}
          disabled={disabled}
          onChange={(e) => onChange({ ...value, issueLicenseKeys: e.target.checked })}
        />
        Issue a license key with each purchase
      </label>
      {value.issueLicenseKeys && (
        <div className="space-y-2">
          <Label htmlFor="activationLimit">Activation limit</Label>
          <Input
            id="activationLimit"
            type="number"
            inputMode="numeric"
            min={1}
            max={1000}
            step={1}
            placeholder="Unlimited"
            value={value.activationLimit}
            disabled={disabled}
            aria-invalid={!!error}
            onChange={(e) => onChange({ ...value, activationLimit: e.target.value })}
          />
          {error ? (
            <p className="text-sm text-destructive" role="alert" id="activationLimit-error">
              {error}
            </p>
          ) : (
            <p className="text-xs text-muted-foreground">
              How many machines one key may be activated on (1–1000). Empty: unlimited.
            </p>
          )}
        </div>
      )}
    </div>
  );
}
