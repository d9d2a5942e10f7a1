/**
 * The search for a configuration's capacity: the highest rate it keeps up
 * with.  The caller runs each probe (a fresh rate run from an empty queue)
 * and stops early when its time box runs out; this class only decides what
 * to probe next and what the probes have shown.
 *
 * A probe *kept up* ({@link probeKeptUp}) when the run finished (every
 * delivery arrived by the end of the probe's drain window) and its backlog
 * stayed bounded: its peak over the last quarter of the arrival window
 * exceeded its peak over the third quarter by at most 5% of the deliveries
 * due in that quarter (`LoadRecord.backlogBounded`).  A queue 10% past its
 * capacity adds a tenth of that quarter's deliveries to its backlog, and a
 * queue that delivers in batches peaks once per batch in each quarter,
 * whatever their phase, when its batches come at least once a quarter.
 * Latency plays no part: a queue that delivers in batches every few
 * seconds keeps up with a high rate at a high latency, and the latency
 * bound is judged separately, at the capacity found.  (Results without
 * `backlogBounded` used the run's verdict instead.)
 *
 * The search ramps the rate up by {@link GROWTH} while probes keep up (or
 * halves it while they do not), then narrows the bracket between the
 * highest rate kept up and the lowest rate not kept up until the two are
 * within {@link RESOLUTION} of each other.  A queue pushed past its
 * capacity delivers at about its capacity, or less when its backlog slows
 * it, so right after a probe fails the search tries just above the rate
 * that probe achieved ({@link ABOVE_ACHIEVED}); when that fails too, just
 * under what it achieved ({@link BELOW_ACHIEVED}) but no lower than would
 * close the bracket if it kept up.  When it achieved no more than a rate
 * already kept up with, the search tries {@link RESOLUTION} above that
 * rate, closing the bracket if it fails.  Otherwise it tries the bracket's
 * geometric middle.  Every probe lies
 * strictly inside the bracket, so the search ends.
 *
 * @module
 */
import type { MaxRateRecord, RunResult } from "../results/mod.ts";

/** The bracket's width, `high / low − 1`, at which the search stops. */
export const RESOLUTION = 0.1;
/** The factor by which the rate grows while probes keep up. */
export const GROWTH = 4;
/** How far below the first rate the search goes when nothing keeps up. */
const FLOOR_DIVISOR = 8;
/** After a failed probe: this multiple of the rate it achieved. */
export const ABOVE_ACHIEVED = 1.04;
/**
 * After a failed probe at {@link ABOVE_ACHIEVED}: this multiple of what
 * that one achieved, so that the two are within {@link RESOLUTION}.
 */
export const BELOW_ACHIEVED = 0.95;

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

/**
 * Whether a probe's run kept up with its rate: it finished with every
 * delivery (status `ok`, none missing) and its backlog stayed bounded
 * (`kept-up` for a record without `backlogBounded`).  Latency is not
 * considered.
 */
export function probeKeptUp(run: RunResult): boolean {
  const load = run.load;
  return run.status === "ok" && run.missing === 0 && load != null &&
    (load.backlogBounded ?? load.verdict === "kept-up");
}

/** Decides, probe by probe, which rate to try next. */
export class MaxRateSearch {
  readonly #options: MaxRateSearchOptions;
  #passed: number | null = null;
  #failed: number | null = null;
  /** What the probe just recorded achieved, if it failed and narrowed. */
  #achieved: number | null = null;
  /** Whether the probe just recorded was the try above what one achieved. */
  #fromAbove = false;
  /** Whether the rate {@link next} returned is the try above. */
  #tryingAbove = false;
  #probes = 0;

  /** A search that starts at `options.startRate`. */
  constructor(options: MaxRateSearchOptions) {
    if (!(options.startRate > 0) || !(options.ceiling > 0)) {
      throw new RangeError("a max-rate search needs positive rates");
    }
    this.#options = options;
  }

