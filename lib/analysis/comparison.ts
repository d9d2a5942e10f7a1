/**
 * Compares two results files configuration by configuration: the change in
 * median receive time, throughput and p99 latency, with a verdict only where
 * the data allow one: at least {@link MIN_RUNS} runs on each side and
 * min–max ranges that do not overlap.  When the files' calibrations (the
 * machine's speed, see `calibrate.ts`) differ beyond their noise, each
 * figure is also normalised to the old file's machine speed, and a verdict
 * needs the raw and normalised figures to agree.  {@link findRegressions}
 * is the CI gate's rule.  `lib/report/changes_table.ts` renders it;
 * `lib/cli/compare.ts` is the command line.
 *
 * @module
 */
import {
  type CalibrationRate,
  driftOf,
  noisyRates,
  type RateRange,
  type RateShift,
  readCalibration,
  recordedSuiteRate,
  shiftBetween,
  shiftOf,
} from "../results/calibration_drift.ts";
import { BENCH, measurementDifferences } from "../params/mod.ts";
import type {
  Commit,
  ConfigurationResult,
  LimitingResource,
  ResultsDocument,
  Status,
  SuiteParams,
} from "../results/mod.ts";

/** Runs needed on each side for a verdict: fewer leave the noise unknown. */
export const MIN_RUNS = 3;

/** The figures compared, by their key in {@link ConfigurationResult.spread}. */
export type ComparedFigure =
  | "receiveSeconds"
  | "deliveriesPerSecond"
  | "latencyP99Ms";

/**
 * How a figure changed:
 * - `better` / `worse`: both sides have at least {@link MIN_RUNS} runs and
 *   their min–max ranges do not overlap (lower times and latencies and
 *   higher throughput are better); when the machine's speed differs, the
 *   normalised ranges agree too;
 * - `noise`: the ranges overlap;
 * - `too few runs`: a side has fewer than {@link MIN_RUNS} runs, so the noise
 *   is unknown;
 * - `unclear`: the machine's speed differs and the raw and normalised
 *   figures disagree (see {@link FigureChange.raw}).
 */
export type Verdict = "better" | "worse" | "noise" | "too few runs" | "unclear";

/** A figure's median with its min–max over the runs. */
export interface FigureRange {
  /** The median (the only run's value with one run). */
  readonly value: number;
  /** Smallest over the `ok` runs. */
  readonly min: number;
  /** Largest over the `ok` runs. */
  readonly max: number;
}

/** A figure of the new file at the old file's machine speed. */
export interface NormalizedChange {
  /** The new median, normalised. */
  readonly new: FigureRange;
  /** Its change against the old median, percent; `null` when old is 0. */
  readonly percent: number | null;
  /** What the normalised ranges alone say. */
  readonly verdict: Verdict;
}

/** The change of one figure of a configuration present and `ok` in both. */
export interface FigureChange {
  /** Which figure. */
  readonly figure: ComparedFigure;
  /** The old median; `null` when the old file lacks it. */
  readonly old: number | null;
  /** The new median; `null` when the new file lacks it. */
  readonly new: number | null;
  /** The old median with its min–max; `null` when absent. */
  readonly oldRange: FigureRange | null;
  /** The new median with its min–max; `null` when absent. */
  readonly newRange: FigureRange | null;
  /** Runs behind the old figure. */
  readonly oldRuns: number;
  /** Runs behind the new figure. */
  readonly newRuns: number;
  /** `new − old`; `null` unless both are known. */
  readonly delta: number | null;
  /** `delta` as a percentage of `old`; `null` unless both are known and old ≠ 0. */
  readonly percent: number | null;
  /** What the raw ranges alone say; `null` unless both are known. */
  readonly raw: Verdict | null;
  /**
   * The new figure at the old file's machine speed, when the calibrations
   * differ beyond noise; otherwise `null`.
   */
  readonly normalized: NormalizedChange | null;
  /** The verdict; `null` unless both are known. */
  readonly verdict: Verdict | null;
}

