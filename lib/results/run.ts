/**
 * One run of a configuration in the results (`RunResult`): its timing,
 * accounting, latency, processes, server, log, crashes and, when it did not
 * finish, its estimate.
 *
 * @module
 */
import type { Implementation, RuntimeIdentity } from "./configuration.ts";
import type {
  DeploymentRecord,
  ProxyRecord,
  RoundTripsRecord,
} from "./deployment_record.ts";
import type { AppSignRate, CalibrationPoint } from "./environment_record.ts";
import type { DelayedRecord, DepthRecord, OrderingRecord } from "./fedify2.ts";
import type { Percentiles, Series, Status } from "./figures.ts";
import type {
  LimitedByRecord,
  PredictionBounds,
  StagesRecord,
} from "./stages_record.ts";
import type { IdleRecord, LoadRecord, MaxRateRecord } from "./load_record.ts";

/**
 * A process that took part in a run: the one record of a measured process,
 * from the meter that reads it (`lib/measure/process_meter.ts`) through the
 * run's outcome to the results file.
 */
export interface ProcessRecord {
  /** `inbox`, `sender`, `worker` or `server`. */
  readonly role: string;
  /**
   * Its process id (for checking that nothing outlives the run).
   * @minimum 1
   * @asType integer
   */
  readonly pid: number;
  /**
   * User + system CPU seconds from the start of sending to the end of the
   * run (start-up excluded); for a server, of its whole process tree.
   * `null` when it could not be read.
   * @minimum 0
   */
  readonly cpuSeconds?: number | null;
  /**
   * Peak resident set size in bytes (VmHWM), `null` when unknown.
   * @minimum 0
   */
  readonly peakRssBytes?: number | null;
  /**
   * Of {@link cpuSeconds}, the process's main thread's (a Deno process's
   * event loop, which runs one thing at a time); absent for a server and
   * where it could not be read.
   * @minimum 0
   */
  readonly mainThreadCpuSeconds?: number;
  /**
   * The network namespace it ran in (`net:[INODE]`, from
   * `/proc/PID/ns/net`) when it was not the bench's: a worker on a host of
   * its own (`--worker-hosts`).  Absent on the bench's host.
   * @pattern ^net:\[\d+\]$
   */
  readonly network?: string;
  /**
   * The agent that started it on its host (`--agents`, `--sender-agent`),
   * as the bench reached it (`host:port`); its figures were read there.
   * Absent for a process the bench started itself.
   */
  readonly agent?: string;
}

/** How a run went over time; seconds count from the first `sendActivity` call. */
export interface Timeline {
  /**
   * Width of the buckets of {@link deliveries}, seconds.
   * @exclusiveMinimum 0
   */
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
   * @minimum 0
   */
  readonly totalSeconds: number;
  /**
   * The optimistic bound: the rest taking 0.7 of the time estimated for it
   * (`REST_LOW`, the back-test's range; older files: 0.4, or the rest
   * going 4× faster).
   * @minimum 0
   */
  readonly lowSeconds: number;
  /**
   * The pessimistic bound: the rest taking 1.3 of its estimate (`REST_HIGH`;
   * older files: 1.2, or 2× slower).
   * @minimum 0
   */
  readonly highSeconds: number;
  /**
   * Deliveries per second over the window the estimate used.
   * @exclusiveMinimum 0
   */
  readonly deliveriesPerSecond: number;
  /**
   * Whether that rate had settled: the window's newer half within 25% of
   * its older half's rate; for a queue whose dequeue reads its backlog,
   * judged while its queue still filled, its cost per message waiting over
   * the halves, with 90% of its fanout messages handled (absent in files
   * made before the check).
   */
  readonly settled?: boolean;
  /** Deliveries per second over the window's older and newer halves. */
  readonly halfRates?: readonly [number, number];
  /** What stopped the run: its budget (`--budget`) or the time limit. */
  readonly stoppedBy: "budget" | "time limit";
  /**
   * How the estimate was made, in words.
   * @minLength 1
   */
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
  /**
   * Where it came from: `$REDIS_URL`, `PATH: /usr/bin/redis-server`, or
   * `fetched: …` (what the bench downloaded, and its cache folder).  Absent
   * from results written before it was recorded.
   */
  readonly origin?: string;
}

