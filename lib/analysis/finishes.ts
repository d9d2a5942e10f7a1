/**
 * The rows a run stopped before their end, against longer runs of the same
 * configuration in other results files: each stopped row's estimate as its
 * run recorded it, and as the estimator now makes it where the default's
 * stop rule stops the recording (or, where the rule cannot judge it within
 * what was recorded, from all it recorded), against the total a run that
 * went to its end measured, or, where none did, against when the run that
 * got furthest made as many deliveries as it made.  The back-test of a row
 * cuts that row's own timeline; this checks the estimate of a row the
 * default never lets finish, which no timeline of its own can.  Pure:
 * `deno task backtest` (`lib/cli/backtest.ts`) reads the files and prints.
 *
 * @module
 */
import type { ConfigurationResult, ResultsDocument } from "../results/mod.ts";
import { estimateTo } from "../measure/estimate.ts";
import {
  defaultLimitsOf,
  isBurst,
  simulateRow,
  timelinePoints,
} from "./estimator_backtest.ts";

/** One estimate of a stopped row, against the finish's total. */
export interface EstimateAgainstFinish {
  /** Seconds from the start at which the estimate was made. */
  readonly atSeconds: number;
  /** The estimated total, seconds. */
  readonly totalSeconds: number;
  /** Its optimistic bound, seconds. */
  readonly lowSeconds: number;
  /** Its pessimistic bound, seconds. */
  readonly highSeconds: number;
  /** `totalSeconds / the finish's total − 1`. */
  readonly error: number;
  /** Whether the finish's total lies within the bounds. */
  readonly withinBounds: boolean;
}

/** A stopped row and a longer run of the same configuration. */
export interface StoppedAgainstFinish {
  /** The stopped row's results file. */
  readonly file: string;
  /** The row's id. */
  readonly id: string;
  /** Deliveries it made before it was stopped. */
  readonly delivered: number;
  /**
   * The deliveries the check is of: all the row expects, where the longer
   * run finished; else as many as the longer run had made at the last
   * point of its timeline before its end.
   */
  readonly target: number;
  /** Whether the longer run finished. */
  readonly finished: boolean;
  /**
   * Its estimate as its run recorded it, against a finish; `null` when it
   * recorded none, or the longer run did not finish (a recorded estimate
   * is of the whole run only).
   */
  readonly recorded: EstimateAgainstFinish | null;
  /**
   * When the estimator as it is now says the row reaches {@link target}
   * deliveries ({@link estimateTo}), from its recording where the default's
   * stop rule stops it or, when the rule cannot judge it within the
   * recording, at the recording's end; `null` when it can say none.
   */
  readonly now: EstimateAgainstFinish | null;
  /** The longer run's results file. */
  readonly finishFile: string;
  /** Seconds the longer run took to make {@link target} deliveries. */
  readonly actualSeconds: number;
}

/**
 * What makes two rows of different files the same configuration: the row
 * (id, driver, parallelism, fanout, key size, the queue's version, the
 * runtime) and the suite's size, workers, workload and inbox.
 */
export function configurationKey(
  document: ResultsDocument,
  row: ConfigurationResult,
): string {
  const { params } = document;
  return JSON.stringify([
    row.id,
    row.driver,
    row.parallelism,
    row.fanout ?? params.fanout,
    row.rsaBits ?? params.rsaBits,
    row.implementation?.version ?? null,
    row.runtime?.name ?? "deno",
    params.total,
    params.recipients,
    params.workers ?? 1,
    params.workload ?? "create",
    params.inbox ?? null,
  ]);
}

function against(
  estimate: {
    readonly totalSeconds: number;
    readonly lowSeconds: number;
    readonly highSeconds: number;
  },
  atSeconds: number,
  actual: number,
): EstimateAgainstFinish {
  return {
    atSeconds,
    totalSeconds: estimate.totalSeconds,
    lowSeconds: estimate.lowSeconds,
    highSeconds: estimate.highSeconds,
    error: estimate.totalSeconds / actual - 1,
    withinBounds: estimate.lowSeconds <= actual &&
      actual <= estimate.highSeconds,
  };
}

/** A run of a configuration that went further than a stopped one. */
interface Longer {
  readonly file: string;
  readonly finished: boolean;
  /** Deliveries it is judged by, and when it had made them. */
  readonly target: number;
  readonly seconds: number;
}

/**
 * How far a row went: a finish, all it expected by its total; else the
 * last point of its timeline before its end (a bucket's end, where its
 * count is exact), `null` without two.
 */
function reach(
  file: string,
  row: ConfigurationResult,
): Longer | null {
  if (row.status === "ok" && row.totalSeconds != null) {
    return {
      file,
      finished: true,
      target: row.expected,
      seconds: row.totalSeconds,
    };
  }
  if (row.status !== "incomplete") return null;
  const points = timelinePoints(row);
  const last = points.at(-2);
  return last == null
    ? null
    : { file, finished: false, target: last[1], seconds: last[0] };
}

/**
 * Every burst row of `sources` (results files, each with its path as the
 * user would type it; no steady load or crash test) stopped before its end
 * (status `incomplete`) against a burst run
 * of the same configuration ({@link configurationKey}) in another of them
 * that went further: a finish where there is one (the first, in the order
 * given), else the run that got furthest, if it got further than the row.
 */
export function stoppedAgainstFinishes(
  sources: readonly {
    readonly path: string;
    readonly document: ResultsDocument;
  }[],
): StoppedAgainstFinish[] {
  const runs = new Map<string, Longer[]>();
  for (const { path, document } of sources) {
    for (const row of document.results) {
      const far = isBurst(row) ? reach(path, row) : null;
      if (far == null) continue;
      const key = configurationKey(document, row);
      runs.set(key, [...runs.get(key) ?? [], far]);
    }
  }
  const out: StoppedAgainstFinish[] = [];
  for (const { path, document } of sources) {
    for (const row of document.results) {
      if (row.status !== "incomplete" || !isBurst(row)) continue;
      const others = (runs.get(configurationKey(document, row)) ?? [])
        .filter((r) => r.file !== path && r.target > row.delivered);
      const longer = others.find((r) => r.finished) ??
        others.sort((a, b) => b.target - a.target)[0];
      if (longer == null) continue;
      const actual = longer.seconds;
      const replay = simulateRow(
        row,
        defaultLimitsOf(document),
        document.environment?.packages,
        document.params.total,
      );
      const whole = replay.finished
        ? null
        : replay.estimate ?? replay.atRecordedEnd ?? null;
      const to = whole == null
        ? null
        : estimateTo(whole, replay.seconds, longer.target);
      out.push({
        file: path,
        id: row.id,
        delivered: row.delivered,
        target: longer.target,
        finished: longer.finished,
        recorded: row.estimate == null || !longer.finished ? null : against(
          row.estimate,
          row.elapsedSeconds ?? NaN,
          actual,
        ),
        now: to == null ? null : against(to, replay.seconds, actual),
        finishFile: longer.file,
        actualSeconds: actual,
      });
    }
  }
  return out;
}
