/**
 * The shape of the results file (`latest.json`), schema version 1.
 *
 * @module
 */

/**
 * How a parallel queue wraps a driver's queue: Fedify's
 * `ParallelMessageQueue`, or `AwaitingParallelMessageQueue`
 * (`lib/queue/awaiting_parallel_queue.ts`).
 */
export type ParallelImpl = "fedify" | "awaiting";

/**
 * The implementation of a driver's queue that a run measured (see
 * `lib/measure/implementation.ts`, which resolves it).
 */
export interface Implementation {
  /** The bare specifier the driver imports, e.g. `@fedify/denokv`. */
  readonly specifier: string;
  /**
   * The URL the specifier resolved to in the process that opened the queue
   * (an npm cache path, a JSR URL, or a local stand-in module).
   */
  readonly resolved: string;
  /**
   * Whether `resolved` is the package of that name from a registry (npm or
   * JSR), rather than a stand-in module or another package.
   */
  readonly official: boolean;
  /** The package version read from `resolved`, when it shows one. */
  readonly version: string | null;
}

/**
 * The driver name of the baseline's rows (no queue, no `sendActivity`: the
 * sender signs and POSTs every delivery itself), as
 * {@link ConfigurationResult.driver} records it.
 */
export const BASELINE_DRIVER = "baseline";

/**
 * Fedify's `fanout` option of `sendActivity`: `auto` fans out (one message
 * per activity, expanded into one per inbox by a worker) from 5 recipients
 * on, `skip` never does, `force` always does.
 */
export type FanoutMode = "auto" | "skip" | "force";

/**
 * What the sender sends: `create`, independent `Create(Note)` activities
 * (the default); `cud`, a `Create`, an `Update` and a `Delete` of each
 * note, back to back, as a user's edit-then-delete.
 */
export type Workload = "create" | "cud";

/**
 * The `orderingKey` each `sendActivity` passes: `none`, no key; `object`,
 * the note's id, so that Fedify keeps each note's activities in order per
 * receiving server where the queue honours it.
 */
export type OrderingKey = "none" | "object";

/**
 * Order of arrival in a run of the `cud` workload.  A violation is the
 * first accepted arrival of an (activity, recipient) pair after an accepted
 * arrival of a later step of the same note at the same recipient
 * (docs/methodology.md, "Ordering").
 */
export interface OrderingRecord {
  /** The ordering key the run passed to `sendActivity`. */
  readonly key: OrderingKey;
  /**
   * Whether this configuration's queue, as installed and wrapped,
   * implements `orderingKey` (handles a key's messages one at a time, in
   * order) rather than ignoring it; the same with either key.  Whether
   * order held is {@link violations}.
   */
  readonly supported: boolean;
  /** Why it does not (or what its support rests on); for the report. */
  readonly note?: string;
  /** Order violations counted by the inbox; `null` if it could not be read. */
  readonly violations: number | null;
}

/** An inbox latency: fixed (`min === max`) or uniform over a range, in ms. */
export interface LatencyRange {
  /** Shortest answer delay, ms. */
  readonly minMs: number;
  /** Longest answer delay, ms. */
  readonly maxMs: number;
}

/** The fake inbox's behaviour profile, as given on the command line. */
export interface InboxProfile {
  /** Delay before each answer; `null` answers at once. */
  readonly latency: LatencyRange | null;
  /** Share of deliveries answered 503 on their first attempt. */
  readonly errorRate: number;
  /** Share of recipients whose inbox answers 410 Gone, always. */
  readonly goneRate: number;
  /** Share of deliveries whose first attempt has its connection dropped. */
  readonly dropRate: number;
  /** Whether to verify each request's HTTP signature. */
  readonly verifySignatures: boolean;
  /** Seed of the draw of failing deliveries. */
  readonly seed: number;
  /**
   * Share of recipients whose inbox fails every request (503), on a host
   * of its own; absent when none (`--inbox-dead-rate`).
   */
  readonly deadRate?: number;
}

