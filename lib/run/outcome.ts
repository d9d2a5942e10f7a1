/**
 * The result of one run, built from what the run observed by a pure
 * function, {@link buildRunResult}: the accounting of every delivery
 * (delivered, missing, duplicated, gone, lost), the status and its reason,
 * the timing figures, CPU per delivery, latencies and the timeline.  The
 * runner gathers a {@link RunObservations} record; nothing here starts a
 * process or reads a clock.
 *
 * @module
 */
import type { InboxArrivals, InboxStats } from "../../fake_inbox/protocol.ts";
import type { SentMessage } from "../ipc/messages.ts";
import { percentiles } from "../measure/histogram.ts";
import { cpuMsPerDelivery, roundTo } from "../measure/stats.ts";
import { buildTimeline } from "../measure/timeline.ts";
import { type StageBatchMessage, summariseStages } from "../measure/stages.ts";
import { limitedBy, modelInputOf, predict } from "../measure/stage_model.ts";
import { type DepthObservations, depthRecord } from "./depth_outcome.ts";
import { type DelayedObservations, delayedRecord } from "./delayed_outcome.ts";
import { evaluateLoad } from "../workload/load.ts";
import type { RunLoad } from "../workload/plan.ts";
import type {
  CrashRecord,
  EstimateRecord,
  IdleRecord,
  Implementation,
  LoadRecord,
  Percentiles,
  ProcessRecord,
  RestartRecord,
  RunResult,
  RuntimeIdentity,
  ServerRecord,
} from "../results/mod.ts";

/** How a run ended. */
export type RunEnd =
  /** Every expected delivery was accounted for after sending ended. */
  | { readonly status: "ok" }
  /** Waiting stopped early: a stall, the time limit, or an interruption. */
  | {
    readonly status: "incomplete";
    /** Why, as the result says it. */
    readonly reason: string;
    /** Epoch ms when waiting stopped (after the final readings). */
    readonly endedAt: number;
    /** Stopped by its budget or the time limit while delivering: its estimate. */
    readonly estimate?: EstimateRecord;
  }
  /** Something broke: a process, the sender, a server, the inbox. */
  | { readonly status: "failed"; readonly reason: string };

/** Everything one run observed, from which its result is built. */
export interface RunObservations {
  /** How it ended. */
  readonly end: RunEnd;
  /** `total × recipients`. */
  readonly expected: number;
  /** Recipients per activity: delivery `k` belongs to activity `k / recipients`. */
  readonly recipients: number;
  /**
   * Whether the run was a crash test (`--crash-worker-at`,
   * `--crash-server-at`): only then does the result list crashes, restarts
   * and lost deliveries.
   */
  readonly crashTest: boolean;
  /** The inbox's latest counters; absent when never read. */
  readonly stats?: InboxStats;
  /** The inbox's arrivals per pair, read at the end; absent when not read. */
  readonly arrivals?: InboxArrivals;
  /** The sender's timings; absent when its send loop did not finish. */
  readonly sent?: SentMessage;
  /** The crashes inflicted, in order. */
  readonly crashes: readonly CrashRecord[];
  /** The workers started again after a server crash, in order. */
  readonly restarts: readonly RestartRecord[];
  /**
   * Every process of the run, the queue server's too, in start order, as
   * measured from the start of sending (`lib/measure/process_meter.ts`).
   */
  readonly processes: readonly ProcessRecord[];
  /** Queue depth samples, `[epochMs, queued]`. */
  readonly depth: readonly [number, number][];
  /** Separate worker processes (0: the sender consumes its queue). */
  readonly workers: number;
  /** The stall window applied, in seconds. */
  readonly stallTimeoutSeconds: number;
  /** The time limit applied, in seconds. */
  readonly timeoutSeconds: number;
  /** The queue server, if any. */
  readonly server: ServerRecord | null;
  /** What the driver's queue specifier resolved to, if known. */
  readonly implementation: Implementation | null;
  /** The runtime the sender reported running on; `null` when it did not. */
  readonly runtime?: RuntimeIdentity | null;
  /** See `RunResult.dequeueMsPerQueued`. */
  readonly dequeueMsPerQueued?: number;
  /** Epoch ms the sender started sending from, if it did. */
  readonly started?: number;
  /** What the run sent; a burst when absent. */
  readonly load?: RunLoad;
  /** A rate run's schedule, ms from {@link started}. */
  readonly schedule?: readonly number[];
  /** The idle measurement, when the run was one. */
  readonly idle?: IdleRecord;
  /** What `--sample-depth` observed; absent when off. */
  readonly depthCheck?: DepthObservations;
  /** What a run with dead inboxes observed; absent without. */
  readonly delayedCheck?: DelayedObservations;
  /** The stage timings the app's processes sent; absent when off. */
  readonly stages?: StageObservations;
}

