/**
 * Checks the estimator and the stop rule against recorded timelines: cuts
 * each finished row of a results file at a share of its deliveries, where
 * the default's stop rule could first judge it, and where the default's
 * time limit would stop it, estimates its total from what came before the
 * cut, and compares with the total it measured (the back-test), and does
 * the same for rows the time limit cut off, against how far they got; and
 * replays the stop rule over a suite's timelines to say how long that suite
 * would have taken under a given time limit (the simulation behind the
 * default's limit).  Pure: `deno task backtest` (`lib/cli/backtest.ts`)
 * reads the files and prints.
 *
 * @module
 */
import {
  type DeliveryPoint,
  estimateTo,
  estimateTotal,
  type FanoutProgress,
  FASTEST_REST,
  type TotalEstimate,
} from "../measure/estimate.ts";
import type {
  ConfigurationResult,
  ResultsDocument,
  RunResult,
} from "../results/mod.ts";
import { judgedAt, type RunLimits, StopRule } from "../run/budget.ts";
import { DEFAULT_TIMEOUT_SECONDS } from "../params/mod.ts";
import {
  type BacklogQueue,
  dequeueMsPerQueued,
} from "../measure/backlog_cost.ts";

/**
 * The limits a default run holds every row to, whatever the recorded
 * file's own: no budget, and the default time limit.
 */
export function defaultLimitsOf(_document?: ResultsDocument): RunLimits {
  return { budgetSeconds: null, timeoutSeconds: DEFAULT_TIMEOUT_SECONDS };
}

/** The shares of its deliveries at which a finished row is cut. */
export const CUTS: readonly number[] = [0.25, 0.5];

/** One cut of one recorded row. */
export interface BackTestCase {
  /** Where the row came from, e.g. `results/latest.json`. */
  readonly file: string;
  /** The row's id. */
  readonly id: string;
  /**
   * Where the row was cut: a share of its deliveries (`0.25`); `"judged"`,
   * where the default's stop rule could first judge it (its send loop over,
   * its queue filled, its rate settled over long enough: the earliest the
   * default stops a row); or `"stop"`, where the default's time limit
   * stops it.
   */
  readonly cut: number | "judged" | "stop";
  /** Seconds from the start at the cut. */
  readonly atSeconds: number;
  /** Deliveries the estimate aims at. */
  readonly target: number;
  /** Seconds the row took to make {@link target} deliveries, measured. */
  readonly actualSeconds: number;
  /** The estimate at the cut. */
  readonly estimate: TotalEstimate;
  /** `estimate / actual − 1`. */
  readonly error: number;
  /** Whether the actual time lies within the estimate's bounds. */
  readonly withinBounds: boolean;
}

/** The cumulative deliveries of a run's timeline as estimator points. */
export function timelinePoints(run: RunResult): DeliveryPoint[] {
  return (run.timeline?.cumulative ?? []).map(([t, n]) => [t, n]);
}

/** The queue packages a results file records (`environment.packages`). */
export type RecordedPackages = Readonly<Record<string, string>>;

/**
 * The built-in drivers whose dequeue read its whole backlog, with the queue
 * package they ran and the version a driver pinned, for files written
 * before rows recorded their own `dequeueMsPerQueued`: what the drivers
 * were when those files were written, kept as data.  The registry's
 * `Driver.dequeueMsPerQueued` cannot stand in for it: it says what a driver
 * does now (for one that follows `FEDIFY_SOURCE`, with this process's
 * tree), and loading the registry loads every client package, more than
 * `deno task backtest`'s read-only permission allows.  The ablations whose
 * dequeue does not read its backlog (`redis-limit1`, `postgres-indexed`)
 * are not listed.
 */
export const RECORDED_BACKLOG_DRIVERS: ReadonlyMap<
  string,
  { readonly queue: BacklogQueue; readonly version?: string }
> = new Map([
  ["redis", { queue: "redis" }],
  ["redis-1.8.7", { queue: "redis", version: "1.8.7" }],
  ["redis-rdb", { queue: "redis" }],
  ["redis-aof", { queue: "redis" }],
  ["postgres", { queue: "postgres" }],
  ["postgres-1.8.7", { queue: "postgres", version: "1.8.7" }],
]);

