/**
 * Steady load in the results: the load's parameters, what a rate run
 * offered and achieved, the max-rate search with its probes, and the idle
 * measurement.
 *
 * @module
 */
import type { Percentiles, Series, Status } from "./figures.ts";

/**
 * How the arrivals of a rate run are spaced: `poisson` (exponential gaps from
 * a seeded generator, as independent web requests arrive) or `fixed` (evenly
 * spaced).
 */
export type ArrivalPattern = "poisson" | "fixed";

/** The steady-load settings of a suite (`--rate`, `--senders`, `--idle`, …). */
export interface LoadParams {
  /** Offered rates to sweep, activities per second; empty for none. */
  readonly rates: readonly number[];
  /**
   * Seconds over which the activities of a rate run arrive.
   * @exclusiveMinimum 0
   */
  readonly durationSeconds: number;
  /** How arrivals are spaced. */
  readonly arrivals: ArrivalPattern;
  /** Seed of the Poisson arrivals. */
  readonly seed: number;
  /**
   * Seconds a rate run waits after its arrival window for the deliveries
   * still queued; what has not arrived by then is reported missing and the
   * run `incomplete`.
   * @minimum 0
   */
  readonly drainSeconds: number;
  /** Closed-loop send loops to sweep (`--senders`); empty for none. */
  readonly senders: readonly number[];
  /** The max-rate search, when asked (`--find-max-rate`). */
  readonly maxRate?: {
    /**
     * The p99 latency bound judged at the capacity found, ms: a verdict of
     * its own, not a condition of keeping up.
     * @exclusiveMinimum 0
     */
    readonly latencyBoundMs: number;
    /**
     * Seconds the search may take per configuration.
     * @exclusiveMinimum 0
     */
    readonly timeBoxSeconds: number;
    /**
     * The first rate probed, activities per second.
     * @exclusiveMinimum 0
     */
    readonly startRate: number;
    /**
     * Seconds of arrivals per probe (`--probe-duration`); absent in files
     * whose probes used {@link LoadParams.durationSeconds}.
     * @exclusiveMinimum 0
     */
    readonly probeSeconds?: number;
    /**
     * Seconds a probe waits after its arrivals for the rest
     * (`--probe-drain`); absent in files whose probes waited the latency
     * bound plus 2 s.
     * @minimum 0
     */
    readonly probeDrainSeconds?: number;
  };
  /**
   * Seconds of the idle measurement (`--idle`), when asked.
   * @exclusiveMinimum 0
   */
  readonly idleSeconds?: number;
}

/** How an open-loop run went against its schedule. */
export interface LoadRecord {
  /**
   * The rate asked for, activities per second.
   * @minimum 0
   */
  readonly nominalRate: number;
  /** How arrivals were spaced. */
  readonly arrivals: ArrivalPattern;
  /**
   * Seconds of the arrival window.
   * @minimum 0
   */
  readonly durationSeconds: number;
  /**
   * Activities the schedule held.
   * @minimum 0
   * @asType integer
   */
  readonly activities: number;
  /**
   * Activities scheduled per second over the measured window (the second
   * half of the arrival window), as the seeded schedule drew them.
   * @minimum 0
   */
  readonly offeredRate: number;
  /**
   * Activities delivered per second over the same window (distinct
   * deliveries that arrived in it, divided by the recipients).
   * @minimum 0
   */
  readonly achievedRate: number;
  /**
   * How much the achieved rate may fall short of the offered one by chance
   * in this run: twice the standard error of the per-slice differences,
   * and at least 3% of the offered rate; activities per second.
   * @minimum 0
   */
  readonly noise: number;
  /**
   * Growth of the backlog over the measured window, deliveries per second
   * (least squares), and its standard error.
   */
  readonly backlogSlope: number;
  /**
   * Standard error of {@link backlogSlope}.
   * @minimum 0
   */
  readonly backlogSlopeError: number;
  /**
   * `fell-behind` when the backlog still grew at the end of the arrival
   * window (slope above twice its error and above 5% of the offered
   * deliveries per second), the achieved rate fell short of the offered
   * one by more than {@link noise}, or the backlog at the end exceeded all
   * the deliveries due in the second half (the queue was over half a window
   * behind); `kept-up` otherwise.
   */
  readonly verdict: "kept-up" | "fell-behind";
  /**
   * Deliveries scheduled (their activity's start time passed) but not yet
   * arrived, at the end of the arrival window.
   * @minimum 0
   */
  readonly backlogAtEnd: number;
  /**
   * The backlog's peak over the last quarter of the arrival window minus
   * its peak over the third quarter, deliveries; absent in older files.
   */
  readonly backlogPeakGrowth?: number;
  /**
   * Whether the backlog stayed bounded: {@link backlogPeakGrowth} at most
   * 5% of the deliveries that fell due in the last quarter (and at most
   * one activity's).  A queue that delivers in batches no further apart
   * than a quarter of the window is judged by its peaks, whatever their
   * phase.  The max-rate search's test of keeping up; absent in older
   * files.
   */
  readonly backlogBounded?: boolean;
  /** The same backlog over time, `[secondsFromStart, deliveries]`. */
  readonly backlog: Series;
  /**
   * How late the sender started each `sendActivity` call after its
   * scheduled time; large values mean the generator, not the queue, held
   * the load back.
   */
  readonly startLagMs: Percentiles | null;
}

