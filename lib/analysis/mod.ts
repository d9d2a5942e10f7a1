/**
 * What is found in results already written, running and rendering nothing:
 * the capacity planner behind `deno task advise` (`advice.ts`, with what
 * crashes lost in `advice_crash.ts`); the back-test of the estimate and the
 * stop rule behind `deno task backtest` (`estimator_backtest.ts`,
 * `finishes.ts`); the comparison of two results files behind
 * `deno task compare` (`comparison.ts`, with the CI gate's rule in
 * `regressions.ts`); and the stage model applied again to recorded rows
 * behind `deno task remodel` (`remodel_rows.ts`).  The report
 * (`lib/report/`) renders what these find; the command line (`lib/cli/`)
 * reads the files, prints and writes.
 *
 * @module
 */
export * from "./advice.ts";
export * from "./advice_crash.ts";
export * from "./comparison.ts";
export * from "./estimator_backtest.ts";
export * from "./finishes.ts";
export * from "./regressions.ts";
export * from "./remodel_rows.ts";
