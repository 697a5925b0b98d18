// Pieces the API's answer schemas share (each resource's answers live in shared/<resource>.ts): money
// in dollars, ISO times, public ids, and the one-field acknowledgements many routes give.
// Their `.meta` examples are what the OpenAPI document shows (worker/openapi/, docs/api-and-webhooks.md).
import { z } from "zod";

export const dollars = z.number().meta({ description: "US dollars, two decimals", example: 12.5 });
export const isoTime = z.string().meta({ description: "ISO 8601 time", example: "2026-11-23T10:00:00.000Z" });
export const publicId = z.string().meta({ example: "k3JxQ2pL9vT0" });

export const sentSchema = z.object({ sent: z.literal(true) });
export const successSchema = z.object({ success: z.literal(true) });
export const deletedSchema = z.object({ deleted: z.literal(true) });
export const resentSchema = z.object({ resent: z.literal(true) });
export const createdIdSchema = z.object({ id: publicId });
export const urlSchema = z.object({ url: z.string() });