/**
 * The driver name of the load generator's row in a steady-load suite: the
 * sender's `sendActivity` calls, from several closed loops at once, into a
 * queue that accepts and discards every message; its `callsPerSecond` is
 * the highest rate the generator itself can offer here.
 */
export const GENERATOR_DRIVER = "generator";

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
  /** Seconds over which the activities of a rate run arrive. */
  readonly durationSeconds: number;
  /** How arrivals are spaced. */
  readonly arrivals: ArrivalPattern;
  /** Seed of the Poisson arrivals. */
  readonly seed: number;
  /**
   * Seconds a rate run waits after its arrival window for the deliveries
   * still queued; what has not arrived by then is reported missing and the
   * run `incomplete`.
   */
  readonly drainSeconds: number;
  /** Closed-loop send loops to sweep (`--senders`); empty for none. */
  readonly senders: readonly number[];
  /** The max-rate search, when asked (`--find-max-rate`). */
  readonly maxRate?: {
    /**
     * The p99 latency bound judged at the capacity found, ms: a verdict of
     * its own, not a condition of keeping up.
     */
    readonly latencyBoundMs: number;
    /** Seconds the search may take per configuration. */
    readonly timeBoxSeconds: number;
    /** The first rate probed, activities per second. */
    readonly startRate: number;
    /**
     * Seconds of arrivals per probe (`--probe-duration`); absent in files
     * whose probes used {@link LoadParams.durationSeconds}.
     */
    readonly probeSeconds?: number;
    /**
     * Seconds a probe waits after its arrivals for the rest
     * (`--probe-drain`); absent in files whose probes waited the latency
     * bound plus 2 s.
     */
    readonly probeDrainSeconds?: number;
  };
  /** Seconds of the idle measurement (`--idle`), when asked. */
  readonly idleSeconds?: number;
}

/** How an open-loop run went against its schedule. */
export interface LoadRecord {
  /** The rate asked for, activities per second. */
  readonly nominalRate: number;
  /** How arrivals were spaced. */
  readonly arrivals: ArrivalPattern;
  /** Seconds of the arrival window. */
  readonly durationSeconds: number;
  /** Activities the schedule held. */
  readonly activities: number;
  /**
   * Activities scheduled per second over the measured window (the second
   * half of the arrival window), as the seeded schedule drew them.
   */
  readonly offeredRate: number;
  /**
   * Activities delivered per second over the same window (distinct
   * deliveries that arrived in it, divided by the recipients).
   */
  readonly achievedRate: number;
  /**
   * How much the achieved rate may fall short of the offered one by chance
   * in this run: twice the standard error of the per-slice differences,
   * and at least 3% of the offered rate; activities per second.
   */
  readonly noise: number;
  /**
   * Growth of the backlog over the measured window, deliveries per second
   * (least squares), and its standard error.
   */
  readonly backlogSlope: number;
  /** Standard error of {@link backlogSlope}. */
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
  /** The rate probed, activities per second. */
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
  /** p99 latency from the scheduled start, ms, over what arrived. */
  readonly p99Ms: number | null;
  /** Deliveries that had not arrived when the probe ended. */
  readonly missing: number;
  /**
   * Activities scheduled per second over the probe's measured window;
   * absent in older files and when the probe broke.
   */
  readonly offeredRate?: number | null;
  /** Activities delivered per second over the same window. */
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
   */
  readonly activitiesPerSecond: number | null;
  /** The same in deliveries per second (`× recipients`). */
  readonly deliveriesPerSecond: number | null;
  /** The p99 latency bound, ms. */
  readonly latencyBoundMs: number;
  /**
   * p99 latency, from the scheduled start, of the probe at the capacity,
   * ms; `null` when nothing kept up or nothing arrived.
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
  /** The lowest rate that failed, if any, activities per second. */
  readonly lowestFailedRate: number | null;
  /** Every probe, in order. */
  readonly probes: readonly MaxRateProbe[];
  /** Seconds the search took. */
  readonly seconds: number;
}

