/**
 * The shape of the results file (`latest.json`), schema version 1.
 *
 * @module
 */

/** How a configuration ended. */
export type Status = "ok" | "incomplete" | "failed" | "skipped";

/** A process that took part in a run. */
export interface ProcessRecord {
  /** `inbox`, `sender`, `worker` or `server`. */
  readonly role: string;
  /** Its process id (for checking that nothing outlives the run). */
  readonly pid: number;
}

/** The queue server a configuration used. */
export interface ServerRecord {
  /** Service name, e.g. `redis`. */
  readonly name: string;
  /** The server's version as it reported it. */
  readonly version: string;
  /** Whether the bench started it (or the user gave a URL). */
  readonly startedByBench: boolean;
}

/** The outcome of one configuration. */
export interface ConfigurationResult {
  /** e.g. `redis-x4`. */
  readonly id: string;
  /** Driver name. */
  readonly driver: string;
  /** `ParallelMessageQueue` workers (1: no wrapper). */
  readonly parallelism: number;
  /** How it ended. */
  readonly status: Status;
  /** Why it is not `ok`; `null` when it is. */
  readonly reason: string | null;
  /** `total × recipients`. */
  readonly expected: number;
  /** Distinct (activity, recipient) pairs that arrived. */
  readonly delivered: number;
  /** Arrivals beyond the first of a pair. */
  readonly duplicates: number;
  /** `expected - delivered`. */
  readonly missing: number;
  /** Inbox requests that were no expected delivery. */
  readonly unexpected: number;
  /** Duration of the `sendActivity` loop; `null` if it did not finish. */
  readonly sendSeconds: number | null;
  /** First to last delivery; `null` unless `ok`. */
  readonly receiveSeconds: number | null;
  /** First `sendActivity` call to last delivery; `null` unless `ok`. */
  readonly totalSeconds: number | null;
  /**
   * `delivered / totalSeconds` when `ok`; for `incomplete`, the rate so far
   * (delivered / elapsed); `null` otherwise.
   */
  readonly deliveriesPerSecond: number | null;
  /** From the first `sendActivity` call to the end of waiting. */
  readonly elapsedSeconds: number | null;
  /** `sendActivity` calls that threw. */
  readonly sendErrors: number;
  /** Separate worker processes consuming the queue (0: the sender does). */
  readonly workers: number;
  /** The stall window actually applied, in seconds. */
  readonly stallTimeoutSeconds: number;
  /** The time limit applied, in seconds. */
  readonly timeoutSeconds: number;
  /** The queue server, if any. */
  readonly server: ServerRecord | null;
  /** Every process of the run. */
  readonly processes: readonly ProcessRecord[];
}

/** Parameters every configuration of a suite shares. */
export interface SuiteParams {
  /** Activities per configuration. */
  readonly total: number;
  /** Recipients per activity. */
  readonly recipients: number;
  /** Fedify's fanout option. */
  readonly fanout: "auto" | "skip" | "force";
  /** RSA modulus length of the sender's key. */
  readonly rsaBits: number;
  /** Time limit per configuration, in seconds. */
  readonly timeoutSeconds: number;
  /** Stall window, in seconds. */
  readonly stallTimeoutSeconds: number;
}

/** The whole results file. */
export interface ResultsDocument {
  /** Always 1 for this shape. */
  readonly schemaVersion: 1;
  /** ISO 8601. */
  readonly startedAt: string;
  /** ISO 8601; `null` while the suite is still running. */
  readonly finishedAt: string | null;
  /** The suite's parameters. */
  readonly params: SuiteParams;
  /** One entry per configuration, in run order. */
  readonly results: readonly ConfigurationResult[];
}

/** The id of a configuration: the driver name, and `-xN` for parallelism N > 1. */
export function configurationId(driver: string, parallelism: number): string {
  return parallelism > 1 ? `${driver}-x${parallelism}` : driver;
}
