/**
 * Watching a run while it waits for its deliveries: whether it is done
 * (every delivery accounted for, then a short settling time for late
 * duplicates), stalled (no new inbox request and no send progress for the
 * stall window), out of time, or stopped by its budget (`budget.ts`: a
 * run sure not to finish within its budget or the time limit is stopped
 * early, with an estimate of its total from `lib/measure/estimate.ts`); and
 * the live progress report about once a second.  The runner passes each poll's time and readings in, so
 * {@link ProgressWatch} reads no clock.
 *
 * @module
 */
import type { InboxStats } from "../../fake_inbox/protocol.ts";
import { type DeliveryPoint, estimateTotal } from "../measure/estimate.ts";
import type { CrashRecord } from "../results/mod.ts";
import { type RunLimits, type StopDecision, StopRule } from "./budget.ts";

/** After the last expected delivery, how long to keep counting duplicates. */
const SETTLE_MS = 1_000;
/** How often progress is reported. */
const REPORT_MS = 1_000;
/** The window of the current delivery rate. */
const RATE_WINDOW_MS = 5_000;

/** Progress of a running configuration, for live reporting. */
export interface Progress {
  /** Configuration id. */
  readonly id: string;
  /** Which run of the configuration (1-based) and of how many. */
  readonly run: number;
  /** Runs of this configuration in all. */
  readonly runs: number;
  /** Distinct deliveries so far. */
  readonly delivered: number;
  /** `total × recipients`. */
  readonly expected: number;
  /** Seconds since the first `sendActivity` call. */
  readonly elapsedSeconds: number;
  /** Deliveries per second over the last few seconds. */
  readonly currentRate: number;
  /** Activities whose `sendActivity` call returned. */
  readonly sent: number;
  /**
   * A burst run's estimated total so far (`lib/measure/estimate.ts`), in
   * seconds from the start; absent without a rate or without limits.
   */
  readonly estimatedTotalSeconds?: number;
}

/** What {@link ProgressWatch} watches, and whom it tells. */
export interface WatchOptions {
  /** Configuration id, for progress reports. */
  readonly id: string;
  /** Which run this is (1-based). */
  readonly run: number;
  /** Runs of this configuration in all. */
  readonly runs: number;
  /** `total × recipients`. */
  readonly expected: number;
  /** Seconds without activity after which the run has stalled. */
  readonly stallSeconds: number;
  /** Seconds after {@link startMs} at which the run is out of time. */
  readonly timeoutSeconds: number;
  /**
   * The budget and time limit of a burst run: with these, the watch stops
   * the run by the stop rule of `budget.ts` (verdict `stopped`) instead of
   * at the time limit (verdict `timed out`), and estimates its total.
   */
  readonly limits?: RunLimits;
  /**
   * For a queue whose dequeue reads its whole backlog, what a dequeue costs
   * per message waiting, ms (`Driver.dequeueMsPerQueued`): the estimate then
   * lets a delivery's time fall with the backlog.
   */
  readonly dequeueMsPerQueued?: number;
  /** Why the queue slows with its backlog (`Driver.backlogCause`). */
  readonly backlogCause?: string;
  /**
   * The handler slots each consumer has (`ParallelMessageQueue`'s level):
   * a delivery waits for its outbox handler's time ÷ this between two
   * dequeues, the part of its time that does not grow with the backlog.
   */
  readonly parallelism?: number;
  /**
   * Whether each activity goes through a fanout message whose handling
   * the runner counts (`Observation.fanoutsHandled`): the queue then fills
   * until every sent activity's fanout is handled, and until then its
   * estimate's rate has not settled.
   */
  readonly fansOut?: boolean;
  /** `performance.now()` when sending began. */
  readonly startMs: number;
  /** Called about every second. */
  readonly onProgress?: (progress: Progress) => void;
}

