/**
 * How an open-loop rate run went against its schedule, from the schedule and
 * the inbox's arrivals alone: the offered and achieved rates over the second
 * half of the arrival window, the backlog over time, and the verdict, kept
 * up or fell behind.  A pure function of what the run observed; nothing here
 * reads a clock or starts a process.
 *
 * The backlog at time `t` counts deliveries whose activity was *due* by `t`
 * (its scheduled start passed, whether or not the sender had called
 * `sendActivity` yet) and had not arrived by `t`: the operator's view of how
 * far behind the queue is, which a stalled sender cannot shrink.
 *
 * @module
 */
import { percentiles } from "../measure/histogram.ts";
import { roundTo } from "../measure/stats.ts";
import type { ArrivalPattern, LoadRecord, Series } from "../results/mod.ts";

/** Slices of the measured window whose spread is the run's own noise. */
const SLICES = 5;
/** The least shortfall counted as falling behind, as a share of the offer. */
const MIN_SHORTFALL = 0.03;
/** The least backlog growth counted, as a share of offered deliveries/s. */
const MIN_GROWTH = 0.05;
/** Points of the backlog series at most. */
const MAX_POINTS = 240;

/** What a rate run observed. */
export interface LoadObservation {
  /** The rate asked for, activities per second. */
  readonly nominalRate: number;
  /** How arrivals were spaced. */
  readonly arrivals: ArrivalPattern;
  /** Seconds of the arrival window. */
  readonly durationSeconds: number;
  /** Epoch ms of the start of sending (offset 0 of the schedule). */
  readonly startMs: number;
  /** Epoch ms at which each activity was due, in increasing order. */
  readonly dueMs: readonly number[];
  /** Epoch ms at which the sender actually called `sendActivity`, if known. */
  readonly calledMs?: readonly number[];
  /**
   * First arrival (epoch ms) of each delivery `k`, which belongs to activity
   * `k / recipients`; `null` for those that never arrived.
   */
  readonly firstArrival: readonly (number | null)[];
  /** Recipients per activity. */
  readonly recipients: number;
  /** Epoch ms at which watching ended (the backlog series ends there). */
  readonly endMs: number;
}