/** What a run's stage timing observed. */
export interface StageObservations {
  /** Each app process's `stages` messages, one list per process. */
  readonly processes: readonly (readonly StageBatchMessage[])[];
  /** The `ParallelMessageQueue` level. */
  readonly parallelism: number;
  /** Whether Fedify's own `ParallelMessageQueue` wraps the queue. */
  readonly fedifyParallel: boolean;
  /** Whether the row has a queue. */
  readonly hasQueue: boolean;
  /** When the driver's queue lets go of a message, if it says. */
  readonly removes?: "before-handler" | "after-handler";
  /** The cores the machine has. */
  readonly cores: number;
  /** The CPU limit of each consuming process, cores, when one was set. */
  readonly consumerCpuLimit?: number;
}

/** The figures that depend on how the run ended. */
type Timing = Pick<
  RunResult,
  | "status"
  | "reason"
  | "receiveSeconds"
  | "totalSeconds"
  | "deliveriesPerSecond"
  | "elapsedSeconds"
>;

/**
 * `duplicatesPerActivity`: for each activity some of whose deliveries
 * arrived more than once, how many extra arrivals it had, largest first; no
 * key when nothing arrived twice or the arrivals were not read.
 */
function duplicatesPerActivity(
  run: RunObservations,
): { duplicatesPerActivity?: number[] } {
  const counts = run.arrivals?.counts;
  if (counts == null) return {};
  const perActivity = new Map<number, number>();
  counts.forEach((count, pair) => {
    if (count <= 1) return;
    const activity = Math.floor(pair / run.recipients);
    perActivity.set(activity, (perActivity.get(activity) ?? 0) + count - 1);
  });
  if (perActivity.size < 1) return {};
  return {
    duplicatesPerActivity: [...perActivity.values()].sort((a, b) => b - a),
  };
}

/**
 * The result of a run from what it observed.
 * @throws {TypeError} If an `ok` run lacks the inbox's counters or the
 *   sender's timings, which a run that settled always has.
 */