/**
 * What a recorded row's dequeue cost per message waiting, ms, when it read
 * its whole backlog (`EstimateInput.dequeueMsPerQueued`): the row's own
 * `dequeueMsPerQueued`, or, in files written before that field, its
 * driver's ({@link RECORDED_BACKLOG_DRIVERS}) at the version that ran (the
 * driver's pinned one, else the row's `implementation`, else the file's
 * `packages`): Redis's queue in any persistence mode, and PostgreSQL's at
 * 1.8.7.
 */
export function dequeueCostOf(
  row: RunResult & { readonly driver: string },
  packages: RecordedPackages = {},
): number | undefined {
  if (row.dequeueMsPerQueued != null) return row.dequeueMsPerQueued;
  const recorded = RECORDED_BACKLOG_DRIVERS.get(row.driver);
  if (recorded == null) return undefined;
  const { queue } = recorded;
  const version = recorded.version ?? row.implementation?.version ??
    packages[`@fedify/${queue}`];
  return dequeueMsPerQueued(queue, version) ?? undefined;
}

/**
 * When a recorded row's queue held all it would hold, seconds from the
 * start: the first time its recorded queue depth (`timeline.queueDepth`)
 * reached its peak, as it only falls once every activity's fanout is
 * handled; `undefined` without a depth series, or when the depth never
 * fell below {@link DRAINED_BELOW} of its peak afterwards (a row cut off
 * while its queue still filled, its depth wavering near the top).
 */
export function filledAtOf(row: RunResult): number | undefined {
  const depth = row.timeline?.queueDepth ?? [];
  if (depth.length < 2) return undefined;
  let peak = 0;
  for (let i = 1; i < depth.length; i++) {
    if (depth[i][1] > depth[peak][1]) peak = i;
  }
  const drained = depth.slice(peak + 1).some(([, n]) =>
    n <= DRAINED_BELOW * depth[peak][1]
  );
  return drained ? Math.max(0, depth[peak][0]) : undefined;
}

/**
 * A recorded queue has filled once its depth falls to this share of its
 * peak (see {@link filledAtOf}).
 */
export const DRAINED_BELOW = 0.9;

/**
 * What the estimator knew of a recorded row's filling at `seconds`: when
 * its queue filled, if by then; `null` if it still filled then; and
 * `undefined` when the recording does not say.  A row that recorded when
 * its queue filled (`filledAtSeconds`, from the fanout count the live watch
 * went by) is taken at its word.  In older files, a row cut off before its
 * queue filled ({@link filledAtOf} is `undefined`) still filled at
 * `seconds` when its depth later rose above its depth then by more than
 * {@link DRAINED_BELOW} leaves of its peak: only enqueues raise a depth,
 * and once the send loop is over only the fanout enqueues.  The live
 * watch knows this from the fanout count and holds such a row until its
 * budget; without it the replay would judge the row on a rate it never
 * settled into and stop it early.
 */
export function filledAtAt(
  row: RunResult,
  seconds: number,
): number | null | undefined {
  const filledAt = row.filledAtSeconds !== undefined
    ? row.filledAtSeconds
    : filledAtOf(row);
  if (filledAt === null) return null;
  if (filledAt !== undefined) return filledAt <= seconds ? filledAt : null;
  const depth = row.timeline?.queueDepth ?? [];
  if (depth.length < 2) return undefined;
  let then = 0;
  let later = 0;
  let peak = 0;
  for (const [t, n] of depth) {
    if (t <= seconds) then = n;
    else later = Math.max(later, n);
    peak = Math.max(peak, n);
  }
  return later - then > (1 - DRAINED_BELOW) * peak ? null : undefined;
}

/** Whether a row is a burst: no steady load, search, idle or crash test. */
export function isBurst(row: RunResult): boolean {
  return row.timeline != null && row.load == null && row.maxRate == null &&
    row.idle == null && (row.crashes == null || row.crashes.length === 0) &&
    (row.gone ?? 0) === 0;
}

/**
 * Whether a row is a burst that finished, with a timeline worth cutting:
 * at least `minDeliveries` deliveries over at least `minSeconds`.
 */
