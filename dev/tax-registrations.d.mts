export declare const DEMO_REGISTRATIONS: { country: string; options: { type: string; state?: string } }[];
export declare function createTaxRegistrations(options: {
  apiBase?: string;
  secretKey: string;
}): Promise<{ id: string; country: string; country_options: Record<string, { type: string; state?: string }> }[]>;