/** One process measured while its queue sat empty. */
export interface IdleProcess {
  /** `sender`, `worker` or `server`. */
  readonly role: string;
  /** Its process id. */
  readonly pid: number;
  /** CPU time over the window as a share of one core, percent. */
  readonly cpuPercent: number | null;
  /** Resident set size at the end of the window, bytes. */
  readonly rssBytes: number | null;
  /**
   * Context switches over the window (voluntary and not) of every thread
   * alive at its end (for a server, of its whole tree): how often it woke.
   * Threads that ended within the window are not counted, so it is a lower
   * bound; `null` where `/proc` cannot tell.
   */
  readonly wakeups: number | null;
}

/** The idle measurement of a configuration (`--idle`). */
export interface IdleRecord {
  /** Seconds measured, after start-up and a short settling time. */
  readonly seconds: number;
  /** Every process of the app and its queue server. */
  readonly processes: readonly IdleProcess[];
}

/** How a configuration ended. */
export type Status = "ok" | "incomplete" | "failed" | "skipped";

/**
 * A process that took part in a run: the one record of a measured process,
 * from the meter that reads it (`lib/measure/process_meter.ts`) through the
 * run's outcome to the results file.
 */
export interface ProcessRecord {
  /** `inbox`, `sender`, `worker` or `server`. */
  readonly role: string;
  /** Its process id (for checking that nothing outlives the run). */
  readonly pid: number;
  /**
   * User + system CPU seconds from the start of sending to the end of the
   * run (start-up excluded); for a server, of its whole process tree.
   * `null` when it could not be read.
   */
  readonly cpuSeconds?: number | null;
  /** Peak resident set size in bytes (VmHWM), `null` when unknown. */
  readonly peakRssBytes?: number | null;
}

/** Percentiles of a distribution, in milliseconds. */
export interface Percentiles {
  /** Median. */
  readonly p50: number;
  /** 90th percentile. */
  readonly p90: number;
  /** 99th percentile. */
  readonly p99: number;
  /** 99.9th percentile. */
  readonly p999: number;
  /** Largest value. */
  readonly max: number;
}

/** A series of `[secondsFromStart, value]` points. */
export type Series = [number, number][];

/** How a run went over time; seconds count from the first `sendActivity` call. */
export interface Timeline {
  /** Width of the buckets of {@link deliveries}, seconds. */
  readonly bucketSeconds: number;
  /** Distinct deliveries per second in each bucket (bucket start time). */
  readonly deliveries: Series;
  /** Distinct deliveries so far, at the end of each bucket. */
  readonly cumulative: Series;
  /** Messages waiting in the queue, sampled; empty without `getDepth()`. */
  readonly queueDepth: Series;
}

/**
 * The estimated total time of a run stopped before its last delivery (by
 * its budget or the time limit), from its delivery timeline.  An estimate,
 * never a measurement: the report shows it only under its own label.
 */
export interface EstimateRecord {
  /**
   * Estimated seconds from the first `sendActivity` call to the last
   * delivery: comparable with a finished run's `totalSeconds`.
   */
  readonly totalSeconds: number;
  /** The bound if the rest went 4× faster than the measured rate. */
  readonly lowSeconds: number;
  /** The bound if the rest went 2× slower than the measured rate. */
  readonly highSeconds: number;
  /** Deliveries per second over the window the estimate used. */
  readonly deliveriesPerSecond: number;
  /** What stopped the run: its budget (`--budget`) or the time limit. */
  readonly stoppedBy: "budget" | "time limit";
  /** How the estimate was made, in words. */
  readonly basis: string;
}

/** The queue server a configuration used. */
export interface ServerRecord {
  /** Service name, e.g. `redis`. */
  readonly name: string;
  /** The server's version as it reported it. */
  readonly version: string;
  /** Whether the bench started it (or the user gave a URL). */
  readonly startedByBench: boolean;
}