export function buildRunResult(run: RunObservations): RunResult {
  const { stats, sent, expected } = run;
  const due = dueTimes(run);
  const delivered = stats?.delivered ?? 0;
  const gone = stats?.goneDeliveries ?? 0;
  const { processes } = run;
  const cpuOf = (roles: readonly string[]) =>
    processes.filter((p) => roles.includes(p.role)).map((p) => p.cpuSeconds);
  const result: RunResult = {
    ...timing(run),
    expected,
    delivered,
    duplicates: stats?.duplicates ?? 0,
    ...duplicatesPerActivity(run),
    missing: expected - delivered - gone,
    unexpected: stats?.unexpected ?? 0,
    attempts: stats?.attempts ?? 0,
    retried: stats?.retried ?? 0,
    gone,
    ...(run.crashTest
      ? {
        crashes: run.crashes,
        restarts: run.restarts,
        lost: run.crashes.length > 0 ? expected - delivered - gone : 0,
      }
      : {}),
    sendSeconds: sent == null ? null : (sent.sendEnd - sent.sendStart) / 1000,
    sendErrors: sent?.sendErrors ?? 0,
    workers: run.workers,
    stallTimeoutSeconds: run.stallTimeoutSeconds,
    timeoutSeconds: run.timeoutSeconds,
    server: run.server,
    processes,
    // A rate run counts from the schedule, a burst from each call's start.
    latencyMs: latencies(run, due ?? sent?.callStarts),
    sendCallMs: sent == null ? null : percentiles(sent.callMs),
    cpuMsPerDelivery: cpuMsPerDelivery(cpuOf(["sender", "worker"]), delivered),
    serverCpuMsPerDelivery: cpuMsPerDelivery(cpuOf(["server"]), delivered),
    implementation: run.implementation,
    ...(run.runtime == null ? {} : { runtime: run.runtime }),
    ...(run.dequeueMsPerQueued == null
      ? {}
      : { dequeueMsPerQueued: run.dequeueMsPerQueued }),
    timeline: sendStart(run) == null || run.arrivals == null
      ? null
      : buildTimeline(run.arrivals.firstArrival, sendStart(run)!, run.depth),
    ...(run.load?.kind === "senders" ? { senders: run.load.senders } : {}),
    ...(run.load?.kind === "senders" && sent != null &&
        sent.sendEnd > sent.sendStart
      ? {
        callsPerSecond: roundTo(
          sent.callMs.length * 1000 / (sent.sendEnd - sent.sendStart),
          2,
        ),
      }
      : {}),
    ...loadOf(run, due),
    ...(run.idle == null ? {} : { idle: run.idle }),
    ...(run.end.status === "incomplete" && run.end.estimate != null
      ? { estimate: run.end.estimate }
      : {}),
    ...(run.depthCheck == null
      ? {}
      : { depth: depthRecord(run.depthCheck, run.started) }),
  };
  const figures = stageFigures(run, result);
  const withStages = { ...result, ...figures, ...stopCause(result, figures) };
  return run.delayedCheck == null ? withStages : {
    ...withStages,
    delayed: delayedRecord(run.delayedCheck, run.started, result),
  };
}

/**
 * The reason of a row stopped with an estimate, ended with what its stages
 * measured as its limit (the stage model's `limitedBy`): the measured
 * cause beside the estimate; nothing for other rows or without stages.
 */
function stopCause(
  result: RunResult,
  figures: Pick<RunResult, "limitedBy">,
): Partial<Pick<RunResult, "reason">> {
  const limit = figures.limitedBy;
  if (result.estimate == null || limit == null || result.reason == null) {
    return {};
  }
  return {
    reason: `${result.reason}; what limits it, by its stages: ` +
      `${limit.resource} (${limit.evidence})`,
  };
}

/**
 * The row's stages, the model's prediction from them and what limits the
 * row; nothing when stage timing was off or nothing was timed.
 */
function stageFigures(
  run: RunObservations,
  result: RunResult,
): Pick<
  RunResult,
  "stages" | "limitedBy" | "predictedDeliveriesPerSecond" | "prediction"
> {
  if (run.stages == null) return {};
  const rate = result.deliveriesPerSecond ?? null;
  const stages = summariseStages({
    processes: run.stages.processes,
    windowSeconds: rate == null || rate <= 0 ? null : result.delivered / rate,
    parallelism: run.stages.parallelism,
    fedifyParallel: run.stages.fedifyParallel,
    hasQueue: run.stages.hasQueue,
    delivered: result.delivered,
    ...(run.stages.removes == null ? {} : { removes: run.stages.removes }),
  });
  if (stages == null) return {};
  // A row without a queue (`none`) has no slot or dequeue bound: its CPU and
  // event-loop bounds still predict it.
  const input = modelInputOf({
    ...result,
    stages,
    parallelism: run.stages.parallelism,
    workers: run.workers,
    processes: run.processes,
    consumerCpuLimit: run.stages.consumerCpuLimit,
  }, run.stages.cores);
  const prediction = predict(input);
  return {
    stages,
    limitedBy: limitedBy(input, prediction),
    predictedDeliveriesPerSecond: prediction.deliveriesPerSecond,
    prediction: prediction.bounds,
  };
}

/**
 * When each activity of a rate run was due (epoch ms), from its schedule
 * and the sender's start; `undefined` for other runs or before sending.
 */
