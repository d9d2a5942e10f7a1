/**
 * The Fedify 2.x queue features in the results: arrival order under ordering
 * keys (`ordering`), `getDepth()` against the bench's own count (`depth`) and
 * dead inboxes with their delayed backlog (`delayed`).
 *
 * @module
 */
import type { OrderingKey } from "./configuration.ts";
import type { Percentiles, Series } from "./figures.ts";

/**
 * Order of arrival in a run of the `cud` workload.  A violation is the
 * first accepted arrival of an (activity, recipient) pair after an accepted
 * arrival of a later step of the same note at the same recipient
 * (docs/methodology.md, "Ordering").
 */
export interface OrderingRecord {
  /** The ordering key the run passed to `sendActivity`. */
  readonly key: OrderingKey;
  /**
   * Whether this configuration's queue, as installed and wrapped,
   * implements `orderingKey` (handles a key's messages one at a time, in
   * order) rather than ignoring it; the same with either key.  Whether
   * order held is {@link violations}.
   */
  readonly supported: boolean;
  /** Why it does not (or what its support rests on); for the report. */
  readonly note?: string;
  /**
   * Order violations counted by the inbox; `null` if it could not be read.
   * @minimum 0
   * @asType integer
   * @nullable
   */
  readonly violations: number | null;
}

/**
 * A run with dead inboxes (`--inbox-dead-rate`): how large the delayed
 * backlog that retries and the circuit breaker built grew, beside the
 * healthy deliveries' throughput and latency.  `expected` counts the
 * healthy deliveries only.
 * @additionalProperties false
 */
export interface DelayedRecord {
  /**
   * The share of recipients whose inbox failed every request.
   * @minimum 0
   * @maximum 1
   */
  readonly inboxDeadRate: number;
  /**
   * How many recipients were dead.
   * @minimum 0
   * @asType integer
   */
  readonly deadRecipients: number;
  /**
   * Requests to dead inboxes, retries included (none is a delivery).
   * @minimum 0
   * @asType integer
   */
  readonly deadAttempts: number;
  /**
   * The largest delayed backlog from the start of sending to the run's
   * end, in messages, from {@link delayedSource}; `null` when unknown.
   * @minimum 0
   */
  readonly peakDelayedBacklog: number | null;
  /**
   * Its mean over that time (two decimals); `null` when unknown.
   * @minimum 0
   */
  readonly meanDelayedBacklog: number | null;
  /**
   * Where the figures above come from: `getDepth` (its `delayed`, sampled
   * every 250 ms, for queues that report it) or `bench` (the counting
   * wrapper: messages enqueued with a delay not yet due).
   */
  readonly delayedSource: "getDepth" | "bench";
  /**
   * The bench's own count's peak, whatever the source.
   * @minimum 0
   */
  readonly peakDelayedBacklogBench: number;
  /**
   * Healthy deliveries per second (`deliveriesPerSecond`).
   * @minimum 0
   */
  readonly healthyDeliveriesPerSecond: number | null;
  /** Healthy deliveries' latency (`latencyMs`). */
  readonly healthyLatencyMs: Percentiles | null;
  /**
   * The delayed backlog over the run, `[seconds from the start of sending,
   * messages]`, from the same source: at each `getDepth()` sample, or
   * every second (at most 600 points) from the bench's count; to read
   * beside `timeline.deliveries`.
   */
  readonly series: Series;
}

/**
 * How a queue's `getDepth()` compared with the truth over a run
 * (`--sample-depth`; docs/methodology.md defines the error), or the time a
 * call takes at given backlogs (dequeue-cost).  A queue without
 * `getDepth()` has only `supported: false`.
 * @additionalProperties false
 */
export interface DepthRecord {
  /** Whether the installed queue has `getDepth()`, as its driver declares. */
  readonly supported: boolean;
  /**
   * Samples judged (taken from the start of sending to the run's end).
   * @minimum 0
   * @asType integer
   */
  readonly samples?: number;
  /**
   * The largest error of a sample, in messages.
   * @minimum 0
   */
  readonly maxAbsError?: number;
  /**
   * The mean error over the samples, in messages.
   * @minimum 0
   */
  readonly meanAbsError?: number;
  /** The largest true depth at a sample, for scale. */
  readonly peakTrueDepth?: number;
  /**
   * Milliseconds one `getDepth()` call took (median of several), by the
   * number of messages in the queue: `{ "0": 0.4, "10000": 3.1 }`.
   * @additionalProperties false
   * @patternProperties { "^[0-9]+$": { "type": "number", "minimum": 0 } }
   */
  readonly callMs?: Readonly<Record<string, number>>;
}
