/**
 * The search for the highest rate a configuration sustains: double the rate
 * while probes pass, then bisect (geometrically) between the highest rate
 * that passed and the lowest that failed until they are within 20% of each
 * other; halve instead when the first probe fails.  The caller runs each
 * probe (a fresh rate run from an empty queue) and stops early when its time
 * box runs out; this class only decides what to probe next.
 *
 * A probe passes when the run finished (every delivery arrived within the
 * drain time), kept up with its schedule, and its p99 latency, counted from
 * each activity's scheduled start, stayed under the bound.
 *
 * @module
 */
import type { MaxRateRecord, RunResult } from "../results/types.ts";

/** How close the highest pass and the lowest failure must get. */
const PRECISION = 0.2;
/** How far below the first rate the search goes when nothing passes. */
const FLOOR_DIVISOR = 8;

/** Where the search starts and the rate it must not exceed. */
export interface MaxRateSearchOptions {
  /** The first rate probed, activities per second. */
  readonly startRate: number;
  /**
   * The highest rate worth probing: what the load generator itself can
   * offer; `Infinity` when unknown.
   */
  readonly ceiling: number;
}

/** Whether a probe's run sustained its rate within `latencyBoundMs`. */
export function probePassed(run: RunResult, latencyBoundMs: number): boolean {
  return run.status === "ok" && run.missing === 0 &&
    run.load?.verdict === "kept-up" && run.latencyMs != null &&
    run.latencyMs.p99 <= latencyBoundMs;
}

/** Decides, probe by probe, which rate to try next. */
export class MaxRateSearch {
  readonly #options: MaxRateSearchOptions;
  #passed: number | null = null;
  #failed: number | null = null;
  #probes = 0;

  /** A search that starts at `options.startRate`. */
  constructor(options: MaxRateSearchOptions) {
    if (!(options.startRate > 0) || !(options.ceiling > 0)) {
      throw new RangeError("a max-rate search needs positive rates");
    }
    this.#options = options;
  }

  /** The highest rate that passed so far. */
  get best(): number | null {
    return this.#passed;
  }

  /** The lowest rate that failed so far. */
  get lowestFailed(): number | null {
    return this.#failed;
  }

  /** The next rate to probe, or `null` when the search is over. */
  next(): number | null {
    const { startRate, ceiling } = this.#options;
    if (this.#probes === 0) return Math.min(startRate, ceiling);
    const passed = this.#passed;
    const failed = this.#failed;
    if (passed == null) {
      const lower = roundRate(failed! / 2);
      return lower < startRate / FLOOR_DIVISOR ? null : lower;
    }
    if (failed == null) {
      return passed >= ceiling
        ? null
        : Math.min(roundRate(passed * 2), ceiling);
    }
    if (failed <= passed * (1 + PRECISION)) return null;
    const middle = roundRate(Math.sqrt(passed * failed));
    return middle > passed && middle < failed
      ? middle
      : Math.sqrt(passed * failed);
  }

  /** Records a probe's outcome. */
  record(rate: number, passed: boolean): void {
    this.#probes++;
    if (passed) {
      if (this.#passed == null || rate > this.#passed) this.#passed = rate;
    } else if (this.#failed == null || rate < this.#failed) {
      this.#failed = rate;
    }
  }

  /**
   * Why the search ended: `timeUp` when the caller stopped it before
   * {@link next} returned `null`.
   */
  stoppedBy(timeUp: boolean): MaxRateRecord["stoppedBy"] {
    if (timeUp) return "time-box";
    if (this.#passed == null) return "lowest-failed";
    if (this.#failed == null) return "generator";
    return "bracketed";
  }
}

/** A rate rounded to two significant digits, for readable ids. */
export function roundRate(rate: number): number {
  return rate > 0 ? Number(rate.toPrecision(2)) : rate;
}
