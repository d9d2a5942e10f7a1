/**
 * The model that predicts a row's deliveries per second from its own
 * measured stages, its concurrency and the cores it had, and the resource
 * that limits it.  Nothing in it is fitted to the rates it predicts: every
 * input is a time or a CPU cost per delivery measured in the row.
 *
 * Four bounds, in deliveries per second; the prediction is the smallest:
 *
 * - **cpu** = cores × 1000 ÷ (app + queue server + inbox CPU ms per
 *   delivery): every process of the row shares the machine's cores.
 * - **eventLoop** = delivered ÷ the busiest consuming process's main-thread
 *   CPU seconds: a Deno process's event loop runs on one thread, so it
 *   cannot do more than one core's work, whatever the cores.
 * - **consumer** = slots × 1000 ÷ consumer ms per delivery, where a
 *   delivery's consumer time is its outbox handler's mean plus the fanout
 *   handler's time divided over the deliveries it fanned out, plus, under
 *   `ParallelMessageQueue`, the slot pick-up and hand-over per delivery (a
 *   freed slot waiting to take a waiting message, and a taken slot whose
 *   handler has not started), or, for a queue that hands out
 *   one message at a time with no parallel wrapper, the queue's turnaround
 *   per hand-off (the handler and the dequeue then take turns).  Slots: the `ParallelMessageQueue` level × the consuming
 *   processes.  Little's law: busy slots = rate × time per delivery.
 * - **dequeue**, under `ParallelMessageQueue`: 1000 ÷ the queue's
 *   turnaround per delivery, since the driver's queue hands messages to
 *   the slots one at a time.
 *
 * A queue that runs handlers concurrently itself has no slot or turnaround
 * bound: only the CPU and event-loop bounds apply, and where its rate is held down by
 * something else (a poll interval, a lock) the prediction misses, which
 * {@link limitedBy} reports as `unexplained`.
 *
 * @module
 */
import {
  type LimitedByRecord,
  perDelivery,
  type PredictionBounds,
  type StagesRecord,
} from "../results/stages.ts";
import { roundTo } from "./stats.ts";

/** What the model reads of a row. */
export interface ModelInput {
  /** The row's stages. */
  readonly stages: StagesRecord;
  /** Deliveries that arrived. */
  readonly delivered: number;
  /** The measured rate, deliveries/s. */
  readonly deliveriesPerSecond: number | null;
  /** The `ParallelMessageQueue` level. */
  readonly parallelism: number;
  /** The cores the row's processes shared. */
  readonly cores: number;
  /** CPU ms per delivery of the app (sender and workers). */
  readonly appCpuMs: number | null;
  /** CPU ms per delivery of the queue server, if one was measured. */
  readonly serverCpuMs: number | null;
  /** CPU ms per delivery of the inbox. */
  readonly inboxCpuMs: number | null;
  /**
   * The main-thread CPU seconds of the busiest process that consumed the
   * queue (a worker, or the sender where it consumes); `null` unknown.
   */
  readonly eventLoopSeconds: number | null;
}

/** A row's prediction. */
export interface Prediction {
  /** The smallest bound, deliveries/s; `null` when no bound applies. */
  readonly deliveriesPerSecond: number | null;
  /** Each bound. */
  readonly bounds: PredictionBounds;
}

/** A utilisation at or above this is the resource that limits a row. */
export const LIMITED_AT = 0.85;