/** One configuration id in the comparison. */
export interface ComparisonRow {
  /** The configuration id, e.g. `redis-x4`. */
  readonly id: string;
  /** Whether the id is in both files or only one. */
  readonly presence: "both" | "only in old" | "only in new";
  /** Its status in the old file; `null` when absent there. */
  readonly oldStatus: Status | null;
  /** Its status in the new file; `null` when absent there. */
  readonly newStatus: Status | null;
  /**
   * When in both files but not `ok` in both: `better` or `worse` if the status
   * itself improved or got worse (ok < skipped < incomplete < failed),
   * otherwise `null`.
   */
  readonly statusVerdict: "better" | "worse" | null;
  /** One entry per compared figure; empty unless `ok` in both files. */
  readonly changes: readonly FigureChange[];
  /**
   * What limits the configuration (its `limitedBy` resource) in each file,
   * when both files say and they differ; absent otherwise.
   */
  readonly limitChange?: {
    readonly old: LimitingResource;
    readonly new: LimitingResource;
  };
}

/**
 * A suite parameter that changes what a figure measures (declared so in
 * lib/params/) whose value differs between the files.
 */
export interface ParamDifference {
  /** The parameter's name in {@link SuiteParams}. */
  readonly name: keyof SuiteParams;
  /** Its old value. */
  readonly old: unknown;
  /** Its new value. */
  readonly new: unknown;
}

/** What the two files' calibrations say about the machines' speeds. */
export interface CalibrationComparison {
  /** Which files have no (valid) calibration: then nothing is normalised. */
  readonly unknownIn: readonly ("old" | "new")[];
  /** How each rate changed from old to new; `null` when either is unknown. */
  readonly shifts: readonly RateShift[] | null;
  /**
   * The rate the figures are normalised by, when both files are calibrated:
   * the first of {@link NORMALIZING_RATES} both recorded.
   */
  readonly normalizingRate: CalibrationRate | null;
  /**
   * The new file's {@link normalizingRate} ÷ the old file's, when it differs
   * beyond noise; `null` otherwise (nothing normalised).  Times are
   * normalised by multiplying by it, throughput by dividing.
   */
  readonly scale: number | null;
  /** Rates that drifted beyond noise during each file's own suite. */
  readonly drift: {
    readonly old: readonly RateShift[];
    readonly new: readonly RateShift[];
  };
  /** Rates too noisy within each file's own suite (a busy host). */
  readonly noisy: {
    readonly old: readonly { rate: CalibrationRate; range: RateRange }[];
    readonly new: readonly { rate: CalibrationRate; range: RateRange }[];
  };
}

/** The comparison of two results files. */
export interface Comparison {
  /**
   * Differences in the parameters that change what a figure measures:
   * `total`, `recipients`, `fanout`, `rsaBits`, `inbox`, `workers`,
   * `parallelImpl`, `logLevel`, `crash` and `axes`, an absent one counting as
   * its default.
   */
  readonly paramDifferences: readonly ParamDifference[];
  /** The machines' speeds. */
  readonly calibration: CalibrationComparison;
  /** Every configuration id of either file: the old file's order, then new ones. */
  readonly rows: readonly ComparisonRow[];
  /**
   * This project's commit each file was measured at (`environment.commit`):
   * `null` when not read, `undefined` in a file from before it was recorded.
   */
  readonly commits: {
    readonly old: Commit | null | undefined;
    readonly new: Commit | null | undefined;
  };
}

/**
 * The rates that can normalise the compared figures, the first that both
 * files recorded: RSA-2048 signatures on every core, then on one thread.  A
 * delivery costs the sender 2–3.5 ms of CPU, most of it the signature, while
 * a loopback POST costs about a tenth of a millisecond; and a row uses both
 * cores (sender, inbox, worker, server), so a busy host slows it about as it
 * slows signing on every core, while one thread barely notices (the
 * experiment of results/calibration-check: total time +49.6 % with a CPU
 * competitor; divided by the one-thread rate +46 %, by the all-cores rate
 * +14 %).
 */