/** Judges a rate run; see {@link LoadRecord} for each figure. */
export function evaluateLoad(run: LoadObservation): LoadRecord {
  const { recipients, startMs, durationSeconds } = run;
  const due = [...run.dueMs].sort((a, b) => a - b);
  const arrived = run.firstArrival.filter((at): at is number => at != null)
    .sort((a, b) => a - b);
  const dueBy = counter(due);
  const arrivedBy = counter(arrived);
  const backlogAt = (t: number) => recipients * dueBy(t) - arrivedBy(t);
  const windowEnd = startMs + durationSeconds * 1000;
  const half = startMs + durationSeconds * 500;
  const sliceMs = (windowEnd - half) / SLICES;

  const offered: number[] = [];
  const achieved: number[] = [];
  for (let j = 0; j < SLICES; j++) {
    const from = half + j * sliceMs;
    const to = from + sliceMs;
    offered.push((dueBy(to) - dueBy(from)) * 1000 / sliceMs);
    achieved.push(
      (arrivedBy(to) - arrivedBy(from)) / recipients * 1000 / sliceMs,
    );
  }
  const offeredRate = mean(offered);
  const achievedRate = mean(achieved);
  const differences = achieved.map((a, j) => a - offered[j]);
  const noise = Math.max(
    2 * standardDeviation(differences) / Math.sqrt(SLICES),
    MIN_SHORTFALL * offeredRate,
  );

  // The backlog's trend over the measured window, sampled finely.
  const samples = 50;
  const times: number[] = [];
  const values: number[] = [];
  for (let i = 0; i <= samples; i++) {
    const t = half + (windowEnd - half) * i / samples;
    times.push((t - startMs) / 1000);
    values.push(backlogAt(t));
  }
  const { slope, error } = leastSquares(times, values);
  const growing = slope > 2 * error &&
    slope > MIN_GROWTH * offeredRate * recipients;
  const shortfall = achievedRate < offeredRate - noise;
  // More waiting at the end than all that fell due in the second half: the
  // queue is over half a window behind, however few arrivals there were to
  // measure a rate or a trend by.
  const backlogAtEnd = backlogAt(windowEnd);
  const overHalfBehind = backlogAtEnd >
    recipients * (dueBy(windowEnd) - dueBy(half));

  // The backlog's peak over the last quarter of the arrival window against
  // its peak over the third: a queue that delivers in batches peaks once
  // per batch, so peaks compare where a fitted trend would follow the
  // batches' phase.  The backlog peaks right after an activity falls due.
  const quarter = windowEnd - durationSeconds * 250;
  const peakGrowth = peakBacklog(backlogAt, due, quarter, windowEnd) -
    peakBacklog(backlogAt, due, half, quarter);
  const bounded = peakGrowth <= Math.max(
    MIN_GROWTH * recipients * (dueBy(windowEnd) - dueBy(quarter)),
    recipients,
  );

  const lags = run.calledMs == null
    ? null
    : percentiles(run.calledMs.map((called, i) => called - run.dueMs[i]));
  return {
    nominalRate: run.nominalRate,
    arrivals: run.arrivals,
    durationSeconds,
    activities: due.length,
    offeredRate: roundTo(offeredRate, 3),
    achievedRate: roundTo(achievedRate, 3),
    noise: roundTo(noise, 3),
    backlogSlope: roundTo(slope, 3),
    backlogSlopeError: roundTo(error, 3),
    verdict: growing || shortfall || overHalfBehind ? "fell-behind" : "kept-up",
    backlogAtEnd,
    backlogPeakGrowth: backlogPeakGrowthOf(peakGrowth),
    backlogBounded: bounded,
    backlog: backlogSeries(backlogAt, startMs, Math.max(run.endMs, windowEnd)),
    startLagMs: lags,
  };
}

/** The growth of the peak as recorded: a whole number of deliveries. */
function backlogPeakGrowthOf(growth: number): number {
  return Math.round(growth);
}

/** The highest backlog from `from` to `to`: at either end or a due time. */
function peakBacklog(
  backlogAt: (t: number) => number,
  due: readonly number[],
  from: number,
  to: number,
): number {
  let peak = Math.max(backlogAt(from), backlogAt(to));
  for (const t of due) {
    if (t > from && t < to) peak = Math.max(peak, backlogAt(t));
  }
  return peak;
}

/** The backlog from `startMs` to `endMs`, one point per step. */
function backlogSeries(
  backlogAt: (t: number) => number,
  startMs: number,
  endMs: number,
): Series {
  const spanSeconds = (endMs - startMs) / 1000;
  const step = Math.max(1, Math.ceil(spanSeconds / MAX_POINTS));
  const series: Series = [];
  for (let s = 0; s <= spanSeconds; s += step) {
    series.push([s, backlogAt(startMs + s * 1000)]);
  }
  return series;
}

/** A function counting the values of a sorted array that are ≤ `t`. */
function counter(sorted: readonly number[]): (t: number) => number {
  return (t) => {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid] <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

function standardDeviation(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const m = mean(values);
  return Math.sqrt(
    values.reduce((a, v) => a + (v - m) ** 2, 0) / (values.length - 1),
  );
}

/** The least-squares slope of `y` over `x`, and its standard error. */
export function leastSquares(
  x: readonly number[],
  y: readonly number[],
): { slope: number; error: number } {
  const mx = mean(x);
  const my = mean(y);
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < x.length; i++) {
    sxx += (x[i] - mx) ** 2;
    sxy += (x[i] - mx) * (y[i] - my);
  }
  if (sxx === 0) return { slope: 0, error: 0 };
  const slope = sxy / sxx;
  let residuals = 0;
  for (let i = 0; i < x.length; i++) {
    residuals += (y[i] - my - slope * (x[i] - mx)) ** 2;
  }
  const error = x.length > 2 ? Math.sqrt(residuals / (x.length - 2) / sxx) : 0;
  return { slope, error };
}
