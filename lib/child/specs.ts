/**
 * What the runner tells its children, the sender and the workers: their
 * specs, declared apart from the children's code so that the runner's side
 * reads the shapes without loading what the children run.
 *
 * @module
 */
import type { QueueSpec } from "./queue.ts";
import type { LogSpec } from "./fedify_log.ts";
import type { DeadInboxSpec } from "./dead_inboxes.ts";
import type { ScheduleOptions } from "../workload/arrivals.ts";
import type { FanoutMode, OrderingKey, Workload } from "../results/mod.ts";

/** What the runner tells the sender. */
export interface SenderSpec {
  /** Run id embedded in activity ids. */
  readonly runId: string;
  /** Number of activities to send. */
  readonly total: number;
  /** Number of recipients per activity. */
  readonly recipients: number;
  /** Origin of the fake inbox server. */
  readonly inboxOrigin: string;
  /** The queue to open. */
  readonly queue: QueueSpec;
  /** Whether this process also consumes its queue. */
  readonly consume: boolean;
  /** Fedify's fanout option for `sendActivity`. */
  readonly fanout: FanoutMode;
  /** What to send; independent `Create(Note)` activities when absent. */
  readonly workload?: Workload;
  /**
   * `object`: every `sendActivity` passes its note's id as `orderingKey`;
   * no key when absent or `none`.
   */
  readonly orderingKey?: OrderingKey;
  /** RSA modulus length of the sender's key. */
  readonly rsaBits: number;
  /**
   * Set for the baseline: skip Fedify's `sendActivity` and sign and POST
   * every delivery directly with this many in flight.
   */
  readonly direct?: { readonly concurrency: number };
  /**
   * Set for a consumer started after a crash: send nothing, only consume
   * the queue (which, for a queue in the killed process's memory, is empty).
   */
  readonly consumeOnly?: boolean;
  /** Where Fedify's log goes; nowhere when absent. */
  readonly log?: LogSpec;
  /** Dead recipients and their inboxes' origin (`--inbox-dead-rate`). */
  readonly deadInboxes?: DeadInboxSpec;
  /**
   * A rate run: the schedule the `total` activities follow (the sender draws
   * the same one as the runner); calls start on time whether or not earlier
   * ones have returned.
   */
  readonly schedule?: ScheduleOptions;
  /** Closed send loops at once (default 1). */
  readonly senders?: number;
  /**
   * Enqueue into a queue that drops every message, instead of the driver's:
   * the load generator's own limit.
   */
  readonly discard?: boolean;
  /**
   * Send nothing: the idle measurement, which only watches the processes
   * with an empty queue.
   */
  readonly idle?: boolean;
}

/** What the runner tells a worker. */
export interface WorkerSpec {
  /** The queue to consume. */
  readonly queue: QueueSpec;
  /** Whether this worker reports the queue's depth (one worker does). */
  readonly reportDepth: boolean;
  /** Where Fedify's log goes; nowhere when absent. */
  readonly log?: LogSpec;
}