/** One probe of a max-rate search. */
export interface MaxRateProbe {
  /**
   * The rate probed, activities per second.
   * @minimum 0
   */
  readonly rate: number;
  /**
   * Whether the configuration kept up with it: finished with every
   * delivery and judged `kept-up`.  In files without
   * {@link MaxRateRecord.latencyBoundMet}, it also required p99 latency
   * under the bound.
   */
  readonly passed: boolean;
  /** The run's status. */
  readonly status: Status;
  /** The run's verdict, when it got far enough to have one. */
  readonly verdict: "kept-up" | "fell-behind" | null;
  /**
   * p99 latency from the scheduled start, ms, over what arrived.
   * @minimum 0
   */
  readonly p99Ms: number | null;
  /**
   * Deliveries that had not arrived when the probe ended.
   * @minimum 0
   * @asType integer
   */
  readonly missing: number;
  /**
   * Activities scheduled per second over the probe's measured window;
   * absent in older files and when the probe broke.
   * @minimum 0
   */
  readonly offeredRate?: number | null;
  /**
   * Activities delivered per second over the same window.
   * @minimum 0
   */
  readonly achievedRate?: number | null;
  /**
   * Whether the probe's backlog stayed bounded (`LoadRecord.backlogBounded`),
   * which with every delivery arrived is what {@link passed} means; the
   * {@link verdict} may differ for a queue that delivers in batches.
   */
  readonly backlogBounded?: boolean | null;
}

/** The result of a max-rate search (`--find-max-rate`). */
export interface MaxRateRecord {
  /**
   * The capacity: the highest rate probed that the configuration kept up
   * with (every delivery arriving, the backlog bounded), whatever its
   * latency; `null` when even the lowest probe failed.  (In files without
   * {@link latencyBoundMet}, p99 latency had to be under the bound too.)
   * @minimum 0
   */
  readonly activitiesPerSecond: number | null;
  /**
   * The same in deliveries per second (`× recipients`).
   * @minimum 0
   */
  readonly deliveriesPerSecond: number | null;
  /**
   * The p99 latency bound, ms.
   * @exclusiveMinimum 0
   */
  readonly latencyBoundMs: number;
  /**
   * p99 latency, from the scheduled start, of the probe at the capacity,
   * ms; `null` when nothing kept up or nothing arrived.
   * @minimum 0
   */
  readonly p99AtCapacityMs?: number | null;
  /**
   * Whether {@link p99AtCapacityMs} is within {@link latencyBoundMs};
   * `null` when there is no capacity.
   */
  readonly latencyBoundMet?: boolean | null;
  /**
   * The final bracket's width as a fraction: lowest failed rate over the
   * capacity, minus one (`0.09`: capacity known within 9%); `null` when
   * there is no bracket (nothing failed, or nothing kept up).
   * @minimum 0
   */
  readonly resolution?: number | null;
  /**
   * Where the search stopped: `bracketed` (the lowest rate not kept up is
   * within the resolution, 10%, of the capacity; within 20% in older
   * files), `generator` (the load generator's own limit was reached),
   * `time-box` (time ran out), `lowest-failed` (nothing passed down to the
   * lowest rate tried).
   */
  readonly stoppedBy: "bracketed" | "generator" | "time-box" | "lowest-failed";
  /**
   * The lowest rate that failed, if any, activities per second.
   * @minimum 0
   */
  readonly lowestFailedRate: number | null;
  /** Every probe, in order. */
  readonly probes: readonly MaxRateProbe[];
  /**
   * Seconds the search took.
   * @minimum 0
   */
  readonly seconds: number;
}

/** One process measured while its queue sat empty. */
export interface IdleProcess {
  /**
   * `sender`, `worker` or `server`.
   * @minLength 1
   */
  readonly role: string;
  /**
   * Its process id.
   * @minimum 1
   * @asType integer
   */
  readonly pid: number;
  /**
   * CPU time over the window as a share of one core, percent.
   * @minimum 0
   */
  readonly cpuPercent: number | null;
  /**
   * Resident set size at the end of the window, bytes.
   * @minimum 0
   */
  readonly rssBytes: number | null;
  /**
   * Context switches over the window (voluntary and not) of every thread
   * alive at its end (for a server, of its whole tree): how often it woke.
   * Threads that ended within the window are not counted, so it is a lower
   * bound; `null` where `/proc` cannot tell.
   * @minimum 0
   */
  readonly wakeups: number | null;
}

/** The idle measurement of a configuration (`--idle`). */
export interface IdleRecord {
  /**
   * Seconds measured, after start-up and a short settling time.
   * @minimum 0
   */
  readonly seconds: number;
  /** Every process of the app and its queue server. */
  readonly processes: readonly IdleProcess[];
}