export function backTestable(
  row: RunResult,
  minDeliveries = 1_000,
  minSeconds = 20,
): boolean {
  return isBurst(row) && row.status === "ok" && row.totalSeconds != null &&
    row.totalSeconds >= minSeconds && row.delivered >= minDeliveries;
}

/**
 * The part of a recorded row's delivery time that does not grow with its
 * backlog, ms (`EstimateInput.fixedMsPerDelivery`): its outbox handler's
 * mean time over the run ÷ its parallelism, from its stages; `undefined`
 * without them.  The live watch has the mean so far instead.
 */
export function fixedMsOf(
  row: RunResult & { readonly parallelism: number },
): number | undefined {
  const outbox = row.stages?.byStage.outbox;
  return outbox == null ? undefined : outbox.meanMs / row.parallelism;
}

/**
 * The fanout messages a recorded row had handled over time
 * (`EstimateInput.fanouts`), from its recorded queue depth
 * (`timeline.queueDepth`) and deliveries: with `activities` activities, each
 * enqueuing k outbox messages (the row's expected deliveries ÷ its
 * activities), its depth once the send loop is over is (activities − F) +
 * k × F − delivered, so F = (depth + delivered − activities) ÷ (k − 1),
 * kept from falling.  `undefined` without a depth series or activities.
 * The live watch counts them from the fanout stage instead; here the
 * deliveries come from the timeline's buckets, so F can be off by a
 * bucket's deliveries ÷ (k − 1).
 */
export function recordedFanouts(
  row: ConfigurationResult,
  activities: number | undefined,
): FanoutProgress | undefined {
  const depth = row.timeline?.queueDepth ?? [];
  if (activities == null || activities <= 0 || depth.length < 2) {
    return undefined;
  }
  const perFanout = row.expected / activities;
  if (perFanout <= 1) return undefined;
  const cumulative = timelinePoints(row);
  const points: [number, number][] = [];
  let i = 0;
  let delivered = 0;
  let last = 0;
  for (const [t, waiting] of depth) {
    if (row.sendSeconds != null && t < row.sendSeconds) continue;
    while (i < cumulative.length && cumulative[i][0] <= t) {
      delivered = cumulative[i++][1];
    }
    const fanned = Math.min(
      activities,
      Math.max(
        0,
        Math.round((waiting + delivered - activities) / (perFanout - 1)),
      ),
    );
    if (fanned > last) {
      points.push([t, fanned]);
      last = fanned;
    }
  }
  return { points, total: activities, perFanout };
}

/**
 * The estimate a recorded row's watch would have made at `seconds` of the
 * time to `target` deliveries, from what it recorded (with `activities`,
 * the fanout messages it handled while its queue filled:
 * {@link recordedFanouts}).
 */
function estimateAt(
  row: ConfigurationResult,
  points: readonly DeliveryPoint[],
  seconds: number,
  target: number,
  packages: RecordedPackages,
  activities?: number,
): TotalEstimate | null {
  const fixedMs = fixedMsOf(row);
  const filledAt = filledAtAt(row, seconds);
  const fanouts = filledAt === null
    ? recordedFanouts(row, activities)
    : undefined;
  return estimateTotal({
    points,
    nowSeconds: seconds,
    expected: target,
    dequeueMsPerQueued: dequeueCostOf(row, packages),
    filledAtSeconds: filledAt,
    ...(fixedMs == null ? {} : { fixedMsPerDelivery: fixedMs }),
    ...(fanouts == null ? {} : { fanouts }),
  });
}

/**
 * One case: the estimate at `atSeconds` of the time to `target` (all the
 * row expects, or fewer: {@link estimateTo}).
 */
function testCase(
  file: string,
  row: ConfigurationResult,
  cut: BackTestCase["cut"],
  atSeconds: number,
  target: number,
  actualSeconds: number,
  packages: RecordedPackages,
  activities?: number,
): BackTestCase | null {
  // The estimate of the whole run, then when it says the target comes: a
  // backlog queue's backlog holds every delivery still to come.
  const whole = estimateAt(
    row,
    timelinePoints(row),
    atSeconds,
    row.expected,
    packages,
    activities,
  );
  if (whole == null) return null;
  const to = estimateTo(whole, atSeconds, target);
  if (to == null) return null;
  const estimate: TotalEstimate = { ...whole, ...to };
  return {
    file,
    id: row.id,
    cut,
    atSeconds,
    target,
    actualSeconds,
    estimate,
    error: estimate.totalSeconds / actualSeconds - 1,
    withinBounds: estimate.lowSeconds <= actualSeconds &&
      actualSeconds <= estimate.highSeconds,
  };
}

