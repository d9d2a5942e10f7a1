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
import type { Implementation } from "../measure/implementation.ts";
import { percentiles } from "../measure/histogram.ts";
import { buildTimeline } from "../measure/timeline.ts";
import type { ProcessSample } from "../system/procstat.ts";
import type {
  CrashRecord,
  Percentiles,
  ProcessRecord,
  RestartRecord,
  RunResult,
  ServerRecord,
} from "../results/types.ts";

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
  }
  /** Something broke: a process, the sender, a server, the inbox. */
  | { readonly status: "failed"; readonly reason: string };

/** A process measured from the start of sending to the end of the run. */
export interface MeasuredProcess {
  /** `inbox`, `sender`, `worker` or `server`. */
  readonly role: string;
  /** Its process id. */
  readonly pid: number;
  /**
   * Its reading when sending began; `null` when unreadable or no longer
   * comparable (a server restarted since), absent when never taken.
   */
  readonly start?: ProcessSample | null;
  /** Its reading at the end of the run; absent when the run failed. */
  readonly end?: ProcessSample | null;
}

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
  /** Every process of the run, the queue server's too, in start order. */
  readonly processes: readonly MeasuredProcess[];
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
  const delivered = stats?.delivered ?? 0;
  const gone = stats?.goneDeliveries ?? 0;
  const processes: ProcessRecord[] = run.processes.map((m) => ({
    role: m.role,
    pid: m.pid,
    cpuSeconds: m.start != null && m.end != null
      ? roundTo(m.end.cpuSeconds - m.start.cpuSeconds, 2)
      : null,
    peakRssBytes: m.end?.peakRssBytes ?? null,
  }));
  const cpuOf = (roles: readonly string[]) =>
    processes.filter((p) => roles.includes(p.role)).map((p) => p.cpuSeconds);
  return {
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
    latencyMs: latencies(run),
    sendCallMs: sent == null ? null : percentiles(sent.callMs),
    cpuMsPerDelivery: cpuMsPerDelivery(cpuOf(["sender", "worker"]), delivered),
    serverCpuMsPerDelivery: cpuMsPerDelivery(cpuOf(["server"]), delivered),
    implementation: run.implementation,
    timeline: sent == null || run.arrivals == null
      ? null
      : buildTimeline(run.arrivals.firstArrival, sent.sendStart, run.depth),
  };
}

function timing(run: RunObservations): Timing {
  const { end, stats, sent } = run;
  switch (end.status) {
    case "ok": {
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
      const elapsed = sent == null
        ? null
        : (end.endedAt - sent.sendStart) / 1000;
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
 * activity's `sendActivity` call; `null` without timings or arrivals.
 */
function latencies(run: RunObservations): Percentiles | null {
  const { sent, arrivals, recipients } = run;
  if (sent == null || arrivals == null) return null;
  const { callStarts } = sent;
  const first = arrivals.firstArrival;
  function* values(): Generator<number> {
    for (let k = 0; k < first.length; k++) {
      const at = first[k];
      if (at != null) yield at - callStarts[Math.floor(k / recipients)];
    }
  }
  return percentiles(values());
}

/**
 * CPU milliseconds per delivery of some processes, or `null` when there are
 * none, one could not be read, or nothing was delivered.
 */
export function cpuMsPerDelivery(
  cpuSeconds: readonly (number | null | undefined)[],
  delivered: number,
): number | null {
  if (delivered <= 0 || cpuSeconds.length === 0) return null;
  let sum = 0;
  for (const seconds of cpuSeconds) {
    if (seconds == null) return null;
    sum += seconds;
  }
  return roundTo(sum * 1000 / delivered, 3);
}

/** `value` rounded to `digits` decimal places. */
export function roundTo(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