/** The model's bounds and prediction for a row. */
export function predict(input: ModelInput): Prediction {
  const { stages } = input;
  const outbox = stages.byStage.outbox;
  const cpuMs = (input.appCpuMs ?? 0) + (input.serverCpuMs ?? 0) +
    (input.inboxCpuMs ?? 0);
  const cpu = input.appCpuMs == null || cpuMs <= 0
    ? null
    : input.cores * 1000 / cpuMs;
  const eventLoop =
    input.eventLoopSeconds == null || input.eventLoopSeconds <= 0 ||
      input.delivered <= 0
      ? null
      : input.delivered / input.eventLoopSeconds;
  const shares = perDelivery(stages);
  const fanoutMs = shares?.fanoutMs ?? 0;
  const turnaroundMs = shares?.turnaroundMs ?? null;
  const parallel = input.parallelism > 1;
  let consumer: number | null = null;
  if (outbox != null && stages.slots > 0 && (parallel || stages.serial)) {
    const ms = outbox.meanMs + fanoutMs +
      (parallel ? (shares?.handoverMs ?? 0) + (shares?.pickupMs ?? 0) : 0) +
      (!parallel && turnaroundMs != null ? turnaroundMs : 0);
    consumer = ms > 0 ? stages.slots * 1000 / ms : null;
  }
  const dequeue = parallel && stages.serial && turnaroundMs != null &&
      turnaroundMs > 0
    ? 1000 / turnaroundMs
    : null;
  const bounds: PredictionBounds = {
    cpu: round(cpu),
    eventLoop: round(eventLoop),
    consumer: round(consumer),
    dequeue: round(dequeue),
  };
  const applicable = [cpu, eventLoop, consumer, dequeue].filter((b) =>
    b != null
  );
  return {
    deliveriesPerSecond: applicable.length === 0
      ? null
      : round(Math.min(...applicable)),
    bounds,
  };
}

/**
 * The resource that limits a row: the bound the measured rate comes
 * closest to, when the rate reaches {@link LIMITED_AT} of it; otherwise
 * `unexplained`, with the nearest bound's figure.  `null` without a rate
 * or a bound.
 */
export function limitedBy(
  input: ModelInput,
  prediction: Prediction,
): LimitedByRecord | null {
  const rate = input.deliveriesPerSecond;
  if (rate == null || rate <= 0) return null;
  const { bounds } = prediction;
  const used = (["cpu", "eventLoop", "consumer", "dequeue"] as const)
    .filter((name) => bounds[name] != null && bounds[name]! > 0)
    .map((name) => ({ name, utilisation: rate / bounds[name]! }))
    .sort((a, b) => b.utilisation - a.utilisation);
  if (used.length === 0) return null;
  const top = used[0];
  const evidence = evidenceOf(top.name, top.utilisation, input);
  return {
    resource: top.utilisation >= LIMITED_AT
      ? (top.name === "eventLoop" ? "event-loop" : top.name)
      : "unexplained",
    evidence: top.utilisation >= LIMITED_AT
      ? evidence
      : `nothing measured is near its limit; the nearest: ${evidence}`,
    utilisation: roundTo(top.utilisation, 3),
  };
}

/** The figure that shows a resource's use, in words. */
function evidenceOf(
  resource: "cpu" | "eventLoop" | "consumer" | "dequeue",
  utilisation: number,
  input: ModelInput,
): string {
  const percent = `${Math.round(utilisation * 100)}%`;
  const { stages } = input;
  switch (resource) {
    case "cpu":
      return `CPU ${(utilisation * input.cores).toFixed(2)} of ` +
        `${input.cores} cores (${percent})`;
    case "eventLoop":
      return `the busiest consuming process's event loop (its main ` +
        `thread) busy ${utilisation.toFixed(2)} of one core (${percent})`;
    case "consumer":
      return `${stages.slots} handler ${
        stages.slots === 1 ? "slot" : "slots"
      } busy ${percent} of the time (outbox handler ${
        stages.byStage.outbox?.meanMs.toFixed(2)
      } ms per delivery on average)`;
    case "dequeue":
      return `the queue's turnaround between hand-offs (${
        stages.byStage["queue.after"]?.meanMs.toFixed(2)
      } ms on average) takes ${percent} of the dequeue loop's time`;
  }
}

function round(value: number | null): number | null {
  return value == null || !Number.isFinite(value) ? null : roundTo(value, 1);
}