/** Everything measured in one run of a configuration. */
export interface RunResult {
  /** How it ended. */
  readonly status: Status;
  /** Why it is not `ok`; `null` when it is. */
  readonly reason: string | null;
  /**
   * `total × recipients`.
   * @minimum 0
   * @asType integer
   */
  readonly expected: number;
  /**
   * Distinct (activity, recipient) pairs that arrived.
   * @minimum 0
   * @asType integer
   */
  readonly delivered: number;
  /**
   * Arrivals beyond the first of a pair.
   * @minimum 0
   * @asType integer
   */
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
   * @minimum 0
   * @asType integer
   */
  readonly missing: number;
  /**
   * Inbox requests that were no expected delivery.
   * @minimum 0
   * @asType integer
   */
  readonly unexpected: number;
  /**
   * Requests for expected deliveries, accepted or refused.
   * @minimum 0
   * @asType integer
   */
  readonly attempts?: number;
  /**
   * Deliveries attempted again after a refused attempt.
   * @minimum 0
   * @asType integer
   */
  readonly retried?: number;
  /**
   * Deliveries addressed to recipients whose inbox is gone (410): never
   * deliverable, by design of the inbox profile.
   * @minimum 0
   * @asType integer
   */
  readonly gone?: number;
  /**
   * With `--crash-worker-at` / `--crash-server-at`: deliveries that never
   * arrived after the crash and restart (`missing` once the run settled).
   * @minimum 0
   * @asType integer
   */
  readonly lost?: number;
  /** The crashes the run inflicted, in order. */
  readonly crashes?: readonly CrashRecord[];
  /**
   * Worker processes that exited on their own after a server crash and were
   * started again, as a supervisor would, in order.
   */
  readonly restarts?: readonly RestartRecord[];
  /**
   * Duration of the `sendActivity` loop; `null` if it did not finish.
   * @minimum 0
   */
  readonly sendSeconds: number | null;
  /**
   * First to last delivery; `null` unless `ok`.
   * @minimum 0
   */
  readonly receiveSeconds: number | null;
  /**
   * First `sendActivity` call to last delivery; `null` unless `ok`.
   * @minimum 0
   */
  readonly totalSeconds: number | null;
  /**
   * `delivered / totalSeconds` when `ok`; for `incomplete`, the rate so far
   * (delivered / elapsed); `null` otherwise.
   * @minimum 0
   */
  readonly deliveriesPerSecond: number | null;
  /**
   * From the first `sendActivity` call to the end of waiting.
   * @minimum 0
   */
  readonly elapsedSeconds: number | null;
  /**
   * `sendActivity` calls that threw.
   * @minimum 0
   * @asType integer
   */
  readonly sendErrors: number;
  /**
   * Separate worker processes consuming the queue (0: the sender does).
   * @minimum 0
   * @asType integer
   */
  readonly workers: number;
  /**
   * The stall window actually applied, in seconds.
   * @exclusiveMinimum 0
   */
  readonly stallTimeoutSeconds: number;
  /**
   * The time limit applied, in seconds.
   * @exclusiveMinimum 0
   */
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
  /**
   * Sender + worker CPU milliseconds per distinct delivery.
   * @minimum 0
   */
  readonly cpuMsPerDelivery?: number | null;
  /**
   * CPU milliseconds per distinct delivery of the queue server the bench
   * started (its whole process tree); `null` without a server, when the
   * server was the user's own and not measured, or after a server crash.
   * @minimum 0
   */
  readonly serverCpuMsPerDelivery?: number | null;
  /**
   * Which implementation of the driver's queue package ran, as the process
   * that opened the queue resolved it; `null` for drivers without a queue.
   */
  readonly implementation?: Implementation | null;
  /**
   * The runtime the app's processes (the sender and the workers) ran on,
   * as the sender reported it; the bench's own is `environment.runtime`.
   * Absent in files written before `--runtime`.
   */
  readonly runtime?: RuntimeIdentity;
  /**
   * For a queue whose every dequeue reads its whole ready backlog: what a
   * dequeue costs per message waiting, ms (`Driver.dequeueMsPerQueued`),
   * with which a stopped row's estimate lets a delivery's time fall with the
   * backlog; absent otherwise and in files written before this field.
   * @minimum 0
   */
  readonly dequeueMsPerQueued?: number;
  /**
   * When the queue held all it would, seconds from the first `sendActivity`
   * call (as `totalSeconds`): the moment the bench saw the last activity's
   * fanout message handled, so that every delivery was enqueued.  Seen at
   * its polls (every 250 ms) from the workers' stage reports (every 500
   * ms), so up to about a second late, and it can fall after the last
   * delivery.  `null` when that had not happened by the row's end;
   * absent for a run that does not fan out (fewer recipients than Fedify's
   * fanout threshold, `--fanout skip`, no queue, the baseline) or whose
   * fanouts are not counted (`--no-stages`), and in files written before
   * this field.
   * @minimum 0
   */
  readonly filledAtSeconds?: number | null;
  /** Deliveries and queue depth over time; `null` when nothing arrived. */
  readonly timeline?: Timeline | null;
  /** Fedify's own log of the sender and worker processes. */
  readonly log?: LogSummary;
  /**
   * Closed-loop send loops of a `--senders` run (and the generator's row).
   * @minimum 1
   * @asType integer
   */
  readonly senders?: number;
  /**
   * In a closed-loop run (`--senders`, and the load generator's row):
   * `sendActivity` calls returned per second over the send loop.
   * @minimum 0
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
   * Where a delivery's time went: each stage's timings and share (see
   * `STAGES`); absent with `--no-stages`, for the baseline, and when no
   * process sent a timing.
   */
  readonly stages?: StagesRecord;
  /** What limits the row, and the figure that shows it; with `stages`. */
  readonly limitedBy?: LimitedByRecord | null;
  /**
   * The rate the model predicts from the row's own stages, concurrency and
   * cores (lib/measure/stage_model.ts states the formula), deliveries/s;
   * `null` when no bound applies.  With `stages`.
   * @minimum 0
   */
  readonly predictedDeliveriesPerSecond?: number | null;
  /**
   * The model's bounds, the smallest of which, after the wait before the
   * first delivery, gives the prediction.
   */
  readonly prediction?: PredictionBounds;
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
  /**
   * The sign rate of the runtime the app ran on, measured just before the
   * run in a process of that runtime; in suites with `--runtime` and a
   * calibration.
   */
  readonly appSignRate?: AppSignRate;
  /**
   * Where the app ran: its cores (`--cpus`) and its queue server's round
   * trip (`--queue-rtt`).  Absent in files written before it.
   */
  readonly deployment?: DeploymentRecord;
  /** What the delay proxies carried (`--queue-rtt`, a queue with a server). */
  readonly proxy?: ProxyRecord;
  /** Round trips to the queue server per delivery, with {@link proxy}. */
  readonly roundTripsPerDelivery?: RoundTripsRecord;
  /** `getDepth()` against the bench's own count (`--sample-depth`). */
  readonly depth?: DepthRecord;
  /** Dead inboxes and the delayed backlog (`--inbox-dead-rate`). */
  readonly delayed?: DelayedRecord;
}

