import type { Server } from "node:http";

export const DUMMY_TOKEN: string;
export const TEST_SECRETS: { pass: string; fail: string; spent: string };
export function createTurnstileStandin(options?: { log?: (line: string) => void }): {
  server: Server;
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
};
