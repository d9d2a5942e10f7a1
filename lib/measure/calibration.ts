/**
 * TEMPORARY: the calibration readers moved to `lib/results/calibration.ts`
 * (and their words to `lib/report/calibration.ts`).  This re-export stays
 * only for `lib/report/comparison.ts`, which another change is rewriting;
 * that change imports `lib/results/calibration.ts` instead and deletes this
 * file (see `TEMPORARY_ALLOWED` in `lib/architecture.test.ts`).
 *
 * @module
 */
export * from "../results/calibration.ts";
