/**
 * Statistics over repeated runs of a configuration and over samples:
 * medians, spreads, nearest-rank quantiles, outlier detection, and
 * {@link aggregateRuns}, which folds the runs into one
 * {@link ConfigurationResult}.
 *
 * @module
 */
import type {
  ConfigurationResult,
  Outlier,
  Percentiles,
  RunResult,
  Spread,
  Status,
} from "../results/mod.ts";

/** `value` rounded to `digits` decimal places. */
export function roundTo(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/**
 * The median; the mean of the two middle values for an even count.
 * @throws {RangeError} If `values` is empty.
 */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError("median of no values");
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? sorted[middle]
    : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * The smallest and largest value.
 * @throws {RangeError} If `values` is empty.
 */
export function spreadOf(values: readonly number[]): Spread {
  if (values.length === 0) throw new RangeError("spread of no values");
  let min = values[0];
  let max = values[0];
  for (const value of values) {
    if (value < min) min = value;
    if (value > max) max = value;
  }
  return { min, max };
}

/**
 * The `q`-quantile of values sorted ascending, by nearest rank: the
 * smallest value with at least a share `q` of the values at or below it
 * (`q` = 0.5 of 200 values is the 100th, not a mean of two).
 * @throws {RangeError} If `sorted` is empty.
 */
export function nearestRank(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new RangeError("quantile of no values");
  return sorted[
    Math.max(0, Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1))
  ];
}

/** Modified Z-score above which a value is an outlier (Iglewicz–Hoaglin). */
const MODIFIED_Z_LIMIT = 3.5;
/** Relative deviation from the median that counts when the MAD is 0. */
const RELATIVE_LIMIT = 0.25;

/**
 * The indices of the values that deviate strongly from the others: a
 * modified Z-score `|0.6745 · (x − median) / MAD|` above 3.5, or, when the
 * median absolute deviation is 0, a deviation from the median of more than
 * 25% of it.  Fewer than three values have no outliers.
 */
export function findOutliers(values: readonly number[]): number[] {
  if (values.length < 3) return [];
  const center = median(values);
  const mad = median(values.map((value) => Math.abs(value - center)));
  const indices: number[] = [];
  values.forEach((value, index) => {
    const deviation = Math.abs(value - center);
    const outlying = mad > 0
      ? 0.6745 * deviation / mad > MODIFIED_Z_LIMIT
      : deviation > RELATIVE_LIMIT * Math.abs(center);
    if (outlying) indices.push(index);
  });
  return indices;
}

const SEVERITY: Readonly<Record<Status, number>> = {
  ok: 0,
  skipped: 1,
  incomplete: 2,
  failed: 3,
};

/** The numeric timing figures of a run that are aggregated as medians. */
const TIMING_FIGURES = [
  "sendSeconds",
  "receiveSeconds",
  "totalSeconds",
  "deliveriesPerSecond",
  "elapsedSeconds",
  "cpuMsPerDelivery",
  "serverCpuMsPerDelivery",
] as const;

type TimingFigure = typeof TIMING_FIGURES[number];

/** The figures checked for outlying runs. */
const OUTLIER_FIGURES = [
  "totalSeconds",
  "sendSeconds",
  "deliveriesPerSecond",
] as const;

const PERCENTILE_KEYS = ["p50", "p90", "p99", "p999", "max"] as const;

function figure(run: RunResult, name: TimingFigure): number | null {
  return run[name] ?? null;
}

function medianOrNull(values: readonly number[]): number | null {
  return values.length > 0 ? median(values) : null;
}

function medianFigure(
  runs: readonly RunResult[],
  name: TimingFigure,
): number | null {
  return medianOrNull(
    runs.map((run) => figure(run, name)).filter((v) => v != null),
  );
}

function medianCount(
  runs: readonly RunResult[],
  pick: (run: RunResult) => number,
): number {
  return Math.round(median(runs.map(pick)));
}

function medianPercentiles(
  all: readonly (Percentiles | null | undefined)[],
): Percentiles | null {
  const present = all.filter((p) => p != null);
  if (present.length === 0) return null;
  const at = (key: typeof PERCENTILE_KEYS[number]) =>
    median(present.map((p) => p[key]));
  return {
    p50: at("p50"),
    p90: at("p90"),
    p99: at("p99"),
    p999: at("p999"),
    max: at("max"),
  };
}