/** Everything measured in one run of a configuration. */
export interface RunResult {
  /** How it ended. */
  readonly status: Status;
  /** Why it is not `ok`; `null` when it is. */
  readonly reason: string | null;
  /** `total × recipients`. */
  readonly expected: number;
  /** Distinct (activity, recipient) pairs that arrived. */
  readonly delivered: number;
  /** Arrivals beyond the first of a pair. */
  readonly duplicates: number;
  /**
   * For each activity some of whose deliveries arrived more than once, how
   * many extra arrivals it had, largest first: a fanout message handled
   * twice shows as one entry of RECIPIENTS, single outbox messages handled
   * twice as 1s.  Absent when nothing arrived twice or the inbox's arrivals
   * were not read.
   */
  readonly duplicatesPerActivity?: readonly number[];
  /**
   * Deliveries that should have arrived and did not:
   * `expected - delivered - gone`.
   */
  readonly missing: number;
  /** Inbox requests that were no expected delivery. */
  readonly unexpected: number;
  /** Requests for expected deliveries, accepted or refused. */
  readonly attempts?: number;
  /** Deliveries attempted again after a refused attempt. */
  readonly retried?: number;
  /**
   * Deliveries addressed to recipients whose inbox is gone (410): never
   * deliverable, by design of the inbox profile.
   */
  readonly gone?: number;
  /**
   * With `--crash-worker-at` / `--crash-server-at`: deliveries that never
   * arrived after the crash and restart (`missing` once the run settled).
   */
  readonly lost?: number;
  /** The crashes the run inflicted, in order. */
  readonly crashes?: readonly CrashRecord[];
  /**
   * Worker processes that exited on their own after a server crash and were
   * started again, as a supervisor would, in order.
   */
  readonly restarts?: readonly RestartRecord[];
  /** Duration of the `sendActivity` loop; `null` if it did not finish. */
  readonly sendSeconds: number | null;
  /** First to last delivery; `null` unless `ok`. */
  readonly receiveSeconds: number | null;
  /** First `sendActivity` call to last delivery; `null` unless `ok`. */
  readonly totalSeconds: number | null;
  /**
   * `delivered / totalSeconds` when `ok`; for `incomplete`, the rate so far
   * (delivered / elapsed); `null` otherwise.
   */
  readonly deliveriesPerSecond: number | null;
  /** From the first `sendActivity` call to the end of waiting. */
  readonly elapsedSeconds: number | null;
  /** `sendActivity` calls that threw. */
  readonly sendErrors: number;
  /** Separate worker processes consuming the queue (0: the sender does). */
  readonly workers: number;
  /** The stall window actually applied, in seconds. */
  readonly stallTimeoutSeconds: number;
  /** The time limit applied, in seconds. */
  readonly timeoutSeconds: number;
  /** The queue server, if any. */
  readonly server: ServerRecord | null;
  /** Every process of the run. */
  readonly processes: readonly ProcessRecord[];
  /**
   * Per delivery: arrival at the inbox minus the start of its activity's
   * `sendActivity` call; in a rate run, minus its *scheduled* start, so a
   * sender that fell behind its schedule cannot hide latency.  `null` when
   * nothing arrived.
   */
  readonly latencyMs?: Percentiles | null;
  /** Durations of the `sendActivity` calls; `null` if none returned. */
  readonly sendCallMs?: Percentiles | null;
  /** Sender + worker CPU milliseconds per distinct delivery. */
  readonly cpuMsPerDelivery?: number | null;
  /**
   * CPU milliseconds per distinct delivery of the queue server the bench
   * started (its whole process tree); `null` without a server, when the
   * server was the user's own and not measured, or after a server crash.
   */
  readonly serverCpuMsPerDelivery?: number | null;
  /**
   * Which implementation of the driver's queue package ran, as the process
   * that opened the queue resolved it; `null` for drivers without a queue.
   */
  readonly implementation?: Implementation | null;
  /** Deliveries and queue depth over time; `null` when nothing arrived. */
  readonly timeline?: Timeline | null;
  /** Fedify's own log of the sender and worker processes. */
  readonly log?: LogSummary;
  /** Closed-loop send loops of a `--senders` run (and the generator's row). */
  readonly senders?: number;
  /**
   * In a closed-loop run (`--senders`, and the load generator's row):
   * `sendActivity` calls returned per second over the send loop.
   */
  readonly callsPerSecond?: number;
  /** How an open-loop run (`--rate`) went against its schedule. */
  readonly load?: LoadRecord;
  /** A max-rate search's outcome; the run is its best passing probe. */
  readonly maxRate?: MaxRateRecord;
  /** The idle measurement (`--idle`); the run sent nothing. */
  readonly idle?: IdleRecord;
  /** Arrival order of the `cud` workload; absent for other workloads. */
  readonly ordering?: OrderingRecord;
  /**
   * For an `incomplete` run stopped by its budget or the time limit while
   * still delivering: its estimated total time.  Stalled, interrupted,
   * crashed and failed runs have none.
   */
  readonly estimate?: EstimateRecord;
  /**
   * The machine's speed measured just before this run (a short
   * calibration, on one thread and on every core), so that rows measured
   * at different moments of a suite can be set side by side.  On a
   * configuration of several runs: each run's own in `runs`, and here the
   * median of theirs, with the min and max over all their slices.  Absent
   * when the suite was not calibrated, in a result kept by `--resume` from
   * an older file, or in files written before it was recorded.
   */
  readonly calibration?: CalibrationPoint;
  /** `getDepth()` against the bench's own count (`--sample-depth`). */
  readonly depth?: DepthRecord;
  /** Dead inboxes and the delayed backlog (`--inbox-dead-rate`). */
  readonly delayed?: DelayedRecord;
}

