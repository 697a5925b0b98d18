// "Buying as a business? Add a VAT number": a business buyer's VAT number, sent with the checkout's
// terms so the server prices it again (a reverse charge shows as the tax line). docs/tax.md.
import type { ChangeTerms } from "./checkout-terms";
import { TermField } from "./term-field";

const EMPTY = "Enter your VAT number with its country prefix, like DE123456789.";

export function VatField({
  applied,
  code,
  bump,
  change,
  disabled = false,
}: {
  /** The VAT number on this checkout (null: none). */
  applied: string | null;
  code?: string;
  bump: boolean;
  change: ChangeTerms;
  /** While a payment is under way. */
  disabled?: boolean;
}) {
  return (
    <TermField
      id="vat-number"
      label="VAT number"
      prompt="Buying as a business? Add a VAT number"
      applied={applied}
      appliedText={`VAT number ${applied} applied.`}
      removeLabel={`Remove VAT number ${applied}`}
      placeholder="DE123456789"
      check={(text) => (text ? null : EMPTY)}
      send={(vatId) =>
        change({ code: code ?? null, bump, vatId: vatId ? vatId.toUpperCase().replace(/[\s.\-/]/g, "") : null })
      }
      field="vatId"
      testId="checkout-vat"
      disabled={disabled}
    />
  );
}