/**
 * The back-test cases of one results file's finished burst rows: each cut
 * at the shares `cuts` of its deliveries, and where the stop rule under
 * `limits` would stop it (when it would), against its measured total.
 * The stop is replayed only where the row recorded when its queue filled
 * or its queue depth: the live rule holds a row whose queue still fills,
 * and without either the recording cannot say whether it did.
 * `packages` are the file's `environment.packages`, `activities` its
 * activities a row (`params.total`: {@link recordedFanouts}).
 */
export function backTest(
  file: string,
  rows: readonly ConfigurationResult[],
  limits?: RunLimits,
  cuts: readonly number[] = CUTS,
  packages: RecordedPackages = {},
  activities?: number,
): BackTestCase[] {
  const cases: BackTestCase[] = [];
  for (const row of rows) {
    if (!backTestable(row)) continue;
    const points = timelinePoints(row);
    const actual = row.totalSeconds!;
    for (const cut of cuts) {
      const at = points.find(([, n]) => n >= cut * row.expected);
      if (at == null || at[1] >= row.expected) continue;
      const c = testCase(
        file,
        row,
        cut,
        at[0],
        row.expected,
        actual,
        packages,
        activities,
      );
      if (c != null) cases.push(c);
    }
    // The live rule holds a row whose queue still fills; a recording with
    // neither its fill time nor a queue depth cannot say whether it did, so
    // neither its first judgement nor its stop is replayed.
    const saysFill = row.filledAtSeconds !== undefined ||
      (row.timeline?.queueDepth?.length ?? 0) >= 2 || !fansOut(row);
    if (!saysFill) continue;
    const judged = firstJudged(row, packages, activities);
    if (judged != null && judged < actual) {
      const c = testCase(
        file,
        row,
        "judged",
        judged,
        row.expected,
        actual,
        packages,
        activities,
      );
      if (c != null) cases.push(c);
    }
    if (limits == null) continue;
    const stop = simulateRow(row, limits, packages, activities);
    if (stop.finished) continue;
    const c = testCase(
      file,
      row,
      "stop",
      stop.seconds,
      row.expected,
      actual,
      packages,
      activities,
    );
    if (c != null) cases.push(c);
  }
  return cases;
}

/**
 * Whether a recorded row's activities may have gone through fanout
 * messages, whose handling fills its queue: not without a queue (`none`,
 * the baseline) nor with `fanout: "skip"`.
 */
function fansOut(row: ConfigurationResult): boolean {
  return row.driver !== "none" && row.driver !== "baseline" &&
    row.fanout !== "skip";
}

/**
 * The first of a recorded row's timeline times at which the default's
 * stop rule could judge it (`judgedAt` of `budget.ts`): its recorded send
 * loop over, its queue filled, its rate settled over a long enough window;
 * `null` when it never could before its end.
 */
export function firstJudged(
  row: ConfigurationResult,
  packages: RecordedPackages = {},
  activities?: number,
): number | null {
  const points = timelinePoints(row);
  for (const [t] of points) {
    const estimate = estimateAt(
      row,
      points,
      t,
      row.expected,
      packages,
      activities,
    );
    const sendDone = row.sendSeconds == null || t >= row.sendSeconds;
    if (sendDone && judgedAt(t, estimate, DEFAULT_TIMEOUT_SECONDS)) return t;
  }
  return null;
}

/**
 * The back-test of rows the time limit cut off, which never finished: each
 * cut at the shares `cuts` of the deliveries it made, and its estimate of
 * when it would make them all against when it did (its last delivery).
 * These rows are the queues whose rate changes as their backlog does.
 */