function dueTimes(run: RunObservations): number[] | undefined {
  const { schedule, started } = run;
  if (schedule == null || started == null) return undefined;
  return schedule.map((offset) => started + offset);
}

/**
 * A rate run's {@link LoadRecord}; none for other runs or when the run did
 * not get as far as sending and reading the inbox.
 */
function loadOf(
  run: RunObservations,
  dueMs: readonly number[] | undefined,
): { load?: LoadRecord } {
  const { load, started } = run;
  if (load?.kind !== "rate" || dueMs == null || started == null) return {};
  const endMs = run.end.status === "incomplete"
    ? run.end.endedAt
    : run.stats?.lastAt ?? run.sent?.sendEnd ?? started;
  if (run.arrivals == null) return {};
  const calledMs = run.sent?.callStarts;
  return {
    load: evaluateLoad({
      nominalRate: load.rate,
      arrivals: load.arrivals,
      durationSeconds: load.durationSeconds,
      startMs: started,
      dueMs,
      calledMs: calledMs?.length === dueMs.length ? calledMs : undefined,
      firstArrival: run.arrivals.firstArrival,
      recipients: run.recipients,
      endMs: Math.max(endMs, dueMs.at(-1) ?? started),
    }),
  };
}

/**
 * The timing of an `ok` run that expected no delivery (the idle
 * measurement, the load generator's run): the send loop's time, if any.
 */
function nothingExpected(sent: SentMessage | undefined): Timing {
  const seconds = sent == null ? null : (sent.sendEnd - sent.sendStart) / 1000;
  return {
    status: "ok",
    reason: null,
    receiveSeconds: null,
    totalSeconds: seconds,
    deliveriesPerSecond: null,
    elapsedSeconds: seconds,
  };
}

/**
 * Epoch ms of the first `sendActivity` call: from the sender's timings, or
 * from its start message when it was stopped before its send loop ended.
 */
function sendStart(run: RunObservations): number | undefined {
  return run.sent?.sendStart ?? run.started;
}

function timing(run: RunObservations): Timing {
  const { end, stats, sent } = run;
  switch (end.status) {
    case "ok": {
      if (run.expected === 0) return nothingExpected(sent);
      if (stats == null || sent == null) {
        throw new TypeError("an ok run lacks the inbox's or sender's figures");
      }
      // A settled run had arrivals, so both times are set.
      const last = stats.lastAt!;
      const totalSeconds = (last - sent.sendStart) / 1000;
      return {
        status: "ok",
        reason: null,
        receiveSeconds: (last - stats.firstAt!) / 1000,
        totalSeconds,
        deliveriesPerSecond: stats.delivered / totalSeconds,
        elapsedSeconds: totalSeconds,
      };
    }
    case "incomplete": {
      const start = sendStart(run);
      const elapsed = start == null ? null : (end.endedAt - start) / 1000;
      const delivered = stats?.delivered ?? 0;
      return {
        status: "incomplete",
        reason: end.reason,
        receiveSeconds: null,
        totalSeconds: null,
        deliveriesPerSecond: elapsed == null || elapsed <= 0
          ? null
          : delivered / elapsed,
        elapsedSeconds: elapsed,
      };
    }
    case "failed":
      return {
        status: "failed",
        reason: end.reason,
        receiveSeconds: null,
        totalSeconds: null,
        deliveriesPerSecond: null,
        elapsedSeconds: null,
      };
  }
}

/**
 * Per delivery that arrived: its first arrival minus the start of its
 * activity's `sendActivity` call, or in a rate run its scheduled start
 * (known without the sender's timings); `null` without timings or arrivals.
 * @param from Epoch ms each activity's latency counts from.
 */
function latencies(
  run: RunObservations,
  from: readonly number[] | undefined,
): Percentiles | null {
  const { arrivals, recipients } = run;
  if (arrivals == null || from == null) return null;
  const first = arrivals.firstArrival;
  function* values(): Generator<number> {
    for (let k = 0; k < first.length; k++) {
      const at = first[k];
      if (at != null) yield at - from![Math.floor(k / recipients)];
    }
  }
  return percentiles(values());
}