/**
 * A run with dead inboxes (`--inbox-dead-rate`): how large the delayed
 * backlog that retries and the circuit breaker built grew, beside the
 * healthy deliveries' throughput and latency.  `expected` counts the
 * healthy deliveries only.
 */
export interface DelayedRecord {
  /** The share of recipients whose inbox failed every request. */
  readonly inboxDeadRate: number;
  /** How many recipients were dead. */
  readonly deadRecipients: number;
  /** Requests to dead inboxes, retries included (none is a delivery). */
  readonly deadAttempts: number;
  /**
   * The largest delayed backlog from the start of sending to the run's
   * end, in messages, from {@link delayedSource}; `null` when unknown.
   */
  readonly peakDelayedBacklog: number | null;
  /** Its mean over that time (two decimals); `null` when unknown. */
  readonly meanDelayedBacklog: number | null;
  /**
   * Where the figures above come from: `getDepth` (its `delayed`, sampled
   * every 250 ms, for queues that report it) or `bench` (the counting
   * wrapper: messages enqueued with a delay not yet due).
   */
  readonly delayedSource: "getDepth" | "bench";
  /** The bench's own count's peak, whatever the source. */
  readonly peakDelayedBacklogBench: number;
  /** Healthy deliveries per second (`deliveriesPerSecond`). */
  readonly healthyDeliveriesPerSecond: number | null;
  /** Healthy deliveries' latency (`latencyMs`). */
  readonly healthyLatencyMs: Percentiles | null;
  /**
   * The delayed backlog over the run, `[seconds from the start of sending,
   * messages]`, from the same source: at each `getDepth()` sample, or
   * every second (at most 600 points) from the bench's count; to read
   * beside `timeline.deliveries`.
   */
  readonly series: Series;
}

/**
 * How a queue's `getDepth()` compared with the truth over a run
 * (`--sample-depth`; docs/methodology.md defines the error), or the time a
 * call takes at given backlogs (dequeue-cost).  A queue without
 * `getDepth()` has only `supported: false`.
 */
