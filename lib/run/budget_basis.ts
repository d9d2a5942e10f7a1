/**
 * How a suite's per-row budget is set: seconds given with `--budget`, no
 * budget with `--until-done`, or, by default, a multiple of this host's
 * own `none` row (`--budget-none`, {@link DEFAULT_BUDGET_OF_NONE}), which
 * then runs first.  A budget in units of the no-queue row moves with the
 * host: on a host twice as slow every row gets twice as long, so the line
 * between the rows that run to their end and the rows reported as
 * estimates (`budget.ts`, {@link NEAR_END} × the budget) falls between the
 * same configurations on every host.  Pure: the suite asks it once before
 * the first row and once when `none` has finished.
 *
 * @module
 */
import {
  DEFAULT_BUDGET_OF_NONE,
  DEFAULT_BUDGET_SECONDS,
} from "../params/mod.ts";
import { MIN_OBSERVED_SECONDS, NEAR_END } from "./budget.ts";

/** The id of the row a relative budget is measured against. */
export const REFERENCE_ROW = "none";

/** What the budget parameters ask for. */
export interface BudgetRequest {
  /** `--budget S`: seconds, or `null`/absent when not given. */
  readonly budgetSeconds?: number | null;
  /** `--budget-none K`: a multiple of the none row, or `null`/absent. */
  readonly budgetOfNone?: number | null;
  /** `--until-done`: no budget at all. */
  readonly untilDone?: boolean;
}

/**
 * How the suite's rows are budgeted: not at all, by fixed seconds, or by
 * a multiple of the {@link REFERENCE_ROW}'s total, known once it finished.
 */
export type BudgetBasis =
  | { readonly kind: "until-done" }
  | {
    readonly kind: "seconds";
    readonly seconds: number;
    /**
     * Why seconds: given with `--budget`, or the fallback for a suite
     * without a none row.
     */
    readonly why: "given" | "no none row";
  }
  | { readonly kind: "of-none"; readonly factor: number };

/**
 * The basis of a suite's budget, from its parameters and whether it runs
 * the {@link REFERENCE_ROW}: `--until-done` wins, then `--budget S`, then a
 * multiple of the none row (`--budget-none K`, default
 * {@link DEFAULT_BUDGET_OF_NONE}); without a none row,
 * {@link DEFAULT_BUDGET_SECONDS}.
 */
export function budgetBasis(
  request: BudgetRequest,
  hasReferenceRow: boolean,
): BudgetBasis {
  if (request.untilDone === true) return { kind: "until-done" };
  if (request.budgetSeconds != null) {
    return { kind: "seconds", seconds: request.budgetSeconds, why: "given" };
  }
  if (!hasReferenceRow) {
    return {
      kind: "seconds",
      seconds: DEFAULT_BUDGET_SECONDS,
      why: "no none row",
    };
  }
  return {
    kind: "of-none",
    factor: request.budgetOfNone ?? DEFAULT_BUDGET_OF_NONE,
  };
}

/** What the none row said of the budget once it finished. */
export interface ResolvedBudget {
  /** The per-row budget, seconds (one decimal). */
  readonly seconds: number;
  /** The multiple of the none row, when the budget is one. */
  readonly factor: number | null;
  /**
   * Why the budget is the fixed {@link DEFAULT_BUDGET_SECONDS} rather than
   * a multiple of the none row, in words, or `null` when it is not.
   */
  readonly fallback: string | null;
  /** What the run prints about it, in words. */
  readonly note: string;
}

/**
 * A budget in seconds, known before the first row: given with `--budget`,
 * or {@link DEFAULT_BUDGET_SECONDS} in a run without a none row, which
 * says that `--budget-none` had nothing to multiply.
 * @param basis A seconds basis from {@link budgetBasis}.
 */
export function fixedBudget(
  basis: Extract<BudgetBasis, { kind: "seconds" }>,
): ResolvedBudget {
  const fallback = basis.why === "no none row" ? basis.why : null;
  return {
    seconds: basis.seconds,
    factor: null,
    fallback,
    note: `budget ${basis.seconds} s a row` +
      (fallback == null
        ? " (--budget)"
        : `: this run has no ${REFERENCE_ROW} row, so the budget cannot be ` +
          `a multiple of its time (--budget-none); give --budget S to ` +
          `choose it, or add ${REFERENCE_ROW} to the drivers`) +
      `; a row whose estimate is within ${NEAR_END}× that runs to its end`,
  };
}

/**
 * The budget of the rows after the none row: `factor` × its total when it
 * finished, but never below {@link MIN_OBSERVED_SECONDS} (a small run, whose
 * none row takes seconds, would otherwise judge its rows on a few seconds
 * of deliveries), else {@link DEFAULT_BUDGET_SECONDS} and why.
 * @param factor The multiple (`--budget-none`).
 * @param none The none row's status and total, seconds.
 */
export function resolveBudget(
  factor: number,
  none: { readonly status: string; readonly totalSeconds: number | null },
): ResolvedBudget {
  if (none.status !== "ok" || none.totalSeconds == null) {
    return {
      seconds: DEFAULT_BUDGET_SECONDS,
      factor: null,
      fallback: `the ${REFERENCE_ROW} row did not finish (${none.status})`,
      note: `budget ${DEFAULT_BUDGET_SECONDS} s a row: the ${REFERENCE_ROW} ` +
        `row did not finish (${none.status}), so the budget cannot be ` +
        `${factor} × its time (--budget-none); give --budget S to choose it`,
    };
  }
  const relative = Math.round(factor * none.totalSeconds * 10) / 10;
  const seconds = Math.max(relative, MIN_OBSERVED_SECONDS);
  return {
    seconds,
    factor,
    fallback: null,
    note: `budget ${seconds} s a row: ${factor} × the ${REFERENCE_ROW} ` +
      `row's ${none.totalSeconds.toFixed(1)} s (--budget-none)` +
      (seconds > relative
        ? `, ${relative} s, raised to the least of ${MIN_OBSERVED_SECONDS} s`
        : "") +
      `; a row whose estimate is within ${NEAR_END}× that runs to its end`,
  };
}
