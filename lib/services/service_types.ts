/**
 * Types for the queue servers the bench either
 * connects to by URL or starts as throwaway instances, and whether one can
 * be had here.
 *
 * @module
 */
import type { ServerFetcher, ServerTools } from "./fetched.ts";

/**
 * Whether something can run on this machine (a service, a driver), and if
 * not, why: a one-line reason that names the fix.
 */
export type Availability =
  | { readonly available: true; readonly note?: string }
  | { readonly available: false; readonly reason: string };

/** Options for {@link ServiceDefinition.start}. */
export interface StartOptions {
  /** An empty folder for the server's data, sockets and logs. */
  readonly dir: string;
  /** A free TCP port on 127.0.0.1 to listen on. */
  readonly port: number;
  /** Aborts a slow start. */
  readonly signal?: AbortSignal;
  /**
   * The server's programs: the machine's (on `PATH`) when absent, or a copy
   * the bench fetched into its cache.
   */
  readonly tools?: ServerTools;
}

/** A throwaway server that the bench started. */
export interface StartedServer {
  /** The URL clients connect to (no password). */
  readonly url: string;
  /**
   * The server's main process id, for resource accounting.  After
   * {@link restart} it is the new process's id: read it again rather than
   * keeping a copy.
   */
  readonly pid: number;
  /**
   * Stops the server and waits for its processes to exit. Idempotent; works
   * after {@link kill}, with or without a {@link restart} since.
   */
  stop(): Promise<void>;
  /**
   * Kills the server hard, as a power cut would: its whole process tree is
   * frozen, then SIGKILLed, with no chance to flush its own buffers.  Unlike
   * a power cut, what it already handed to the kernel (written but not
   * fsynced) survives.  Keeps its data folder.  Resolves once every process
   * of it is gone.  Does nothing if the server is already down.
   */
  kill?(): Promise<void>;
  /**
   * Starts the server again on the same data folder and port, without
   * re-initialising anything, so it recovers whatever it kept (PostgreSQL's
   * and InnoDB's crash recovery, Redis's RDB or AOF file, RabbitMQ's message
   * store).  A server still running is stopped gracefully first.  Resolves
   * once it accepts connections again; {@link pid} then names the new process.
   *
   * @throws {Error} After {@link stop}, or when the server does not come back
   *   (the message holds the log's last lines).
   */
  restart?(): Promise<void>;
}

/** Describes a kind of server a driver needs. */
export interface ServiceDefinition {
  /** Short name, for example `"redis"`. */
  readonly name: string;
  /**
   * The server's name in prose, for help texts, for example `"Redis"`;
   * {@link name} when absent.
   */
  readonly title?: string;
  /**
   * The environment variable that holds a user-given URL.  Its password is
   * a secret: logs, errors and reports hide it (`redactSecrets`).
   */
  readonly urlEnv: string;
  /**
   * The port a client of the server assumes when a URL of each scheme
   * names none, e.g. `{ redis: 6379, rediss: 6379 }`: `--queue-rtt` and
   * `--worker-hosts` reroute the connections of URLs without a port by it.
   */
  readonly ports?: Readonly<Record<string, number>>;
  /**
   * Executables that must be on `PATH` (or in {@link binaryFolders}) to
   * start a throwaway server.
   */
  readonly binaries: readonly string[];
  /**
   * Folders off `PATH` where the machine's install may keep
   * {@link binaries}, searched after `PATH`, best first (e.g. Debian's
   * `/usr/lib/postgresql/VERSION/bin`); none when absent.
   */
  binaryFolders?(): readonly string[];
  /** How to install the binaries, for the skip reason. */
  readonly installHint: string;
  /**
   * How to fetch the binaries, without root, when they are not on `PATH`;
   * absent when they cannot be fetched (they must be installed).
   */
  readonly fetcher?: ServerFetcher;
  /** Starts a throwaway server; resolves once it accepts connections. */
  start(options: StartOptions): Promise<StartedServer>;
  /**
   * Connects to `url` and returns the server's version; throws an error whose
   * message says what is wrong when it cannot be reached within `timeoutMs`.
   */
  probe(url: string, timeoutMs: number): Promise<{ version: string }>;
}
