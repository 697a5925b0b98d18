import type { Server } from "node:http";

export type Standin = {
  server: Server;
  db: Record<string, unknown>;
  emit(type: string, object: unknown): unknown;
  flushWebhooks(): Promise<void>;
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
};
/** The Stripe API version the stand-in answers for: the one the pinned stripe package uses. */
export const API_VERSION: string;
export function createStandin(options?: {
  webhookUrls?: string[];
  connectWebhookUrls?: string[];
  webhookSecret?: string;
  connectWebhookSecret?: string;
  log?: (line: string) => void;
  stateFile?: string;
}): Standin;