export function projectionTest(
  file: string,
  rows: readonly ConfigurationResult[],
  cuts: readonly number[] = CUTS,
  packages: RecordedPackages = {},
  activities?: number,
): BackTestCase[] {
  const cases: BackTestCase[] = [];
  for (const row of rows) {
    if (!isBurst(row) || row.status !== "incomplete") continue;
    if (!/^timed out/.test(row.reason ?? "")) continue;
    const points = timelinePoints(row);
    const final = points.at(-1)?.[1] ?? 0;
    if (final < 1_000) continue;
    const reached = points.find(([, n]) => n >= final)![0];
    const actual = Math.min(reached, row.elapsedSeconds ?? reached);
    for (const cut of cuts) {
      const at = points.find(([, n]) => n >= cut * final);
      if (at == null || at[1] >= final) continue;
      const c = testCase(
        file,
        row,
        cut,
        at[0],
        final,
        actual,
        packages,
        activities,
      );
      if (c != null) cases.push(c);
    }
  }
  return cases;
}

/**
 * The targets the estimate's bounds are held to where the default judges a
 * row (its first judgement and its stop).
 */
export const BOUNDS_TARGETS = {
  /** At least this share of actual totals within their bounds. */
  coverage: 0.8,
  /** The median |estimate ÷ actual − 1| at most this. */
  medianAbsError: 0.15,
  /** Every estimate's (high − low) ÷ estimate at most this. */
  maxWidth: 0.6,
  /** Cases from at least this many rows … */
  rows: 15,
  /** … of at least this many queues. */
  queues: 5,
  /**
   * No actual rest shorter than this share of its estimated rest: the
   * stop rule's {@link FASTEST_REST}, which must be no faster than any
   * rest seen.
   */
  fastestRest: FASTEST_REST,
} as const;

/** How a set of back-test cases meets {@link BOUNDS_TARGETS}. */
export interface BoundsCheck {
  /** Cases. */
  readonly cases: number;
  /** Distinct rows (file and id) among them. */
  readonly rows: number;
  /** Distinct queues (the row's driver) among them. */
  readonly queues: number;
  /** The share of actual totals within their bounds. */
  readonly coverage: number;
  /** The median |error|. */
  readonly medianAbsError: number;
  /** The widest (high − low) ÷ estimate. */
  readonly maxWidth: number;
  /**
   * The actual rest ÷ the estimated rest (the time after the cut), sorted:
   * the evidence the estimate's bounds (`REST_LOW`, `REST_HIGH`) rest on.
   */
  readonly restRatios: readonly number[];
  /** Whether every target is met. */
  readonly met: boolean;
}

/** Checks `cases` (with their rows' drivers) against the targets. */
export function checkBounds(
  cases: readonly (BackTestCase & { readonly driver: string })[],
): BoundsCheck {
  const coverage = cases.length === 0
    ? 0
    : cases.filter((c) => c.withinBounds).length / cases.length;
  const medianAbsError = median(cases.map((c) => Math.abs(c.error)));
  const maxWidth = Math.max(
    0,
    ...cases.map((c) =>
      (c.estimate.highSeconds - c.estimate.lowSeconds) /
      c.estimate.totalSeconds
    ),
  );
  const restRatios = cases
    .filter((c) => c.estimate.totalSeconds > c.atSeconds)
    .map((c) =>
      (c.actualSeconds - c.atSeconds) / (c.estimate.totalSeconds - c.atSeconds)
    )
    .sort((a, b) => a - b);
  const rows = new Set(cases.map((c) => `${c.file}\n${c.id}`)).size;
  const queues = new Set(cases.map((c) => c.driver)).size;
  const t = BOUNDS_TARGETS;
  return {
    cases: cases.length,
    rows,
    queues,
    coverage,
    medianAbsError,
    maxWidth,
    restRatios,
    met: coverage >= t.coverage && medianAbsError <= t.medianAbsError &&
      maxWidth <= t.maxWidth + 1e-9 && rows >= t.rows && queues >= t.queues &&
      (restRatios.length === 0 || restRatios[0] >= t.fastestRest - 1e-9),
  };
}

/** The median of some numbers; `NaN` when there are none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? sorted[mid]
    : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** How one row would have gone under some limits. */