/** The run whose `totalSeconds` is the (lower) median; missing times last. */
function medianRun(runs: readonly RunResult[]): RunResult {
  const sorted = [...runs].sort((a, b) =>
    (a.totalSeconds ?? Infinity) - (b.totalSeconds ?? Infinity)
  );
  return sorted[(sorted.length - 1) >> 1];
}

/** The first run with the most severe status. */
function worstRun(runs: readonly RunResult[]): RunResult {
  return runs.reduce((worst, run) =>
    SEVERITY[run.status] > SEVERITY[worst.status] ? run : worst
  );
}

function spreads(runs: readonly RunResult[]): Record<string, Spread> {
  const ok = runs.filter((run) => run.status === "ok");
  const result: Record<string, Spread> = {};
  const add = (name: string, values: (number | null | undefined)[]) => {
    const present = values.filter((v) => v != null);
    if (present.length >= 2) result[name] = spreadOf(present);
  };
  for (const name of TIMING_FIGURES) {
    add(name, ok.map((run) => figure(run, name)));
  }
  add("latencyP99Ms", ok.map((run) => run.latencyMs?.p99));
  return result;
}

function outliers(runs: readonly RunResult[]): Outlier[] {
  const found: Outlier[] = [];
  for (const metric of OUTLIER_FIGURES) {
    const indexed = runs
      .map((run, index) => ({ index, run, value: figure(run, metric) }))
      .filter((e): e is { index: number; run: RunResult; value: number } =>
        e.run.status === "ok" && e.value != null
      );
    const values = indexed.map((e) => e.value);
    const flagged = findOutliers(values);
    if (flagged.length === 0) continue;
    const center = median(values);
    for (const i of flagged) {
      found.push({
        run: indexed[i].index,
        metric,
        value: indexed[i].value,
        median: center,
      });
    }
  }
  return found;
}

/**
 * The records a configuration of several runs takes from its representative
 * run, each only when that run has it, and its ordering with the
 * violations counted as `count` counts (the median over the runs).
 */
function representativeRecords(
  representative: RunResult,
  runs: readonly RunResult[],
  count: (pick: (run: RunResult) => number) => number,
): Partial<ConfigurationResult> {
  return {
    // The steady-load records of the representative run (each run has its
    // own in `runs`).
    ...(representative.senders == null
      ? {}
      : { senders: representative.senders }),
    ...(representative.callsPerSecond == null
      ? {}
      : { callsPerSecond: representative.callsPerSecond }),
    ...(representative.load == null ? {} : { load: representative.load }),
    ...(representative.idle == null ? {} : { idle: representative.idle }),
    ...(representative.estimate == null
      ? {}
      : { estimate: representative.estimate }),
    ...(representative.depth == null ? {} : { depth: representative.depth }),
    ...(representative.delayed == null
      ? {}
      : { delayed: representative.delayed }),
    ...(representative.maxRate == null
      ? {}
      : { maxRate: representative.maxRate }),
    // The runtime the app ran on (every run of a configuration has the
    // same), and the representative run's measure of its signing rate.
    ...(representative.runtime == null
      ? {}
      : { runtime: representative.runtime }),
    ...(representative.appSignRate == null
      ? {}
      : { appSignRate: representative.appSignRate }),
    // Where the app ran, and what the delay proxies carried in the
    // representative run (each run has its own in `runs`).
    ...(representative.deployment == null
      ? {}
      : { deployment: representative.deployment }),
    ...(representative.proxy == null ? {} : { proxy: representative.proxy }),
    ...(representative.roundTripsPerDelivery == null
      ? {}
      : { roundTripsPerDelivery: representative.roundTripsPerDelivery }),
    // The stages, the prediction and the limit of the representative run,
    // which they were measured in.
    ...(representative.stages == null ? {} : {
      stages: representative.stages,
      limitedBy: representative.limitedBy ?? null,
      predictedDeliveriesPerSecond:
        representative.predictedDeliveriesPerSecond ?? null,
      ...(representative.prediction == null
        ? {}
        : { prediction: representative.prediction }),
    }),
    // Violations are a count like duplicates: the median over the runs (the
    // worst run's when one failed); each run's own stays in `runs`.
    ...(representative.ordering == null ? {} : {
      ordering: {
        ...representative.ordering,
        violations: runs.some((run) => run.ordering?.violations == null)
          ? null
          : count((run) => run.ordering!.violations!),
      },
    }),
  };
}

