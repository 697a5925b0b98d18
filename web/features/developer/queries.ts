// Query keys of /settings → Developers; joined with "/" they are the GET path (spec §7).
export const developerKeys = ["/api/developer/keys"] as const;
