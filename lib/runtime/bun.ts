/**
 * The app's runtime adapter for Bun (`types.ts`): Node's `process` as on
 * Node.js (`node.ts`), and `Bun.serve` for the federation's server, as
 * Fedify's documentation serves a federation on Bun.
 *
 * @module
 */
import { processRuntime } from "./node.ts";
import type { AppRuntime, AppServer, FetchHandler } from "./types.ts";

/** The part of Bun's global this adapter uses. */
interface BunGlobal {
  readonly version: string;
  serve(options: {
    hostname: string;
    port: number;
    fetch: FetchHandler;
  }): { readonly port: number; stop(closeActive?: boolean): Promise<void> };
}

function bun(): BunGlobal {
  return (globalThis as unknown as { Bun: BunGlobal }).Bun;
}

function serveBun(handler: FetchHandler): Promise<AppServer> {
  const server = bun().serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: handler,
  });
  return Promise.resolve({
    port: server.port,
    shutdown: () => server.stop(true),
  });
}

/** Bun's adapter. */
export const bunRuntime: AppRuntime = processRuntime(
  "bun",
  () => bun().version,
  serveBun,
);
