export type RequiredProperties = {
  objects: Record<string, string[]>;
  nested?: Record<string, Record<string, string[]>>;
};
export function missingRequired(value: unknown, required: RequiredProperties, seen?: Set<string>): string[];
