/**
 * The fake inbox's control protocol, defined once: the paths it answers to
 * GET requests and the shapes of their answers.  The inbox
 * (`inbox_server.ts`) serves them; `inbox_client.ts` reads them.  It imports nothing
 * but the ledger's types, so both sides can import it without importing
 * each other.
 *
 * @module
 */
import type { LedgerStats, Rejection } from "./ledger.ts";

/** The inbox's control paths, answered to GET requests. */
export const INBOX_PATHS = {
  /** Its counters: {@link InboxStats}. */
  stats: "/_bench/stats",
  /** First arrival, acceptances and attempts per pair: {@link InboxArrivals}. */
  arrivals: "/_bench/arrivals",
} as const;

/** What the stats path of {@link INBOX_PATHS} returns. */
export interface InboxStats extends LedgerStats {
  /** Unexpected requests by reason. */
  readonly rejections: Readonly<Record<Rejection, number>>;
  /** Pairs addressed to gone recipients: never deliverable. */
  readonly goneDeliveries: number;
  /** Which HTTP server the inbox runs on. */
  readonly transport: "deno" | "node";
  /**
   * Order violations of the ordered workload (`arrival_order.ts`); absent when the
   * run sends independent activities.
   */
  readonly orderViolations?: number;
  /**
   * Pairs addressed to dead recipients (`--inbox-dead-rate`): never
   * deliverable, and not expected; absent without dead inboxes.
   */
  readonly deadDeliveries?: number;
  /** Requests to dead inboxes, retries included. */
  readonly deadAttempts?: number;
  /** Pairs to dead recipients attempted at least once. */
  readonly deadAttempted?: number;
}

/** What the arrivals path of {@link INBOX_PATHS} returns. */
export interface InboxArrivals {
  /** First-arrival epoch ms per pair (`activity × recipients + recipient`), `null` if none. */
  readonly firstArrival: (number | null)[];
  /** Accepted arrivals per pair. */
  readonly counts: number[];
  /** Attempts per pair, accepted or not. */
  readonly attempts: number[];
}