/**
 * Fedify's log of a run (or of all runs of a configuration).
 * @additionalProperties false
 */
export interface LogSummary {
  /**
   * The log file (the suite's log folder joined with the configuration
   * id), or `null` when the suite kept no log files.
   */
  readonly path: string | null;
  /**
   * Records at level `warning`.
   * @minimum 0
   * @asType integer
   */
  readonly warnings: number;
  /**
   * Records at level `error` or `fatal`.
   * @minimum 0
   * @asType integer
   */
  readonly errors: number;
}

/** A crash inflicted on purpose during a run. */
export interface CrashRecord {
  /** What was killed: the consuming process(es) or the queue server. */
  readonly target: "worker" | "server";
  /**
   * Seconds from the first `sendActivity` call.
   * @minimum 0
   */
  readonly atSeconds: number;
  /**
   * Distinct deliveries that had arrived when it was killed.
   * @minimum 0
   * @asType integer
   */
  readonly deliveredBefore: number;
}

/** A worker process that exited on its own and was started again. */
export interface RestartRecord {
  /**
   * Seconds from the first `sendActivity` call.
   * @minimum 0
   */
  readonly atSeconds: number;
  /**
   * Distinct deliveries that had arrived when it was noticed.
   * @minimum 0
   * @asType integer
   */
  readonly deliveredBefore: number;
  /** How it exited, with the last lines of its error output. */
  readonly exit: string;
}
