/**
 * What one run sends: the default burst (TOTAL activities from one closed
 * loop), a burst from several closed loops at once, an open-loop rate run,
 * or nothing at all (the idle measurement).
 *
 * @module
 */
import type { ArrivalPattern } from "../results/mod.ts";

/** How one run loads its configuration; a burst of TOTAL when absent. */
export type RunLoad =
  /** TOTAL (or `total`) activities from `senders` closed loops at once. */
  | {
    readonly kind: "senders";
    readonly senders: number;
    /** Activities to send instead of the suite's TOTAL. */
    readonly total?: number;
  }
  /** Activities arriving at `rate` per second for `durationSeconds`. */
  | {
    readonly kind: "rate";
    readonly rate: number;
    readonly durationSeconds: number;
    readonly arrivals: ArrivalPattern;
    readonly seed: number;
    /** Seconds to wait after the window for what is still queued. */
    readonly drainSeconds: number;
  }
  /** Nothing sent: the processes are watched for `seconds` after start-up. */
  | { readonly kind: "idle"; readonly seconds: number };
