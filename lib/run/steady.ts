/**
 * The steady-load part of a suite: which runs a configuration gets under
 * `--idle`, `--rate`, `--senders` and `--find-max-rate`, and the max-rate
 * search, which runs one fresh rate run per probe until
 * {@link MaxRateSearch} has bracketed the capacity (the highest rate kept
 * up with) within its resolution or the time box runs out, and then judges
 * the latency at the capacity against the bound.
 *
 * @module
 */
import type {
  ArrivalPattern,
  LoadParams,
  MaxRateProbe,
  MaxRateRecord,
  RunResult,
} from "../results/mod.ts";
import {
  DEFAULT_PROBE_DRAIN_SECONDS,
  DEFAULT_PROBE_SECONDS,
} from "../params/bench/load_params.ts";
import { MaxRateSearch, probeKeptUp } from "../workload/max_rate.ts";
import type { RunLoad } from "../workload/plan.ts";

/**
 * The load generator's own run: this many activities from this many closed
 * loops into a queue that drops them.
 */
export const GENERATOR_RUN = { senders: 16, total: 2000 } as const;

/** One entry of a steady-load suite for a configuration. */
export interface LoadUnit {
  /** Appended to the configuration's id, e.g. `-rate-8`. */
  readonly suffix: string;
  /** What its run(s) send; absent for the max-rate search. */
  readonly load?: RunLoad;
  /** Whether this entry is the max-rate search. */
  readonly maxRate?: boolean;
}

/** A rate as it appears in ids: `8`, `0.5`. */
function rateText(rate: number): string {
  return String(Number(rate.toPrecision(6)));
}

/**
 * The rate run of `load` at `rate`: `durationSeconds` of arrivals spaced as
 * `arrivals`, then `drainSeconds` of waiting for the rest.
 */
export function rateLoad(
  load: LoadParams,
  rate: number,
  durationSeconds = load.durationSeconds,
  drainSeconds = load.drainSeconds,
  arrivals: ArrivalPattern = load.arrivals,
): RunLoad {
  return {
    kind: "rate",
    rate,
    durationSeconds,
    arrivals,
    seed: load.seed,
    drainSeconds,
  };
}

/**
 * The entries of one configuration, in run order: idle, each rate, each
 * number of senders, the max-rate search.
 */
export function loadUnits(load: LoadParams): LoadUnit[] {
  return [
    ...(load.idleSeconds == null ? [] : [{
      suffix: "-idle",
      load: { kind: "idle", seconds: load.idleSeconds } as const,
    }]),
    ...load.rates.map((rate) => ({
      suffix: `-rate-${rateText(rate)}`,
      load: rateLoad(load, rate),
    })),
    ...load.senders.map((senders) => ({
      suffix: `-senders-${senders}`,
      load: { kind: "senders", senders } as const,
    })),
    ...(load.maxRate == null ? [] : [{ suffix: "-max-rate", maxRate: true }]),
  ];
}

/** Whether a suite needs the load generator's own run first. */
export function needsGenerator(load: LoadParams | undefined): boolean {
  return load != null && (load.rates.length > 0 || load.maxRate != null);
}

/** What a max-rate search needs from the suite. */
export interface MaxRateOptions {
  /** The suite's steady-load settings (with `maxRate`). */
  readonly load: LoadParams;
  /** Recipients per activity. */
  readonly recipients: number;
  /** The highest rate the load generator offered here; `Infinity` if unknown. */
  readonly ceiling: number;
  /** Runs one probe: a fresh rate run of the configuration. */
  readonly probe: (load: RunLoad) => Promise<RunResult>;
  /** Stops the search (Ctrl-C). */
  readonly signal?: AbortSignal;
  /** Reads a clock in ms; `performance.now` unless a test passes its own. */
  readonly clock?: () => number;
}

/**
 * Searches for the configuration's capacity, the highest rate it keeps up
 * with ({@link probeKeptUp}), to within the search's resolution; returns
 * the run of the probe at the capacity (the lowest probe's when nothing
 * kept up) with the search's {@link MaxRateRecord}: the capacity, the p99
 * latency there and whether it met the bound, and the final bracket.
 *
 * A probe starts only while the time box can still hold it, counting it
 * as long as the longest probe so far and at least its arrivals plus its
 * drain.
 * @throws {TypeError} If `options.load.maxRate` is unset.
 */
export async function searchMaxRate(
  options: MaxRateOptions,
): Promise<RunResult> {
  const settings = options.load.maxRate;
  if (settings == null) throw new TypeError("no max-rate settings");
  const clock = options.clock ?? (() => performance.now());
  const started = clock();
  const search = new MaxRateSearch({
    startRate: settings.startRate,
    ceiling: options.ceiling,
  });
  const window = settings.probeSeconds ?? DEFAULT_PROBE_SECONDS;
  const drain = settings.probeDrainSeconds ?? DEFAULT_PROBE_DRAIN_SECONDS;
  let longest = window + drain;
  const probes: MaxRateProbe[] = [];
  const runs = new Map<number, RunResult>();
  let timeUp = false;
  for (let rate = search.next(); rate != null; rate = search.next()) {
    if (options.signal?.aborted) break;
    const elapsed = (clock() - started) / 1000;
    if (probes.length > 0 && elapsed + longest > settings.timeBoxSeconds) {
      timeUp = true;
      break;
    }
    const probeStarted = clock();
    // Evenly spaced: a Poisson probe's own offer strays from its rate by
    // more than the resolution (±15% over a 10 s half-window at 4/s).
    const run = await options.probe(
      rateLoad(options.load, rate, window, drain, "fixed"),
    );
    longest = Math.max(longest, (clock() - probeStarted) / 1000);
    const keptUp = probeKeptUp(run);
    search.record(rate, keptUp, run.load?.achievedRate);
    runs.set(rate, run);
    probes.push({
      rate,
      passed: keptUp,
      status: run.status,
      verdict: run.load?.verdict ?? null,
      p99Ms: run.latencyMs?.p99 ?? null,
      missing: run.missing,
      offeredRate: run.load?.offeredRate ?? null,
      achievedRate: run.load?.achievedRate ?? null,
      backlogBounded: run.load?.backlogBounded ?? null,
    });
    // A probe that broke (not merely fell behind) says nothing of rates.
    if (run.status === "failed") break;
  }
  const best = search.best;
  const shown = best != null
    ? runs.get(best)!
    : runs.get(Math.min(...runs.keys()));
  if (shown == null) {
    throw new Error("the max-rate search ran no probe (interrupted)");
  }
  const p99 = best == null ? null : shown.latencyMs?.p99 ?? null;
  const maxRate: MaxRateRecord = {
    activitiesPerSecond: best,
    deliveriesPerSecond: best == null ? null : best * options.recipients,
    latencyBoundMs: settings.latencyBoundMs,
    p99AtCapacityMs: p99,
    latencyBoundMet: best == null
      ? null
      : p99 != null && p99 <= settings.latencyBoundMs,
    resolution: search.resolution,
    stoppedBy: search.stoppedBy(timeUp),
    lowestFailedRate: search.lowestFailed,
    probes,
    seconds: Math.round((clock() - started) / 100) / 10,
  };
  return { ...shown, maxRate };
}
