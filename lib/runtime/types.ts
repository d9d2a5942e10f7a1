/**
 * What the app's processes (the sender and the queue workers) need from the
 * runtime they run on, as one interface: arguments, environment, the line
 * channel to the bench (stdout and stdin), signals, the last-resort
 * rejection handler, an HTTP server for the federation, and exit.  Each
 * runtime has one small adapter (`deno.ts`, `node.ts`, `bun.ts`); the rest
 * of the app's code is shared.
 *
 * @module
 */

import type { RuntimeIdentity } from "../results/configuration.ts";

/** The signals that ask an app process to stop. */
export const STOP_SIGNALS = ["SIGTERM", "SIGINT"] as const;

/** A request handler, as `Federation.fetch` is one. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/** A listening HTTP server on the loopback. */
export interface AppServer {
  /** The port it listens on. */
  readonly port: number;
  /** Stops listening and closes its connections. */
  shutdown(): Promise<void>;
}

/** One runtime's adapter. */
export interface AppRuntime extends RuntimeIdentity {
  /** This process's id. */
  readonly pid: number;
  /** The arguments after the script. */
  readonly args: readonly string[];
  /** An environment variable, or `undefined` when unset or unreadable. */
  env(name: string): string | undefined;
  /** Writes `bytes` to stdout at once (one synchronous write). */
  writeStdout(bytes: Uint8Array): void;
  /** This process's stdin as a stream. */
  stdin(): ReadableStream<Uint8Array>;
  /**
   * Calls `listener` on SIGTERM or SIGINT (instead of the runtime's default
   * of exiting).
   * @returns Removes the listener again.
   */
  onStopSignal(listener: () => void): () => void;
  /**
   * Calls `listener` with the reason of each rejection no code holds; when
   * it returns `false`, the rejection ends the process as it would have
   * without the listener.
   * @returns Removes the listener again.
   */
  onUnhandledRejection(listener: (reason: unknown) => boolean): () => void;
  /**
   * Why `error` is what closing a resource under a pending operation is
   * bound to cause on this runtime (its own error classes), or `undefined`.
   */
  closedResource(error: unknown): string | undefined;
  /** Serves `handler` on 127.0.0.1 at a free port. */
  serve(handler: FetchHandler): Promise<AppServer>;
  /** Ends the process with `code`. */
  exit(code: number): never;
}
