/**
 * Builds a run's {@link Timeline} from the first arrival time of each
 * delivery and the sampled queue depth.
 *
 * @module
 */
import type { Series, Timeline } from "../results/mod.ts";

/** The most buckets a timeline has. */
export const MAX_BUCKETS = 120;

/** Bucket widths in milliseconds, smallest first; "nice" to read on an axis. */
const NICE_WIDTHS_MS: readonly number[] = [
  100,
  200,
  500,
  1_000,
  2_000,
  5_000,
  10_000,
  15_000,
  30_000,
  60_000,
  120_000,
  300_000,
  600_000,
  900_000,
  1_800_000,
  3_600_000,
  7_200_000,
  10_800_000,
  21_600_000,
  43_200_000,
  86_400_000,
];

/**
 * The smallest "nice" bucket width in milliseconds (0.1, 0.2, 0.5, 1, 2, 5,
 * 10, 15, 30, 60, 120, 300 s, …) that covers `spanMs` in at most
 * {@link MAX_BUCKETS} buckets; whole days beyond a day.
 */
export function bucketWidthMs(spanMs: number): number {
  for (const width of NICE_WIDTHS_MS) {
    if (Math.ceil(spanMs / width) <= MAX_BUCKETS) return width;
  }
  const day = NICE_WIDTHS_MS[NICE_WIDTHS_MS.length - 1];
  return Math.ceil(spanMs / MAX_BUCKETS / day) * day;
}

/** Milliseconds to seconds, rounded to the millisecond. */
function toSeconds(ms: number): number {
  return Math.round(ms) / 1000;
}

/** Rounds to three decimals, hiding binary floating-point noise. */
function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/**
 * The timeline of a run, or `null` when nothing arrived.
 *
 * The buckets span from `startMs` to the last arrival or depth sample,
 * whichever is later, so a stall at the end shows as empty buckets; empty
 * buckets in between are kept too.  Arrivals before `startMs` count in the
 * first bucket and arrivals are counted once each (they are first arrivals).
 *
 * @param firstArrivals Epoch milliseconds of the first arrival of each
 *   delivery; `null` for a delivery that never arrived.
 * @param startMs Epoch milliseconds of the first `sendActivity` call.
 * @param depthSamples `[epochMs, depth]` queue depth samples, in time order.
 */
export function buildTimeline(
  firstArrivals: readonly (number | null)[],
  startMs: number,
  depthSamples: readonly [number, number][],
): Timeline | null {
  let last = -Infinity;
  let arrived = 0;
  for (let i = 0; i < firstArrivals.length; i++) {
    const at = firstArrivals[i];
    if (at == null) continue;
    arrived++;
    if (at > last) last = at;
  }
  if (arrived === 0) return null;
  for (const [at] of depthSamples) if (at > last) last = at;
  const spanMs = Math.max(0, last - startMs);
  const width = bucketWidthMs(spanMs);
  const buckets = Math.max(1, Math.ceil(spanMs / width));
  const counts = new Float64Array(buckets);
  for (let i = 0; i < firstArrivals.length; i++) {
    const at = firstArrivals[i];
    if (at == null) continue;
    const index = Math.floor((at - startMs) / width);
    counts[index < 0 ? 0 : index >= buckets ? buckets - 1 : index]++;
  }
  const widthSeconds = width / 1000;
  const deliveries: Series = new Array(buckets);
  const cumulative: Series = new Array(buckets);
  let soFar = 0;
  for (let i = 0; i < buckets; i++) {
    soFar += counts[i];
    deliveries[i] = [toSeconds(i * width), round3(counts[i] / widthSeconds)];
    cumulative[i] = [toSeconds((i + 1) * width), soFar];
  }
  return {
    bucketSeconds: widthSeconds,
    deliveries,
    cumulative,
    queueDepth: depthSamples.map(([at, depth]) => [
      toSeconds(at - startMs),
      depth,
    ]),
  };
}
