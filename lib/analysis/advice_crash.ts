/**
 * What crashes did to one configuration, over every results file that
 * crashed it: for `deno task advise`.  A crash's loss varies from run to
 * run, so it is a range over the files, each run with its file.  A run that
 * gave up waiting sooner than the same configuration was seen to redeliver
 * after a crash is *cut off*: what it counts as missing may have come back,
 * so it is shown and not counted.  Which runs those are is read from the
 * files (their status, stall window and timeline), not from a list of queues.
 *
 * @module
 */
import type {
  ConfigurationResult,
  ResultsDocument,
  Spread,
} from "../results/mod.ts";

/** A results document and where it was read from. */
export interface Source {
  /** Its path as the user would type it, e.g. `results/steady/latest.json`. */
  readonly path: string;
  /** Its contents. */
  readonly document: ResultsDocument;
}

/** Why a run's missing deliveries are not counted as lost. */
export interface CutOff {
  /** Seconds without a delivery after which this run gave up (its stall window). */
  readonly gaveUpAfterSeconds: number;
  /**
   * The longest spell without a delivery after the crash in a run of the
   * same configuration that then lost nothing, seconds (to its timeline's
   * bucket).
   */
  readonly recoveredAfterSeconds: number;
  /** That run's results file. */
  readonly recoveredIn: string;
}

/** One crash run of a configuration, in one file. */
export interface CrashRun {
  /** The results file. */
  readonly source: string;
  /** Deliveries that never arrived (`missing` once the run ended). */
  readonly missing: number;
  /** Deliveries that arrived more than once. */
  readonly duplicates: number;
  /** Deliveries expected. */
  readonly expected: number;
  /** Set when the run stopped before a redelivery seen elsewhere. */
  readonly cutOff: CutOff | null;
}

/** Every crash run of one configuration. */
export interface CrashEvidence {
  /** The configuration id, e.g. `redis` or `redis-aof`. */
  readonly id: string;
  /** The runs, in the order of the files. */
  readonly runs: readonly CrashRun[];
  /** Lost deliveries over the runs not cut off; `null` if all were. */
  readonly lost: Spread | null;
  /** Duplicates over the runs not cut off; `null` if all were. */
  readonly duplicates: Spread | null;
}

/**
 * The longest spell without a delivery after the run's first crash, in
 * seconds to the timeline's bucket; `null` without a crash or timeline.
 */
export function quietAfterCrash(row: ConfigurationResult): number | null {
  const crash = row.crashes?.[0];
  const buckets = row.timeline?.deliveries;
  if (crash == null || buckets == null) return null;
  let last: number | null = null;
  let longest = 0;
  for (const [at, count] of buckets) {
    if (count <= 0) continue;
    if (last != null && at >= crash.atSeconds) {
      longest = Math.max(longest, at - last);
    }
    last = at;
  }
  return longest;
}

/** Whether a run ended by its stall window with deliveries missing. */
function stalled(row: ConfigurationResult): boolean {
  return row.status === "incomplete" && row.missing > 0 &&
    row.elapsedSeconds != null && row.elapsedSeconds < row.timeoutSeconds;
}

function spread(values: readonly number[]): Spread | null {
  return values.length === 0
    ? null
    : { min: Math.min(...values), max: Math.max(...values) };
}

/**
 * Gathers the crash runs of the configurations `match` accepts, one
 * {@link CrashEvidence} per configuration id, in the order first seen.
 * @param sources Results files with a crash (worker or server, not mixed).
 * @param match Which rows to take.
 */
export function crashEvidence(
  sources: readonly Source[],
  match: (row: ConfigurationResult) => boolean,
): CrashEvidence[] {
  const byId = new Map<
    string,
    { row: ConfigurationResult; source: string }[]
  >();
  for (const source of sources) {
    for (const row of source.document.results) {
      if (row.status === "skipped" || row.status === "failed") continue;
      if (!match(row)) continue;
      const list = byId.get(row.id) ?? [];
      list.push({ row, source: source.path });
      byId.set(row.id, list);
    }
  }
  return [...byId].map(([id, rows]) => {
    const recovered = rows
      .filter(({ row }) => row.status === "ok" && row.missing === 0)
      .map(({ row, source }) => ({ quiet: quietAfterCrash(row), source }))
      .filter((r): r is { quiet: number; source: string } => r.quiet != null)
      .sort((a, b) => b.quiet - a.quiet)[0];
    const runs = rows.map(({ row, source }): CrashRun => ({
      source,
      missing: row.missing,
      duplicates: row.duplicates,
      expected: row.expected,
      cutOff: stalled(row) && recovered != null &&
          recovered.quiet >= row.stallTimeoutSeconds
        ? {
          gaveUpAfterSeconds: row.stallTimeoutSeconds,
          recoveredAfterSeconds: recovered.quiet,
          recoveredIn: recovered.source,
        }
        : null,
    }));
    const counted = runs.filter((r) => r.cutOff == null);
    return {
      id,
      runs,
      lost: spread(counted.map((r) => r.missing)),
      duplicates: spread(counted.map((r) => r.duplicates)),
    };
  });
}
