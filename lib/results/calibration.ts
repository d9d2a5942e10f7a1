/**
 * Reading calibrations (see `lib/run/calibrate.ts`, which measures them):
 * whether the machine's speed changed during a suite or between two suites
 * by more than the calibration's own noise.  `lib/report/calibration.ts`
 * writes them in words.
 *
 * A rate's noise is the min–max of its slices.  Two rates differ beyond
 * noise when those ranges do not overlap: the same rule `deno task compare`
 * applies to runs.
 *
 * @module
 */
import type { Calibration, CalibrationPoint } from "./types.ts";

/** The rates a calibration records. */
export type CalibrationRate = "rsaSignsPerSecond" | "loopbackRequestsPerSecond";

/** Every rate, in the order they are shown. */
export const CALIBRATION_RATES: readonly CalibrationRate[] = [
  "rsaSignsPerSecond",
  "loopbackRequestsPerSecond",
];

/** A rate with its noise: the median and the min and max of its slices. */
export interface RateRange {
  /** Per second. */
  readonly value: number;
  /** Smallest slice, per second. */
  readonly min: number;
  /** Largest slice, per second. */
  readonly max: number;
}

/** How one rate changed from one calibration to another. */
export interface RateShift {
  /** Which rate. */
  readonly rate: CalibrationRate;
  /** Before. */
  readonly from: RateRange;
  /** After. */
  readonly to: RateRange;
  /** `to.value / from.value`: below 1 the machine got slower. */
  readonly ratio: number;
  /** Whether the two ranges do not overlap. */
  readonly beyondNoise: boolean;
}

/** One rate of one calibration point. */
export function rateOf(
  point: CalibrationPoint,
  rate: CalibrationRate,
): RateRange {
  const spread = point.spread[rate];
  return { value: point[rate], min: spread.min, max: spread.max };
}

/**
 * A suite's rate: the mean of its start and end medians, with a range over
 * the slices of both (so that a drift during the suite widens its noise).
 */
export function suiteRate(
  calibration: Calibration,
  rate: CalibrationRate,
): RateRange {
  const points = [calibration.start, calibration.end]
    .filter((p) => p != null)
    .map((p) => rateOf(p, rate));
  return {
    value: points.reduce((sum, p) => sum + p.value, 0) / points.length,
    min: Math.min(...points.map((p) => p.min)),
    max: Math.max(...points.map((p) => p.max)),
  };
}

/** How `rate` changed from `from` to `to`. */
export function shiftOf(
  rate: CalibrationRate,
  from: RateRange,
  to: RateRange,
): RateShift {
  return {
    rate,
    from,
    to,
    ratio: to.value / from.value,
    beyondNoise: from.max < to.min || to.max < from.min,
  };
}

/** How each rate changed from the suite's start to its end; `null` before the end. */
export function driftOf(calibration: Calibration): RateShift[] | null {
  const end = calibration.end;
  if (end == null) return null;
  return CALIBRATION_RATES.map((rate) =>
    shiftOf(rate, rateOf(calibration.start, rate), rateOf(end, rate))
  );
}

/**
 * The relative width of a rate's noise, `(max − min) / median`, above which
 * the host was too busy for its figures to mean much: on a quiet host the
 * slices agree within a few percent.
 */
export const NOISY_SPREAD = 0.25;

/** The rates whose noise over the whole suite exceeds {@link NOISY_SPREAD}. */
export function noisyRates(
  calibration: Calibration,
): { rate: CalibrationRate; range: RateRange }[] {
  return CALIBRATION_RATES
    .map((rate) => ({ rate, range: suiteRate(calibration, rate) }))
    .filter(({ range }) =>
      (range.max - range.min) / range.value > NOISY_SPREAD
    );
}

/** How each suite-level rate changed from one results file to another. */
export function shiftBetween(old: Calibration, now: Calibration): RateShift[] {
  return CALIBRATION_RATES.map((rate) =>
    shiftOf(rate, suiteRate(old, rate), suiteRate(now, rate))
  );
}

/**
 * The calibration of a parsed results file's `environment`, or `null` when
 * it has none or it is malformed (a file from before calibration, or edited
 * by hand): a comparison then says the calibration is unknown.
 */
export function readCalibration(environment: unknown): Calibration | null {
  const record = (v: unknown): Record<string, unknown> | null =>
    typeof v === "object" && v != null && !Array.isArray(v)
      ? v as Record<string, unknown>
      : null;
  const positive = (v: unknown) =>
    typeof v === "number" && Number.isFinite(v) && v > 0;
  const point = (v: unknown): boolean => {
    const p = record(v);
    const spread = record(p?.spread);
    return p != null && spread != null &&
      CALIBRATION_RATES.every((rate) => {
        const s = record(spread[rate]);
        return positive(p[rate]) && s != null && positive(s.min) &&
          positive(s.max);
      });
  };
  const calibration = record(record(environment)?.calibration);
  if (calibration == null || !point(calibration.start)) return null;
  if (calibration.end != null && !point(calibration.end)) return null;
  return {
    start: calibration.start as unknown as CalibrationPoint,
    end: (calibration.end ?? null) as CalibrationPoint | null,
  };
}