export const NORMALIZING_RATES: readonly CalibrationRate[] = [
  "rsaSignsPerSecondAllCores",
  "rsaSignsPerSecond",
];

/** The compared figures, all normalised by the comparison's rate. */
const FIGURES: readonly {
  readonly figure: ComparedFigure;
  readonly higherIsBetter: boolean;
  readonly value: (r: ConfigurationResult) => number | null;
}[] = [
  {
    figure: "receiveSeconds",
    higherIsBetter: false,
    value: (r) => r.receiveSeconds,
  },
  {
    figure: "deliveriesPerSecond",
    higherIsBetter: true,
    value: (r) => r.deliveriesPerSecond,
  },
  {
    figure: "latencyP99Ms",
    higherIsBetter: false,
    value: (r) => r.latencyMs?.p99 ?? null,
  },
];

type FigureSpec = typeof FIGURES[number];

const SEVERITY: Readonly<Record<Status, number>> = {
  ok: 0,
  skipped: 1,
  incomplete: 2,
  failed: 3,
};

function rangeOf(
  result: ConfigurationResult,
  figure: ComparedFigure,
  value: number,
): FigureRange {
  const spread = result.spread?.[figure];
  return spread == null ? { value, min: value, max: value } : {
    value,
    min: Math.min(spread.min, value),
    max: Math.max(spread.max, value),
  };
}

/** Runs behind a configuration's figures: its `runs`, else the suite's. */
function runsOf(result: ConfigurationResult, document: ResultsDocument) {
  return result.runs?.length ?? document.params.runs ?? 1;
}

function judge(
  old: FigureRange,
  now: FigureRange,
  runs: number,
  higherIsBetter: boolean,
): Verdict {
  if (runs < MIN_RUNS) return "too few runs";
  if (old.min <= now.max && now.min <= old.max) return "noise";
  return (now.min > old.max) === higherIsBetter ? "better" : "worse";
}

function percentOf(old: number, now: number): number | null {
  return old === 0 ? null : 100 * (now - old) / old;
}

/** `range` at the old machine's speed, `scale` being new ÷ old RSA rate. */
function normalize(
  range: FigureRange,
  scale: number,
  spec: FigureSpec,
): FigureRange {
  const f = (v: number) => spec.higherIsBetter ? v / scale : v * scale;
  return { value: f(range.value), min: f(range.min), max: f(range.max) };
}

function compareFigure(
  old: ConfigurationResult,
  now: ConfigurationResult,
  runs: { old: number; new: number },
  scale: number | null,
  spec: FigureSpec,
): FigureChange {
  const oldValue = spec.value(old);
  const newValue = spec.value(now);
  const base = {
    figure: spec.figure,
    old: oldValue,
    new: newValue,
    oldRuns: runs.old,
    newRuns: runs.new,
  };
  if (oldValue == null || newValue == null) {
    return {
      ...base,
      oldRange: oldValue == null ? null : rangeOf(old, spec.figure, oldValue),
      newRange: newValue == null ? null : rangeOf(now, spec.figure, newValue),
      delta: null,
      percent: null,
      raw: null,
      normalized: null,
      verdict: null,
    };
  }
  const oldRange = rangeOf(old, spec.figure, oldValue);
  const newRange = rangeOf(now, spec.figure, newValue);
  const fewest = Math.min(runs.old, runs.new);
  const raw = judge(oldRange, newRange, fewest, spec.higherIsBetter);
  let normalized: NormalizedChange | null = null;
  if (scale != null) {
    const scaled = normalize(newRange, scale, spec);
    normalized = {
      new: scaled,
      percent: percentOf(oldValue, scaled.value),
      verdict: judge(oldRange, scaled, fewest, spec.higherIsBetter),
    };
  }
  return {
    ...base,
    oldRange,
    newRange,
    delta: newValue - oldValue,
    percent: percentOf(oldValue, newValue),
    raw,
    normalized,
    verdict: normalized == null || normalized.verdict === raw ? raw : "unclear",
  };
}

