/**
 * The regression gate of `deno task compare --fail-on-regression`: from a
 * comparison of two results files, the configurations that got worse
 * beyond the noise and the threshold, that no longer finish, or that are
 * gone.
 *
 * @module
 */
import {
  type ComparedFigure,
  type Comparison,
  type FigureChange,
  higherIsBetter,
} from "./comparison.ts";
import type { Status } from "../results/mod.ts";

/** A configuration worse beyond the noise and the gate's threshold. */
export interface Regression {
  /** The configuration id. */
  readonly id: string;
  /**
   * The figure; `status` when the configuration no longer finishes;
   * `missing` when it is in the old file but not in the new one.
   */
  readonly figure: ComparedFigure | "status" | "missing";
  /**
   * How much worse, percent of the old median (the smaller of the raw and
   * normalised figures when normalised); `null` for a status.
   */
  readonly percent: number | null;
  /** The figure's change; `null` for a status or a missing configuration. */
  readonly change: FigureChange | null;
  /** The status in the old file. */
  readonly oldStatus: Status | null;
  /** The status in the new file; `null` when missing there. */
  readonly newStatus: Status | null;
}

/** How much worse a change is, percent (negative: better). */
function worsePercent(change: FigureChange): number | null {
  const sign = higherIsBetter(change.figure) ? -1 : 1;
  const raw = change.percent == null ? null : sign * change.percent;
  const normalized = change.normalized?.percent == null
    ? null
    : sign * change.normalized.percent;
  if (raw == null || normalized == null) return raw ?? normalized;
  return Math.min(raw, normalized);
}

/**
 * The regressions a CI gate fails on: figures whose verdict is `worse` (so
 * beyond the noise, with enough runs) by more than `thresholdPercent`, and
 * configurations that were `ok` or `incomplete` and now end `incomplete` or
 * `failed` (a status is no noise to judge; a `skipped` side is left out, as
 * it says the server was missing, not that the queue got worse), and
 * configurations of the old file missing from the new one (an interrupted or
 * crashed suite, or a dropped driver, must not pass; again unless `skipped`
 * in the old file, where nothing was measured).
 */
export function findRegressions(
  comparison: Comparison,
  thresholdPercent: number,
): Regression[] {
  const found: Regression[] = [];
  for (const row of comparison.rows) {
    if (row.presence === "only in old" && row.oldStatus !== "skipped") {
      found.push({
        id: row.id,
        figure: "missing",
        percent: null,
        change: null,
        oldStatus: row.oldStatus,
        newStatus: null,
      });
    }
    if (
      row.statusVerdict === "worse" && row.oldStatus !== "skipped" &&
      row.newStatus !== "skipped"
    ) {
      found.push({
        id: row.id,
        figure: "status",
        percent: null,
        change: null,
        oldStatus: row.oldStatus,
        newStatus: row.newStatus,
      });
    }
    for (const change of row.changes) {
      const percent = worsePercent(change);
      if (
        change.verdict === "worse" && percent != null &&
        percent > thresholdPercent
      ) {
        found.push({
          id: row.id,
          figure: change.figure,
          percent,
          change,
          oldStatus: row.oldStatus,
          newStatus: row.newStatus,
        });
      }
    }
  }
  return found;
}
