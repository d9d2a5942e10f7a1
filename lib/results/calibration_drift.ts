/**
 * Reading calibrations (see `lib/run/calibrate.ts`, which measures them):
 * whether the machine's speed changed during a suite or between two suites
 * by more than the calibration's own noise.  `lib/report/calibration_text.ts`
 * writes them in words.
 *
 * A rate's noise is the min–max of its slices.  Two rates differ beyond
 * noise when those ranges do not overlap: the same rule `deno task compare`
 * applies to runs.
 *
 * @module
 */
import type { Calibration, CalibrationPoint } from "./environment_record.ts";

/**
 * The rates a calibration records; `rsaSignsPerSecondAllCores` only in files
 * written since it was measured ({@link recordedSuiteRate} reads it).
 */
export type CalibrationRate =
  | "rsaSignsPerSecond"
  | "rsaSignsPerSecondAllCores"
  | "loopbackRequestsPerSecond";

/** Every rate every calibration records, in the order they are shown. */
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

/**
 * One rate of one calibration point (the all-cores rate only where the point
 * records it: see {@link recordedSuiteRate}).
 */
export function rateOf(
  point: CalibrationPoint,
  rate: CalibrationRate,
): RateRange {
  const spread = point.spread[rate]!;
  return { value: point[rate]!, min: spread.min, max: spread.max };
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

/**
 * A suite's rate as {@link suiteRate} gives it, for a rate that not every
 * file records (the all-cores rate): `null` unless every point of the
 * calibration has it, with its spread.
 */
export function recordedSuiteRate(
  calibration: Calibration,
  rate: CalibrationRate,
): RateRange | null {
  const points = [calibration.start, calibration.end]
    .filter((p) => p != null);
  const recorded = points.every((p) =>
    typeof p[rate] === "number" && p.spread[rate] != null
  );
  return recorded ? suiteRate(calibration, rate) : null;
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
  // What a comparison reads of a point: each rate and its spread, above 0.
  const point = (v: unknown): v is CalibrationPoint => {
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
  return { start: calibration.start, end: calibration.end ?? null };
}

/** The rates a row's calibration is compared on across a suite. */
export type RowRate = "rsaSignsPerSecond" | "rsaSignsPerSecondAllCores";

/** Both row rates, one thread first. */
export const ROW_RATES: readonly RowRate[] = [
  "rsaSignsPerSecond",
  "rsaSignsPerSecondAllCores",
];

/**
 * How far a row's calibration may sit from the suite's median before the
 * report says the row was measured on a different machine speed: 10 %.
 */
export const DRIFT_LIMIT = 0.1;

/** One row's calibration against the suite's median. */
export interface RowSpeed {
  /** The row's id. */
  readonly id: string;
  /** Its rate, per second. */
  readonly value: number;
  /** `value / median`: below 1 the host was slower for this row. */
  readonly ratio: number;
}

/** How one rate of the rows' calibrations spread over a suite. */
export interface RowDrift {
  /** Which rate. */
  readonly rate: RowRate;
  /** Threads of the all-cores rate (1 for the one-thread rate). */
  readonly threads: number;
  /** The median over the rows, per second. */
  readonly median: number;
  /** Every calibrated row, in the results' order. */
  readonly rows: readonly RowSpeed[];
  /** `(max − min) / median` over the rows. */
  readonly range: number;
  /** Rows more than {@link DRIFT_LIMIT} away from the median. */
  readonly affected: readonly RowSpeed[];
}

/**
 * How the rows' own calibrations (each taken just before its row) spread
 * over a suite, per rate; empty when fewer than two rows were calibrated.
 * A rate only some rows recorded (files from before the all-cores rate)
 * covers those rows.
 */
export function rowDrift(
  results: readonly {
    readonly id: string;
    readonly calibration?: CalibrationPoint;
  }[],
): RowDrift[] {
  const out: RowDrift[] = [];
  for (const rate of ROW_RATES) {
    const measured = results.flatMap((r) => {
      const value = r.calibration?.[rate];
      return typeof value === "number" && value > 0
        ? [{ id: r.id, value, threads: r.calibration?.threads ?? 1 }]
        : [];
    });
    if (measured.length < 2) continue;
    const values = measured.map((m) => m.value).sort((a, b) => a - b);
    const middle = values.length >> 1;
    const median = values.length % 2 === 1
      ? values[middle]
      : (values[middle - 1] + values[middle]) / 2;
    const rows = measured.map(({ id, value }) => ({
      id,
      value,
      ratio: value / median,
    }));
    out.push({
      rate,
      threads: rate === "rsaSignsPerSecond" ? 1 : measured[0].threads,
      median,
      rows,
      range: (values[values.length - 1] - values[0]) / median,
      affected: rows.filter((r) => Math.abs(r.ratio - 1) > DRIFT_LIMIT),
    });
  }
  return out;
}
