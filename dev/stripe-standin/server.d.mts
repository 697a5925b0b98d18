import type { Server } from "node:http";

export type Standin = {
  server: Server;
  db: Record<string, unknown>;
  emit(type: string, object: unknown): unknown;
  flushWebhooks(): Promise<void>;
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
};
export function createStandin(options?: {
  webhookUrls?: string[];
  connectWebhookUrls?: string[];
  webhookSecret?: string;
  connectWebhookSecret?: string;
  log?: (line: string) => void;
  stateFile?: string;
}): Standin;
