// The OpenAPI document's `webhooks`: the sale events' bodies (shared/webhooks.ts SALE_WEBHOOK_DATA), each
// `{ type, timestamp, data }` signed per Standard Webhooks. docs/api-and-webhooks.md ("Webhooks").
import type { OpenAPIV3_1 } from "openapi-types";
import { z } from "zod";
import { SALE_WEBHOOK_DATA, WEBHOOK_EVENT_LABELS } from "../../shared/webhooks";

export function webhookDocs(): Record<string, OpenAPIV3_1.PathItemObject> {
  return Object.fromEntries(
    Object.entries(SALE_WEBHOOK_DATA).map(([type, data]) => {
      const body = z.object({ type: z.literal(type), timestamp: z.string(), data });
      return [
        type,
        {
          post: {
            summary: WEBHOOK_EVENT_LABELS[type as keyof typeof SALE_WEBHOOK_DATA],
            description: "Amounts in integer cents. Headers: webhook-id, webhook-timestamp, webhook-signature.",
            requestBody: {
              content: {
                "application/json": {
                  schema: z.toJSONSchema(body),
                },
              },
            },
            responses: { "200": { description: "Any 2xx: delivered; anything else is retried" } },
          },
        } as OpenAPIV3_1.PathItemObject,
      ];
    }),
  );
}
