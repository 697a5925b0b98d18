import type { Server } from "node:http";

export function createTurnstileStandin(options?: { log?: (line: string) => void }): {
  server: Server;
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
};