export interface DepthRecord {
  /** Whether the installed queue has `getDepth()`, as its driver declares. */
  readonly supported: boolean;
  /** Samples judged (taken from the start of sending to the run's end). */
  readonly samples?: number;
  /** The largest error of a sample, in messages. */
  readonly maxAbsError?: number;
  /** The mean error over the samples, in messages. */
  readonly meanAbsError?: number;
  /** The largest true depth at a sample, for scale. */
  readonly peakTrueDepth?: number;
  /**
   * Milliseconds one `getDepth()` call took (median of several), by the
   * number of messages in the queue: `{ "0": 0.4, "10000": 3.1 }`.
   */
  readonly callMs?: Readonly<Record<string, number>>;
}

/** Fedify's log of a run (or of all runs of a configuration). */
export interface LogSummary {
  /**
   * The log file (the suite's log folder joined with the configuration
   * id), or `null` when the suite kept no log files.
   */
  readonly path: string | null;
  /** Records at level `warning`. */
  readonly warnings: number;
  /** Records at level `error` or `fatal`. */
  readonly errors: number;
}

/** A crash inflicted on purpose during a run. */
export interface CrashRecord {
  /** What was killed: the consuming process(es) or the queue server. */
  readonly target: "worker" | "server";
  /** Seconds from the first `sendActivity` call. */
  readonly atSeconds: number;
  /** Distinct deliveries that had arrived when it was killed. */
  readonly deliveredBefore: number;
}

/** A worker process that exited on its own and was started again. */
export interface RestartRecord {
  /** Seconds from the first `sendActivity` call. */
  readonly atSeconds: number;
  /** Distinct deliveries that had arrived when it was noticed. */
  readonly deliveredBefore: number;
  /** How it exited, with the last lines of its error output. */
  readonly exit: string;
}

/** Smallest and largest value of a figure over the runs. */
export interface Spread {
  /** Smallest. */
  readonly min: number;
  /** Largest. */
  readonly max: number;
}

/** A run whose figure deviates strongly from the other runs. */
export interface Outlier {
  /** Index into {@link ConfigurationResult.runs}. */
  readonly run: number;
  /** The figure, e.g. `totalSeconds`. */
  readonly metric: string;
  /** The run's value. */
  readonly value: number;
  /** The median over all runs. */
  readonly median: number;
}

/**
 * The outcome of one configuration.  With several runs, the top-level
 * figures are medians over the runs, `status` is the worst of them, and
 * {@link spread} gives each figure's min and max.
 */
export interface ConfigurationResult extends RunResult {
  /** e.g. `redis-x4`. */
  readonly id: string;
  /** Driver name ({@link BASELINE_DRIVER} for the direct-delivery floor). */
  readonly driver: string;
  /** `ParallelMessageQueue` workers (1: no wrapper). */
  readonly parallelism: number;
  /** Fedify's fanout option this configuration used. */
  readonly fanout?: FanoutMode;
  /** RSA modulus length of the sender's key in this configuration. */
  readonly rsaBits?: number;
  /** The ordering key this configuration passed, when keys are swept. */
  readonly orderingKey?: OrderingKey;
  /**
   * The parallel wrapper around the driver's queue (parallelism above 1):
   * Fedify's `ParallelMessageQueue`, or `awaiting`, ours that acknowledges
   * after processing (lib/queue/awaiting_parallel_queue.ts).
   */
  readonly parallelImpl?: ParallelImpl;
  /** Per-run figures, in run order. */
  readonly runs?: readonly RunResult[];
  /** Min and max of each numeric figure over the `ok` runs. */
  readonly spread?: Readonly<Record<string, Spread>>;
  /** Runs that deviate strongly from the others. */
  readonly outliers?: readonly Outlier[];
}