function byId(
  document: ResultsDocument,
): Map<string, ConfigurationResult> {
  const map = new Map<string, ConfigurationResult>();
  for (const result of document.results) {
    if (!map.has(result.id)) map.set(result.id, result);
  }
  return map;
}

function compareCalibrations(
  oldDoc: ResultsDocument,
  newDoc: ResultsDocument,
): CalibrationComparison {
  const old = readCalibration(oldDoc.environment);
  const now = readCalibration(newDoc.environment);
  const drifted = (c: typeof old) =>
    (c == null ? null : driftOf(c))?.filter((s) => s.beyondNoise) ?? [];
  const drift = { old: drifted(old), new: drifted(now) };
  const noisy = {
    old: old == null ? [] : noisyRates(old),
    new: now == null ? [] : noisyRates(now),
  };
  if (old == null || now == null) {
    const unknownIn: ("old" | "new")[] = [];
    if (old == null) unknownIn.push("old");
    if (now == null) unknownIn.push("new");
    return {
      unknownIn,
      shifts: null,
      normalizingRate: null,
      scale: null,
      drift,
      noisy,
    };
  }
  const shifts = shiftBetween(old, now);
  const allCores = [old, now].map((c) =>
    recordedSuiteRate(c, "rsaSignsPerSecondAllCores")
  );
  if (allCores[0] != null && allCores[1] != null) {
    shifts.splice(
      1,
      0,
      shiftOf("rsaSignsPerSecondAllCores", allCores[0], allCores[1]),
    );
  }
  const basis = NORMALIZING_RATES
    .map((rate) => shifts.find((s) => s.rate === rate))
    .find((s) => s != null)!;
  return {
    unknownIn: [],
    shifts,
    normalizingRate: basis.rate,
    scale: basis.beyondNoise ? basis.ratio : null,
    drift,
    noisy,
  };
}

/** Compares two results files configuration by configuration. */
export function compareResults(
  oldDoc: ResultsDocument,
  newDoc: ResultsDocument,
): Comparison {
  const paramDifferences: ParamDifference[] = measurementDifferences(
    BENCH,
    oldDoc.params,
    newDoc.params,
  ) as ParamDifference[];
  const calibration = compareCalibrations(oldDoc, newDoc);
  const olds = byId(oldDoc);
  const news = byId(newDoc);
  const ids = [...new Set([...olds.keys(), ...news.keys()])];
  const rows = ids.map((id): ComparisonRow => {
    const old = olds.get(id);
    const now = news.get(id);
    if (old == null || now == null) {
      return {
        id,
        presence: old == null ? "only in new" : "only in old",
        oldStatus: old?.status ?? null,
        newStatus: now?.status ?? null,
        statusVerdict: null,
        changes: [],
      };
    }
    const bothOk = old.status === "ok" && now.status === "ok";
    const step = SEVERITY[now.status] - SEVERITY[old.status];
    const runs = { old: runsOf(old, oldDoc), new: runsOf(now, newDoc) };
    const limits = {
      old: old.limitedBy?.resource,
      new: now.limitedBy?.resource,
    };
    return {
      id,
      presence: "both",
      oldStatus: old.status,
      newStatus: now.status,
      statusVerdict: step < 0 ? "better" : step > 0 ? "worse" : null,
      ...(limits.old != null && limits.new != null && limits.old !== limits.new
        ? { limitChange: { old: limits.old, new: limits.new } }
        : {}),
      changes: bothOk
        ? FIGURES.map((spec) =>
          compareFigure(old, now, runs, calibration.scale, spec)
        )
        : [],
    };
  });
  return {
    paramDifferences,
    calibration,
    rows,
    commits: {
      old: oldDoc.environment?.commit,
      new: newDoc.environment?.commit,
    },
  };
}

/** Whether a larger value of `figure` is the better one (a rate). */
export function higherIsBetter(figure: ComparedFigure): boolean {
  return FIGURES.find((f) => f.figure === figure)!.higherIsBetter;
}