/** One poll's readings. */
export interface Observation {
  /** `performance.now()` of the poll. */
  readonly nowMs: number;
  /** The inbox's counters. */
  readonly stats: InboxStats;
  /** Activities whose `sendActivity` call returned so far. */
  readonly sent: number;
  /** Whether the send loop is over (the sender reported `sent`). */
  readonly sendDone: boolean;
  /** Fanout messages handled so far (with `WatchOptions.fansOut`). */
  readonly fanoutsHandled?: number;
  /**
   * The mean time of Fedify's outbox handler so far, ms, from the app's
   * stage timings; absent without them.
   */
  readonly outboxHandlerMs?: number;
}

/**
 * What the runner does next: poll again (`waiting`), stop because every
 * delivery is in (`done`), or give up (`stalled`, `timed out`, or
 * `stopped` by the stop rule: {@link ProgressWatch.stop} says why).
 */
export type Verdict = "waiting" | "done" | "stalled" | "timed out" | "stopped";

/**
 * Why the stop rule stopped a run, and its estimate then (only one whose
 * rate had settled, `StopDecision.estimate`).
 */
export type Stop = StopDecision;

/** Decides, poll by poll, whether a run is done, stalled or out of time. */
export class ProgressWatch {
  readonly #options: WatchOptions;
  /** Requests to the inbox at the last change. */
  #lastCount = -1;
  /** Activities sent at the last change. */
  #lastSent = -1;
  /** When anything last moved (or a crash or restart was handled). */
  #lastActivity: number;
  #lastReport = -Infinity;
  /** When every delivery was first accounted for. */
  #doneAt: number | undefined;
  /** `[nowMs, delivered]` over the rate window. */
  readonly #recent: [number, number][] = [];
  /** `[seconds since start, delivered]` at each poll where the count rose. */
  readonly #points: DeliveryPoint[] = [];
  /** `[seconds since start, fanouts handled]` at each poll where it rose. */
  readonly #fanoutPoints: DeliveryPoint[] = [];
  #stop: Stop | undefined;
  /**
   * When the queue filled (seconds since the start), `null` while it
   * fills, `undefined` when the run does not fan out.
   */
  #filledAt: number | null | undefined;
  /** The stop rule, when the run is held to limits. */
  readonly #rule: StopRule | null;

  /** A watch that starts counting at `options.startMs`. */
  constructor(options: WatchOptions) {
    this.#options = options;
    this.#lastActivity = options.startMs;
    this.#rule = options.limits == null
      ? null
      : new StopRule(options.limits, options.backlogCause);
    this.#filledAt = options.fansOut === true ? null : undefined;
  }

  /**
   * Counts `nowMs` as activity: a crash or a restart happened, which starts
   * the stall window again.
   */
  touch(nowMs: number): void {
    this.#lastActivity = nowMs;
  }

  /** When the watch began (`WatchOptions.startMs`), on its observations' clock. */
  get startMs(): number {
    return this.#options.startMs;
  }

  /**
   * When the queue filled (every activity's fanout handled), seconds since
   * the watch began; `null` while it has not, `undefined` for a run that
   * does not fan out.
   */
  get filledAtSeconds(): number | null | undefined {
    return this.#filledAt;
  }

  /** Why the run was stopped, once {@link observe} said `stopped`. */
  get stop(): Stop | undefined {
    return this.#stop;
  }