export interface SimulatedRow {
  /** The row's id. */
  readonly id: string;
  /** Seconds the row would have run (start to stop or last delivery). */
  readonly seconds: number;
  /** Whether it would have finished. */
  readonly finished: boolean;
  /** The stop's reason, when it would have been stopped. */
  readonly reason: string | null;
  /**
   * For a row the rule does not stop before its recording ends (a row
   * stopped or cut off in the recording, that the replay cannot judge
   * within what was recorded): the estimate today's estimator makes from
   * all it recorded, at its end, whether settled or not.
   */
  readonly atRecordedEnd?: TotalEstimate | null;
  /** For a row the rule stops: the estimate it stopped the row on. */
  readonly estimate?: TotalEstimate | null;
}

/** A suite replayed under some limits. */
export interface SimulatedSuite {
  /** Each row. */
  readonly rows: readonly SimulatedRow[];
  /** Seconds per row besides its measured time (start-up, teardown, …). */
  readonly overheadSeconds: number;
  /** The suite's simulated wall time, overhead included. */
  readonly totalSeconds: number;
}

/**
 * Replays the stop rule over one recorded row, deciding at each of its
 * timeline's bucket ends (and at the limits) as the watch would at its
 * polls, judging it early only once its recorded send loop was over: the
 * row finishes at its measured total unless the rule stops it
 * first.  A row that did not finish in the recording stops where it was
 * cut at the latest.
 */
export function simulateRow(
  row: ConfigurationResult,
  limits: RunLimits,
  packages: RecordedPackages = {},
  activities?: number,
): SimulatedRow {
  const points = timelinePoints(row);
  const finishAt = row.status === "ok" ? row.totalSeconds : null;
  const recordedEnd = row.elapsedSeconds ?? Infinity;
  const times = [
    ...new Set([
      ...points.map(([t]) => t),
      ...(limits.budgetSeconds == null ? [] : [limits.budgetSeconds]),
      limits.timeoutSeconds,
    ]),
  ].sort((a, b) => a - b);
  const rule = new StopRule(limits);
  for (const t of times) {
    if (finishAt != null && t >= finishAt) {
      return { id: row.id, seconds: finishAt, finished: true, reason: null };
    }
    if (t > recordedEnd) break;
    const estimate = estimateAt(
      row,
      points,
      t,
      row.expected,
      packages,
      activities,
    );
    const sendDone = row.sendSeconds == null || t >= row.sendSeconds;
    const stop = rule.decide(t, estimate, sendDone);
    if (stop != null) {
      return {
        id: row.id,
        seconds: t,
        finished: false,
        reason: stop.reason,
        estimate,
      };
    }
  }
  return finishAt != null
    ? { id: row.id, seconds: finishAt, finished: true, reason: null }
    : {
      id: row.id,
      seconds: Math.min(recordedEnd, limits.timeoutSeconds),
      finished: false,
      reason: "cut where the recording ends",
      atRecordedEnd: Number.isFinite(recordedEnd)
        ? estimateAt(
          row,
          points,
          recordedEnd,
          row.expected,
          packages,
          activities,
        )
        : null,
    };
}

/**
 * Seconds per row that a suite spent besides its rows' measured times:
 * its wall time minus the sum of their elapsed times, over the rows.
 */
export function overheadPerRow(document: ResultsDocument): number {
  const { startedAt, finishedAt, results } = document;
  if (finishedAt == null || results.length === 0) return 0;
  const wall = (Date.parse(finishedAt) - Date.parse(startedAt)) / 1000;
  let measured = 0;
  for (const row of results) {
    for (const run of row.runs ?? [row]) measured += run.elapsedSeconds ?? 0;
  }
  return Math.max(0, (wall - measured) / results.length);
}

/**
 * How long a recorded suite would have taken under `limits`, leaving out
 * the rows `skip` names.
 */
export function simulateSuite(
  document: ResultsDocument,
  limits: RunLimits,
  skip: readonly string[] = [],
): SimulatedSuite {
  const overheadSeconds = overheadPerRow(document);
  const rows = document.results
    .filter((row) => !skip.includes(row.id))
    .map((row) =>
      simulateRow(
        row,
        limits,
        document.environment?.packages,
        document.params.total,
      )
    );
  const totalSeconds = rows.reduce(
    (sum, row) => sum + row.seconds + overheadSeconds,
    0,
  );
  return { rows, overheadSeconds, totalSeconds };
}
