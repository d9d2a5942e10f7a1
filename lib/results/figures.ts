/**
 * The small shapes the other results types are built of: a row's status,
 * percentiles, time series and spreads.
 *
 * @module
 */

/** How a configuration ended. */
export type Status = "ok" | "incomplete" | "failed" | "skipped";

/**
 * Percentiles of a distribution, in milliseconds.
 * @additionalProperties false
 */
export interface Percentiles {
  /** Median. */
  readonly p50: number;
  /** 90th percentile. */
  readonly p90: number;
  /** 99th percentile. */
  readonly p99: number;
  /** 99.9th percentile. */
  readonly p999: number;
  /** Largest value. */
  readonly max: number;
}

/** A series of `[secondsFromStart, value]` points. */
export type Series = [number, number][];

/** Smallest and largest value of a figure over the runs. */
export interface Spread {
  /** Smallest. */
  readonly min: number;
  /** Largest. */
  readonly max: number;
}
