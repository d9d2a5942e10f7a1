/**
 * What a run sends, besides the burst of TOTAL activities: the arrival
 * schedule of an open-loop rate run (`arrivals.ts`), how such a run is
 * judged against its schedule (`load.ts`), and the search for the highest
 * rate a configuration sustains (`max_rate.ts`).
 *
 * @module
 */
export {
  arrivalSchedule,
  type ScheduleOptions,
  SeededRandom,
} from "./arrivals.ts";
export { evaluateLoad, leastSquares, type LoadObservation } from "./load.ts";
export {
  GROWTH,
  MaxRateSearch,
  type MaxRateSearchOptions,
  probeKeptUp,
  RESOLUTION,
  roundInside,
  roundRate,
} from "./max_rate.ts";
export type { RunLoad } from "./plan.ts";