  /** Takes one poll's readings, reports progress if due, and decides. */
  observe(observation: Observation): Verdict {
    const { nowMs, stats, sent } = observation;
    const options = this.#options;
    if (stats.requests !== this.#lastCount || sent !== this.#lastSent) {
      this.#lastCount = stats.requests;
      this.#lastSent = sent;
      this.#lastActivity = nowMs;
    }
    const elapsedSeconds = (nowMs - options.startMs) / 1000;
    if (stats.delivered > (this.#points.at(-1)?.[1] ?? 0)) {
      this.#points.push([elapsedSeconds, stats.delivered]);
    }
    const recent = this.#recent;
    recent.push([nowMs, stats.delivered]);
    while (recent.length > 1 && nowMs - recent[0][0] > RATE_WINDOW_MS) {
      recent.shift();
    }
    const fanouts = observation.fanoutsHandled ?? 0;
    if (fanouts > (this.#fanoutPoints.at(-1)?.[1] ?? 0)) {
      this.#fanoutPoints.push([elapsedSeconds, fanouts]);
    }
    if (
      this.#filledAt === null && observation.sendDone && fanouts >= sent
    ) {
      this.#filledAt = elapsedSeconds;
    }
    const estimate = options.limits == null ? null : estimateTotal({
      points: this.#points,
      nowSeconds: elapsedSeconds,
      expected: options.expected - stats.goneDeliveries,
      dequeueMsPerQueued: options.dequeueMsPerQueued,
      filledAtSeconds: this.#filledAt,
      ...(this.#filledAt === null && observation.sendDone && sent > 0
        ? {
          fanouts: {
            points: this.#fanoutPoints,
            total: sent,
            perFanout: options.expected / sent,
          },
        }
        : {}),
      ...(observation.outboxHandlerMs == null ? {} : {
        fixedMsPerDelivery: observation.outboxHandlerMs /
          (options.parallelism ?? 1),
      }),
    });
    if (nowMs - this.#lastReport >= REPORT_MS) {
      this.#lastReport = nowMs;
      const [t0, d0] = recent[0];
      options.onProgress?.({
        id: options.id,
        run: options.run,
        runs: options.runs,
        delivered: stats.delivered,
        expected: options.expected,
        elapsedSeconds,
        currentRate: nowMs > t0
          ? (stats.delivered - d0) * 1000 / (nowMs - t0)
          : 0,
        sent,
        ...(estimate == null
          ? {}
          : { estimatedTotalSeconds: estimate.totalSeconds }),
      });
    }
    if (settled(stats) && observation.sendDone) {
      this.#doneAt ??= nowMs;
      return nowMs - this.#doneAt >= SETTLE_MS ? "done" : "waiting";
    }
    if (nowMs - this.#lastActivity >= options.stallSeconds * 1000) {
      return "stalled";
    }
    if (this.#rule != null) {
      const decision = this.#rule.decide(
        elapsedSeconds,
        estimate,
        observation.sendDone,
      );
      if (decision == null) return "waiting";
      this.#stop = decision;
      return "stopped";
    }
    if (nowMs - options.startMs >= options.timeoutSeconds * 1000) {
      return "timed out";
    }
    return "waiting";
  }
}

/**
 * Whether every expected delivery has been accounted for: each deliverable
 * one arrived, and each one to a gone recipient was attempted; deliveries
 * to dead recipients are never deliverable and not waited for.
 */
export function settled(stats: InboxStats): boolean {
  return stats.delivered >=
      stats.expected - stats.goneDeliveries - (stats.deadDeliveries ?? 0) &&
    stats.goneAttempted >= stats.goneDeliveries;
}

/** What {@link stallReason} says a stalled run lost, and to what. */
export interface Stall {
  /** The stall window, in seconds. */
  readonly stallSeconds: number;
  /** Deliverable deliveries that have not arrived. */
  readonly missing: number;
  /** The crashes inflicted so far. */
  readonly crashes: readonly CrashRecord[];
  /** The driver's name. */
  readonly driver: string;
  /** Whether the driver keeps its messages in a process's memory. */
  readonly volatile?: boolean;
}

/** The reason a stalled run gives, naming the crashes that caused it. */
export function stallReason(stall: Stall): string {
  const { stallSeconds, missing, crashes } = stall;
  if (crashes.length === 0) {
    return `stalled: no new delivery for ${stallSeconds} s`;
  }
  const targets = crashes.map((c) => c.target).join(" and ");
  return `stalled after the ${targets} crash: ${missing} deliveries ` +
    `lost (no new delivery for ${stallSeconds} s)` +
    (stall.volatile
      ? `; ${stall.driver} keeps its messages in the memory of ` +
        `the process that was killed, so it loses them by design`
      : "");
}
