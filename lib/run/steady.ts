/**
 * The steady-load part of a suite: which runs a configuration gets under
 * `--idle`, `--rate`, `--senders` and `--find-max-rate`, and the max-rate
 * search, which runs one fresh rate run per probe until
 * {@link MaxRateSearch} has bracketed the highest sustained rate or the
 * time box runs out.
 *
 * @module
 */
import type {
  LoadParams,
  MaxRateProbe,
  MaxRateRecord,
  RunResult,
} from "../results/types.ts";
import { MaxRateSearch, probePassed } from "../workload/max_rate.ts";
import type { RunLoad } from "../workload/plan.ts";

/**
 * The load generator's own run: this many activities from this many closed
 * loops into a queue that drops them.
 */
export const GENERATOR_RUN = { senders: 16, total: 2000 } as const;

/** Seconds a probe waits past its window beyond the latency bound. */
const PROBE_DRAIN_MARGIN_SECONDS = 2;
/** Seconds a probe takes besides its window and drain (start-up, stop). */
const PROBE_OVERHEAD_SECONDS = 8;

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

/** The rate run of `load` at `rate`, draining for `drainSeconds`. */
export function rateLoad(
  load: LoadParams,
  rate: number,
  drainSeconds = load.drainSeconds,
): RunLoad {
  return {
    kind: "rate",
    rate,
    durationSeconds: load.durationSeconds,
    arrivals: load.arrivals,
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
 * Searches for the highest rate the configuration sustains; returns the run
 * of the best passing probe (the lowest probe's when none passed) with the
 * search's {@link MaxRateRecord}.
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
  const drain = settings.latencyBoundMs / 1000 + PROBE_DRAIN_MARGIN_SECONDS;
  const probeSeconds = options.load.durationSeconds + drain +
    PROBE_OVERHEAD_SECONDS;
  const probes: MaxRateProbe[] = [];
  const runs = new Map<number, RunResult>();
  let timeUp = false;
  for (let rate = search.next(); rate != null; rate = search.next()) {
    if (options.signal?.aborted) break;
    const elapsed = (clock() - started) / 1000;
    if (probes.length > 0 && elapsed + probeSeconds > settings.timeBoxSeconds) {
      timeUp = true;
      break;
    }
    const run = await options.probe(rateLoad(options.load, rate, drain));
    const passed = probePassed(run, settings.latencyBoundMs);
    search.record(rate, passed);
    runs.set(rate, run);
    probes.push({
      rate,
      passed,
      status: run.status,
      verdict: run.load?.verdict ?? null,
      p99Ms: run.latencyMs?.p99 ?? null,
      missing: run.missing,
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
  const maxRate: MaxRateRecord = {
    activitiesPerSecond: best,
    deliveriesPerSecond: best == null ? null : best * options.recipients,
    latencyBoundMs: settings.latencyBoundMs,
    stoppedBy: search.stoppedBy(timeUp),
    lowestFailedRate: search.lowestFailed,
    probes,
    seconds: Math.round((clock() - started) / 100) / 10,
  };
  return { ...shown, maxRate };
}
