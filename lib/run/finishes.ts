/**
 * The rows a run stopped with an estimate, against finishes of the same
 * configuration in other results files: each stopped row's estimate as its
 * run recorded it, and as the estimator now makes it where the default's
 * stop rule stops the recording (or, where the rule cannot judge it within
 * what was recorded, from all it recorded), against the total a run that
 * went to its end measured.  The back-test of a row cuts that row's own
 * timeline; this checks the estimate of a row the default never lets
 * finish, which no timeline of its own can.  Pure: `deno task backtest`
 * (`lib/cli/backtest.ts`) reads the files and prints.
 *
 * @module
 */
import type { ConfigurationResult, ResultsDocument } from "../results/types.ts";
import { defaultLimitsOf, simulateRow } from "./backtest.ts";

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

/** A stopped row and a finish of the same configuration. */
export interface StoppedAgainstFinish {
  /** The stopped row's results file. */
  readonly file: string;
  /** The row's id. */
  readonly id: string;
  /** Deliveries it made before it was stopped. */
  readonly delivered: number;
  /** Its estimate as its run recorded it; `null` when it recorded none. */
  readonly recorded: EstimateAgainstFinish | null;
  /**
   * The estimate the estimator as it is now makes from its recording,
   * where the default's stop rule stops it or, when the rule cannot judge
   * it within the recording, at the recording's end; `null` when it can
   * make none.
   */
  readonly now: EstimateAgainstFinish | null;
  /** The finish's results file. */
  readonly finishFile: string;
  /** The finish's measured total, seconds. */
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

/**
 * Every row of `sources` (results files, each with its path as the user
 * would type it) stopped with an estimate (status `incomplete`)
 * that has a finish of the same configuration ({@link configurationKey})
 * in another of them, each against that finish (the first, in the order
 * given, where there are several).
 */
export function stoppedAgainstFinishes(
  sources: readonly {
    readonly path: string;
    readonly document: ResultsDocument;
  }[],
): StoppedAgainstFinish[] {
  const finishes = new Map<string, { file: string; seconds: number }>();
  for (const { path, document } of sources) {
    for (const row of document.results) {
      if (row.status !== "ok" || row.totalSeconds == null) continue;
      const key = configurationKey(document, row);
      if (!finishes.has(key)) {
        finishes.set(key, { file: path, seconds: row.totalSeconds });
      }
    }
  }
  const out: StoppedAgainstFinish[] = [];
  for (const { path, document } of sources) {
    for (const row of document.results) {
      if (row.status !== "incomplete") continue;
      const finish = finishes.get(configurationKey(document, row));
      if (finish == null || finish.file === path) continue;
      const actual = finish.seconds;
      const replay = simulateRow(
        row,
        defaultLimitsOf(document),
        document.environment?.packages,
        document.params.total,
      );
      const estimate = replay.estimate ?? replay.atRecordedEnd ?? null;
      out.push({
        file: path,
        id: row.id,
        delivered: row.delivered,
        recorded: row.estimate == null ? null : against(
          row.estimate,
          row.elapsedSeconds ?? NaN,
          actual,
        ),
        now: estimate == null || replay.finished
          ? null
          : against(estimate, replay.seconds, actual),
        finishFile: finish.file,
        actualSeconds: actual,
      });
    }
  }
  return out;
}