  /** The highest rate kept up with so far: the capacity found. */
  get best(): number | null {
    return this.#passed;
  }

  /** The lowest rate not kept up with so far. */
  get lowestFailed(): number | null {
    return this.#failed;
  }

  /**
   * The bracket's width, `lowestFailed / best − 1`; `null` until there is
   * a bracket (nothing kept up, or nothing failed).
   */
  get resolution(): number | null {
    if (this.#passed == null || this.#failed == null) return null;
    return Math.round((this.#failed / this.#passed - 1) * 1000) / 1000;
  }

  /** The next rate to probe, or `null` when the search is over. */
  next(): number | null {
    this.#tryingAbove = false;
    const { startRate, ceiling } = this.#options;
    if (this.#probes === 0) return Math.min(startRate, ceiling);
    const low = this.#passed;
    const high = this.#failed;
    if (low == null) {
      const floor = startRate / FLOOR_DIVISOR;
      const tried = this.#fromAchieved(0, high!);
      if (tried != null && tried >= floor) return tried;
      this.#tryingAbove = false;
      const lower = roundRate(high! / 2);
      return lower < floor ? null : lower;
    }
    if (high == null) {
      return low >= ceiling ? null : Math.min(roundRate(low * GROWTH), ceiling);
    }
    if (high <= low * (1 + RESOLUTION)) return null;
    const tried = this.#fromAchieved(low, high);
    if (tried != null) return tried;
    // It achieved no more than what already kept up: the capacity is near
    // the low end, so try the top of the resolution above it.
    const achieved = this.#achieved;
    if (achieved != null && achieved > 0 && achieved * ABOVE_ACHIEVED <= low) {
      const top = low * (1 + RESOLUTION);
      const near = roundInside(top, low, Math.min(high, top * (1 + 1e-9)));
      if (near != null) return near;
    }
    return roundInside(Math.sqrt(low * high), low, high) ??
      Math.sqrt(low * high);
  }

  /**
   * The try from what the probe just recorded achieved, when it failed:
   * just above that, or just under after a try above failed (no lower than
   * closes the bracket if it keeps up); `null` when outside the bracket.
   */
  #fromAchieved(low: number, high: number): number | null {
    const achieved = this.#achieved;
    if (achieved == null || !(achieved > 0)) return null;
    const tried = this.#fromAbove
      ? roundInside(
        Math.max(achieved * BELOW_ACHIEVED, high / (1 + RESOLUTION)),
        low,
        high,
        "up",
      )
      : roundInside(achieved * ABOVE_ACHIEVED, low, high, "up");
    if (tried != null) this.#tryingAbove = !this.#fromAbove;
    return tried;
  }

  /**
   * Records a probe's outcome: whether it kept up, and the rate it
   * achieved (activities per second), when measured.
   */
  record(rate: number, keptUp: boolean, achievedRate?: number | null): void {
    this.#probes++;
    this.#achieved = null;
    this.#fromAbove = this.#tryingAbove;
    if (keptUp) {
      if (this.#passed == null || rate > this.#passed) this.#passed = rate;
    } else if (this.#failed == null || rate < this.#failed) {
      this.#failed = rate;
      this.#achieved = achievedRate ?? null;
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

/**
 * `rate` rounded to as few significant digits (two to six; three to six
 * `up`) as keep it strictly between `low` and `high`, to the nearest or
 * `up`; `null` if none does.
 */
export function roundInside(
  rate: number,
  low: number,
  high: number,
  direction: "nearest" | "up" = "nearest",
): number | null {
  for (let digits = direction === "up" ? 3 : 2; digits <= 6; digits++) {
    let rounded = Number(rate.toPrecision(digits));
    if (direction === "up" && rounded < rate) {
      const step = 10 ** (Math.floor(Math.log10(rate)) - digits + 1);
      rounded = Number((rounded + step).toPrecision(digits));
    }
    if (rounded > low && rounded < high) return rounded;
  }
  return null;
}
