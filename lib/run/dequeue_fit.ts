/**
 * The arithmetic of `deno task dequeue-cost`: message arrival times into
 * the cost of one dequeue, a line fitted to a driver's cost against its
 * backlog, and the drain time projected from that line.
 *
 * @module
 */
import { nearestRank } from "../measure/stats.ts";
import { leastSquares } from "../workload/mod.ts";
import type {
  CostFit,
  DequeueCostPoint,
  DrainProjection,
} from "../results/dequeue_cost_record.ts";

/** The timing fields of a point. */
export type PointTiming = Pick<
  DequeueCostPoint,
  "dequeued" | "msPerDequeue" | "gapMs"
>;

/**
 * Summarises message arrival times (ms) into a point's timing fields: each
 * gap between consecutive messages is one dequeue.
 */
export function summariseArrivals(times: readonly number[]): PointTiming {
  if (times.length < 2) return { dequeued: 0, msPerDequeue: null, gapMs: null };
  const gaps = times.slice(1).map((t, i) => t - times[i]).sort((a, b) => a - b);
  return {
    dequeued: gaps.length,
    msPerDequeue: (times.at(-1)! - times[0]) / gaps.length,
    gapMs: {
      p50: nearestRank(gaps, 0.5),
      p90: nearestRank(gaps, 0.9),
      max: gaps.at(-1)!,
    },
  };
}

/** Fits a line to a driver's `ok` points; `null` with fewer than two. */
export function fitCost(
  driver: string,
  points: readonly DequeueCostPoint[],
): CostFit | null {
  const ok = points.filter((p) =>
    p.driver === driver && p.status === "ok" && p.msPerDequeue != null
  );
  if (ok.length < 2) return null;
  const xs = ok.map((p) => p.backlog);
  const ys = ok.map((p) => p.msPerDequeue!);
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  const slopeMs = leastSquares(xs, ys).slope;
  const interceptMs = my - slopeMs * mx;
  let sse = 0, syy = 0;
  for (let i = 0; i < n; i++) {
    sse += (ys[i] - (interceptMs + slopeMs * xs[i])) ** 2;
    syy += (ys[i] - my) ** 2;
  }
  return {
    driver,
    interceptMs,
    slopeMs,
    r2: n > 2 && syy > 0 ? 1 - sse / syy : null,
    backlogs: xs,
  };
}

/**
 * Projects, from a fit, the time to dequeue a backlog of `backlog` messages
 * one at a time (the k-th dequeue costs the fit at backlog − k + 1, never
 * less than zero), and how many dequeues fit in 600 s.
 */
export function projectDrain(fit: CostFit, backlog: number): DrainProjection {
  let ms = 0;
  let in600 = 0;
  for (let remaining = backlog; remaining >= 1; remaining--) {
    ms += Math.max(0, fit.interceptMs + fit.slopeMs * remaining);
    if (ms <= 600_000) in600++;
  }
  return {
    driver: fit.driver,
    backlog,
    seconds: ms / 1000,
    dequeuesIn600Seconds: in600,
  };
}
