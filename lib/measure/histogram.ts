/**
 * Latency percentiles through an HdrHistogram (the pure-JavaScript build of
 * `hdr-histogram-js`): values in milliseconds are recorded at microsecond
 * resolution with three significant digits, so memory stays small however
 * many values there are, while the largest value is tracked exactly.
 *
 * @module
 */
import { build, type Histogram } from "hdr-histogram-js";
import type { Percentiles } from "../results/mod.ts";

/** Recorded values per millisecond: the histogram works in microseconds. */
const UNITS_PER_MS = 1000;

/**
 * Records durations in milliseconds, one by one or by merging, and reports
 * their {@link Percentiles}.  Negative values (clock skew) count as 0.
 */
export class LatencyHistogram {
  readonly #histogram: Histogram = build({
    bitBucketSize: 64,
    autoResize: true,
    lowestDiscernibleValue: 1,
    highestTrackableValue: 2,
    numberOfSignificantValueDigits: 3,
    useWebAssembly: false,
  });
  #max = 0;

  /** How many values have been recorded. */
  get count(): number {
    return this.#histogram.totalCount;
  }

  /**
   * Records one duration in milliseconds.
   * @throws {RangeError} If the value is not a finite number.
   */
  record(valueMs: number): void {
    if (!Number.isFinite(valueMs)) {
      throw new RangeError(`Not a finite duration: ${valueMs}`);
    }
    const clamped = valueMs > 0 ? valueMs : 0;
    if (clamped > this.#max) this.#max = clamped;
    this.#histogram.recordValue(Math.round(clamped * UNITS_PER_MS));
  }

  /** Adds every value recorded in `other` to this histogram. */
  add(other: LatencyHistogram): void {
    if (other.count === 0) return;
    this.#histogram.add(other.#histogram);
    if (other.#max > this.#max) this.#max = other.#max;
  }

  /**
   * The p50, p90, p99 and p99.9 (bucketed, each at most the maximum) and the
   * exact maximum in milliseconds; `null` when nothing has been recorded.
   */
  percentiles(): Percentiles | null {
    if (this.count === 0) return null;
    const at = (percentile: number): number =>
      Math.min(
        this.#histogram.getValueAtPercentile(percentile) / UNITS_PER_MS,
        this.#max,
      );
    return {
      p50: at(50),
      p90: at(90),
      p99: at(99),
      p999: at(99.9),
      max: this.#max,
    };
  }
}

/**
 * The percentiles of durations in milliseconds; `null` for no values.
 * Negative values count as 0.
 * @throws {RangeError} If a value is not a finite number.
 */
export function percentiles(valuesMs: Iterable<number>): Percentiles | null {
  const histogram = new LatencyHistogram();
  for (const value of valuesMs) histogram.record(value);
  return histogram.percentiles();
}