/** Parameters every configuration of a suite shares. */
export interface SuiteParams {
  /** How the fake inbox behaves; an instant, always-202 inbox when absent. */
  readonly inbox?: InboxProfile;
  /** Activities per configuration. */
  readonly total: number;
  /** Recipients per activity. */
  readonly recipients: number;
  /** Fedify's fanout option. */
  readonly fanout: FanoutMode;
  /** RSA modulus length of the sender's key. */
  readonly rsaBits: number;
  /** Time limit per configuration, in seconds. */
  readonly timeoutSeconds: number;
  /** Stall window, in seconds. */
  readonly stallTimeoutSeconds: number;
  /**
   * Per-row budget in seconds (`--budget`): a run still delivering when it
   * is reached, or sure not to finish within it, is stopped and reported
   * `incomplete` with an estimate.  Absent in files made before it existed.
   */
  readonly budgetSeconds?: number;
  /** `--until-done`: no budget; every run goes to its end or time limit. */
  readonly untilDone?: boolean;
  /** Runs per configuration; top-level figures are medians over them. */
  readonly runs?: number;
  /** Worker processes per queue shared between processes (default 1). */
  readonly workers?: number;
  /**
   * Axes swept within the suite; each configuration records its own value.
   * `fanout` and `rsaBits` above are the first of each.
   */
  readonly axes?: {
    readonly fanout: readonly FanoutMode[];
    readonly rsaBits: readonly number[];
    /** Absent in results written before ordering keys: `["none"]`. */
    readonly orderingKey?: readonly OrderingKey[];
  };
  /** What the sender sends; `create` when absent. */
  readonly workload?: Workload;
  /**
   * The ordering key of every `sendActivity`; `none` when absent.  With
   * several (`axes.orderingKey`), the first.
   */
  readonly orderingKey?: OrderingKey;
  /**
   * Parallel wrappers each configuration above parallelism 1 runs with;
   * `["fedify"]` when absent.  A list sweeps them.
   */
  readonly parallelImpl?: readonly ParallelImpl[];
  /** Lowest level of Fedify's log kept; `warning` when absent. */
  readonly logLevel?:
    | "trace"
    | "debug"
    | "info"
    | "warning"
    | "error"
    | "fatal";
  /** Crash tests: the share of deliveries after which to kill. */
  readonly crash?: {
    /** Kill the consuming process(es) with SIGKILL and start fresh ones. */
    readonly workerAt?: number;
    /** Kill the queue server the bench started and restart it on its data. */
    readonly serverAt?: number;
  };
  /**
   * Steady-load settings; absent for a burst suite (every activity sent at
   * once, then drained).
   */
  readonly load?: LoadParams;
  /** The scenario preset the parameters came from, if any. */
  readonly scenario?: string;
  /**
   * The seed of the order each round runs its configurations in
   * (`--order-seed`; a random one, recorded here, when not given).  The
   * order itself is the document's `rounds`.
   */
  readonly orderSeed?: number;
  /**
   * `--sample-depth`: runs sampled `getDepth()` and report its error
   * (`RunResult.depth`); absent when off.
   */
  readonly sampleDepth?: boolean;
}

/**
 * What a text field of an {@link Environment} says when the bench could not
 * read it (a number it could not read is `null`, or `0` for the memory).
 */
export const UNKNOWN = "unknown";

/** The machine and software a suite ran on, as the bench read them. */
export interface Environment {
  /** CPU model name, logical cores, and clock in MHz when known. */
  readonly cpu: {
    readonly model: string;
    readonly cores: number;
    readonly mhz: number | null;
  };
  /** Total memory in bytes. */
  readonly memoryBytes: number;
  /** Operating system: pretty name, kernel release, architecture. */
  readonly os: {
    readonly name: string;
    readonly kernel: string;
    readonly arch: string;
  };
  /** Runtime versions. */
  readonly runtime: {
    readonly deno: string;
    readonly v8: string;
    readonly typescript: string;
  };
  /** Exact versions of Fedify and every driver package, by package name. */
  readonly packages: Readonly<Record<string, string>>;
  /** Queue server versions, by service name (e.g. `redis`). */
  readonly servers: Readonly<Record<string, string>>;
  /** The sender's key types, e.g. `RSA-2048 (RSASSA-PKCS1-v1_5) + Ed25519`. */
  readonly senderKeys: string;
  /** Fedify's fanout option. */
  readonly fanout: string;
  /**
   * How fast the machine was at the suite's start and end; absent in files
   * written before it was recorded, or when the suite was not calibrated.
   */
  readonly calibration?: Calibration;
  /**
   * This project's git commit the suite ran from; `null` when it could not
   * be read (not a git checkout, e.g. imported as a library, or git
   * missing); absent in files written before it was recorded.
   */
  readonly commit?: Commit | null;
  /**
   * The command line as run: the bench's environment variables that were
   * set (`TOTAL=20`), the script (`bench.ts`), then its arguments; `null`
   * for a suite run through the library (`runBenchmark()`); absent in files
   * written before it was recorded.
   */
  readonly command?: readonly string[] | null;
}

