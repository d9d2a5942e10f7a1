/**
 * {@link InboxClient}, with which the runner and `deno task inbox-capacity`
 * read a running fake inbox's counters and arrivals at the control paths
 * `protocol.ts` defines: the other side of `inbox_server.ts`.
 *
 * @module
 */
import type { ReadyMessage } from "../lib/ipc/messages.ts";
import {
  INBOX_PATHS,
  type InboxArrivals,
  type InboxStats,
} from "./protocol.ts";

/** How long reading the counters may take. */
const STATS_TIMEOUT_MS = 10_000;
/** How long reading the arrivals may take: one entry per delivery. */
const ARRIVALS_TIMEOUT_MS = 60_000;

/** Reads a running fake inbox's counters and arrivals over HTTP. */
export class InboxClient {
  /** The inbox's origin, e.g. `http://127.0.0.1:40123`. */
  readonly origin: string;

  /** The dead inboxes' origin (`--inbox-dead-rate`), if any. */
  readonly deadOrigin?: string;

  /** A client of the inbox at `origin` (and its dead inboxes at `deadOrigin`). */
  constructor(origin: string, deadOrigin?: string) {
    this.origin = origin;
    this.deadOrigin = deadOrigin;
  }

  /**
   * A client of the inbox process that reported `ready`, which listens on
   * 127.0.0.1.
   * @throws {TypeError} If the message names no port.
   */
  static fromReady(ready: ReadyMessage): InboxClient {
    if (ready.port == null) {
      throw new TypeError("the inbox reported ready without a port");
    }
    return new InboxClient(
      `http://127.0.0.1:${ready.port}`,
      ready.deadPort == null ? undefined : `http://127.0.0.1:${ready.deadPort}`,
    );
  }

  /**
   * The inbox's counters now.
   * @throws {Error} If it answers other than 2xx or not within 10 s.
   */
  stats(): Promise<InboxStats> {
    return this.#get(INBOX_PATHS.stats, "stats", STATS_TIMEOUT_MS);
  }

  /**
   * Every pair's first arrival, acceptances and attempts.
   * @throws {Error} If it answers other than 2xx or not within 60 s.
   */
  arrivals(): Promise<InboxArrivals> {
    return this.#get(INBOX_PATHS.arrivals, "arrivals", ARRIVALS_TIMEOUT_MS);
  }

  async #get<T>(path: string, what: string, timeoutMs: number): Promise<T> {
    const response = await fetch(`${this.origin}${path}`, {
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`inbox ${what}: HTTP ${response.status}`);
    }
    return await response.json();
  }
}
