/**
 * Resampling of timeline series (`[seconds, value]` points) for drawing:
 * merging long series into wider buckets so that a chart stays small, and
 * adding the points that make lines flat or steps closed where they should be.
 *
 * @module
 */
import type { Series } from "../../results/mod.ts";

/** Most points a series keeps before it is merged into wider buckets. */
export const MAX_POINTS = 600;

/**
 * Adds a point one bucket before each later point that follows a gap, at the
 * earlier value, so that straight lines stay flat while nothing arrives.
 */
export function holdFlat(series: Series, bucket: number): Series {
  const out: Series = [];
  for (const point of series) {
    const previous = out.at(-1);
    if (previous != null && point[0] - previous[0] > bucket * 1.5) {
      out.push([point[0] - bucket, previous[1]]);
    }
    out.push(point);
  }
  return out;
}

/**
 * Keeps the last point of each `width`-second bucket (plus the first), when
 * the series has more than {@link MAX_POINTS} points; else the series itself.
 */
export function lastPerBucket(series: Series, width: number): Series {
  if (series.length <= MAX_POINTS) return series;
  const out: Series = [series[0]];
  for (let i = 1; i < series.length; i++) {
    const next = series[i + 1];
    if (
      next == null ||
      Math.floor(next[0] / width) !== Math.floor(series[i][0] / width)
    ) {
      out.push(series[i]);
    }
  }
  return out;
}

/**
 * The largest value in each `width`-second bucket, at the bucket start, when
 * the series has more than {@link MAX_POINTS} points; else the series itself
 * (the same array, so that callers can tell whether it was merged).
 */
export function maxPerBucket(series: Series, width: number): Series {
  if (series.length <= MAX_POINTS) return series;
  const buckets = new Map<number, number>();
  for (const [t, value] of series) {
    const start = Math.floor(t / width) * width;
    buckets.set(start, Math.max(buckets.get(start) ?? -Infinity, value));
  }
  return [...buckets].sort((a, b) => a[0] - b[0]);
}

/** Repeats the last value one bucket later, to draw the last step. */
export function closeLastStep(series: Series, width: number): Series {
  const last = series.at(-1);
  return last == null ? series : [...series, [last[0] + width, last[1]]];
}

/**
 * Merges per-second rates of `from`-second buckets into mean rates of
 * `to`-second buckets, dividing by the time each bucket covers (the last one
 * may be partial).  Buckets missing inside the series count as zero.
 */
export function meanPerBucket(
  series: Series,
  from: number,
  to: number,
): Series {
  const end = (series.at(-1)?.[0] ?? 0) + from;
  const sums = new Map<number, number>();
  for (const [t, rate] of series) {
    const start = Math.floor(t / to) * to;
    sums.set(start, (sums.get(start) ?? 0) + rate * from);
  }
  const out: Series = [];
  for (let start = 0; start < end; start += to) {
    const covered = Math.min(to, end - start);
    out.push([start, (sums.get(start) ?? 0) / covered]);
  }
  // Close the last step at the end of the series.
  const last = out.at(-1);
  if (last != null) out.push([end, last[1]]);
  return out;
}