/**
 * Folds the runs of one configuration into its result.
 *
 * - `status` is the worst over the runs (failed > incomplete > skipped > ok);
 *   `reason` the first non-null one, prefixed `run N:` when there are
 *   several runs.
 * - When every run is `ok`: counts are medians (rounded), timing figures are
 *   medians over the runs that have them, and `expected`, `timeline`,
 *   `processes`, `server`, `workers` and the time limits come from the run
 *   with the median `totalSeconds`.
 * - Otherwise, counts and those fields come from the first worst run, as do
 *   `sendSeconds`, `deliveriesPerSecond`, `elapsedSeconds` and
 *   `cpuMsPerDelivery`; `receiveSeconds` and `totalSeconds` are `null`.
 * - `latencyMs` and `sendCallMs` are per-percentile medians over the runs
 *   that have them.
 * - `spread` has the min and max of each timing figure and of
 *   `latencyP99Ms` over the `ok` runs, for figures at least two of them have;
 *   `outliers` lists `ok` runs whose `totalSeconds`, `sendSeconds` or
 *   `deliveriesPerSecond` {@link findOutliers} flags among the `ok` runs.
 *
 * A single run is returned as it is, with `runs: [run]`, `spread: {}` and
 * `outliers: []`.
 * @throws {RangeError} If `runs` is empty.
 */
export function aggregateRuns(
  id: string,
  driver: string,
  parallelism: number,
  runs: RunResult[],
): ConfigurationResult {
  if (runs.length === 0) {
    throw new RangeError(`no runs to aggregate for ${id}`);
  }
  if (runs.length === 1) {
    const [run] = runs;
    return {
      id,
      driver,
      parallelism,
      ...run,
      runs: [run],
      spread: {},
      outliers: [],
    };
  }
  const worst = worstRun(runs);
  const allOk = worst.status === "ok";
  const representative = allOk ? medianRun(runs) : worst;
  const firstReason = runs.findIndex((run) => run.reason != null);
  const count = (pick: (run: RunResult) => number): number =>
    allOk ? medianCount(runs, pick) : pick(worst);
  const timing = (name: TimingFigure): number | null =>
    allOk ? medianFigure(runs, name) : figure(worst, name);
  return {
    id,
    driver,
    parallelism,
    status: worst.status,
    reason: firstReason < 0
      ? null
      : `run ${firstReason + 1}: ${runs[firstReason].reason}`,
    expected: representative.expected,
    delivered: count((run) => run.delivered),
    duplicates: count((run) => run.duplicates),
    missing: count((run) => run.missing),
    unexpected: count((run) => run.unexpected),
    sendSeconds: timing("sendSeconds"),
    receiveSeconds: allOk ? timing("receiveSeconds") : null,
    totalSeconds: allOk ? timing("totalSeconds") : null,
    deliveriesPerSecond: timing("deliveriesPerSecond"),
    elapsedSeconds: timing("elapsedSeconds"),
    sendErrors: count((run) => run.sendErrors),
    workers: representative.workers,
    stallTimeoutSeconds: representative.stallTimeoutSeconds,
    timeoutSeconds: representative.timeoutSeconds,
    server: representative.server,
    processes: representative.processes,
    latencyMs: medianPercentiles(runs.map((run) => run.latencyMs)),
    sendCallMs: medianPercentiles(runs.map((run) => run.sendCallMs)),
    cpuMsPerDelivery: timing("cpuMsPerDelivery"),
    serverCpuMsPerDelivery: timing("serverCpuMsPerDelivery"),
    implementation: representative.implementation ?? null,
    timeline: representative.timeline ?? null,
    ...representativeRecords(representative, runs, count),
    runs: [...runs],
    spread: spreads(runs),
    outliers: outliers(runs),
  };
}

/**
 * The sum of some processes' readings, or `null` when there are none or one
 * could not be read.
 */
export function sumOrNull(
  values: readonly (number | null | undefined)[],
): number | null {
  if (values.length === 0) return null;
  let sum = 0;
  for (const value of values) {
    if (value == null) return null;
    sum += value;
  }
  return sum;
}

/**
 * CPU milliseconds per delivery of some processes, or `null` when there are
 * none, one could not be read, or nothing was delivered.
 */
export function cpuMsPerDelivery(
  cpuSeconds: readonly (number | null | undefined)[],
  delivered: number,
): number | null {
  const sum = sumOrNull(cpuSeconds);
  if (delivered <= 0 || sum == null) return null;
  return roundTo(sum * 1000 / delivered, 3);
}
