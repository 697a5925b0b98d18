// Query keys of /settings → Developers; joined with "/" they are the GET path (spec §7).
export const developerKeys = ["/api/developer/keys"] as const;
/** Webhook endpoints; an endpoint's deliveries are [...webhookKeys, id, "deliveries"]. */
export const webhookKeys = ["/api/developer/webhooks"] as const;
export const webhookDeliveryKeys = (endpointId: string) => [...webhookKeys, endpointId, "deliveries"] as const;