/** A git commit of this project, read when the suite started. */
export interface Commit {
  /** The full hash of `HEAD`. */
  readonly sha: string;
  /**
   * Whether the working tree had changes not committed (`git status
   * --porcelain` printed anything, untracked files included).
   */
  readonly dirty: boolean;
}

/**
 * One calibration: the machine's rate at the work a delivery costs, each the
 * median over short slices, with their min and max as its noise.
 */
export interface CalibrationPoint {
  /** When it started, ISO 8601. */
  readonly measuredAt: string;
  /** Slices each rate was measured in. */
  readonly slices: number;
  /** Seconds per slice. */
  readonly sliceSeconds: number;
  /**
   * RSA-2048 RSASSA-PKCS1-v1_5 SHA-256 signatures per second, one at a time
   * on one core: the sender's dominant cost.
   */
  readonly rsaSignsPerSecond: number;
  /**
   * RSA-2048 signatures per second on {@link threads} threads at once, one
   * signature at a time on each: the parallelism a row could get.  Absent
   * in files written before it was recorded.
   */
  readonly rsaSignsPerSecondAllCores?: number;
  /** Threads of {@link rsaSignsPerSecondAllCores}: the machine's cores. */
  readonly threads?: number;
  /**
   * Loopback HTTP POSTs of a 2 KB JSON body per second, 8 in flight, to a
   * trivial server in its own process answering 202.
   */
  readonly loopbackRequestsPerSecond: number;
  /** Min and max of each rate over the slices. */
  readonly spread: {
    readonly rsaSignsPerSecond: Spread;
    readonly rsaSignsPerSecondAllCores?: Spread;
    readonly loopbackRequestsPerSecond: Spread;
  };
}

/** The machine's speed at the start and the end of a suite. */
export interface Calibration {
  /** Before the first configuration. */
  readonly start: CalibrationPoint;
  /** After the last; `null` while running or when the suite was stopped. */
  readonly end: CalibrationPoint | null;
}

/** The whole results file. */
export interface ResultsDocument {
  /** Always 1 for this shape. */
  readonly schemaVersion: 1;
  /** ISO 8601. */
  readonly startedAt: string;
  /** ISO 8601; `null` while the suite is still running. */
  readonly finishedAt: string | null;
  /** The suite's parameters. */
  readonly params: SuiteParams;
  /** Where it ran; absent in files written before it was recorded. */
  readonly environment?: Environment;
  /**
   * The suite's wall time so far, in seconds: from its start (before the
   * first calibration) to this write; at the end, the whole suite.  With
   * `--resume`, this invocation's only.  Absent in files written before it
   * was recorded.
   */
  readonly suiteSeconds?: number;
  /**
   * The order the configurations ran in: one array of result ids per
   * round (a round runs every configuration once; round 2 holds every
   * configuration's second run), each in the order measured.  Ids kept
   * from `--resume` are not in it.  Absent in files written before it was
   * recorded.
   */
  readonly rounds?: readonly (readonly string[])[];
  /**
   * One entry per configuration, in the suite's order of configurations
   * (baseline, then each driver as listed); {@link rounds} says in which
   * order they ran.
   */
  readonly results: readonly ConfigurationResult[];
}

/** The id of a configuration: the driver name, and `-xN` for parallelism N > 1. */
export function configurationId(driver: string, parallelism: number): string {
  return parallelism > 1 ? `${driver}-x${parallelism}` : driver;
}
