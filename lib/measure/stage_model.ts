/**
 * The model that predicts a row's deliveries per second from its own
 * measured stages, its concurrency and the cores it had, and the resource
 * that limits it.  Nothing in it is fitted to the rates it predicts: every
 * input is a time or a CPU cost per delivery measured in the row.
 *
 * Five bounds, in deliveries per second; the prediction is the smallest:
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
 * - **cpuLimit**, where each consuming process was held to a CPU limit
 *   (`--worker-cpu-limit`, or an agent's, such as a swarm replica's
 *   `cpus:`) = consumers × the limit in cores × 1000 ÷ the consuming
 *   processes' CPU ms per delivery.
 * - **pipeline**, where both of the last two apply: the rate of the dequeue
 *   loop and the slots together ({@link pipelineRate}), below both, since
 *   each waits on the other at times.
 *
 * The bounds are rates once deliveries flow; a row's measured rate also
 * holds the wait before its first delivery (from the first `sendActivity`
 * call: a worker in another process that sees the first message only at
 * its next poll, for example), measured in the row as its total minus its
 * receive time.  So the prediction is delivered ÷ (that wait + delivered ÷
 * the smallest bound), and {@link limitedBy} judges each resource by the
 * rate over the receive time.
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
} from "../results/stages_record.ts";
import { cpuMsPerDelivery, roundTo, sumOrNull } from "./stats.ts";

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
  /**
   * Seconds from the first `sendActivity` call to the first delivery;
   * `null` unknown (taken as 0).
   */
  readonly firstDeliverySeconds: number | null;
  /**
   * The CPU limit of each consuming process, cores; `null`: none (they
   * share {@link cores}).
   */
  readonly consumerCpuLimit?: number | null;
  /** The consuming processes (the workers, or the sender). */
  readonly consumers?: number;
  /** Their CPU seconds together; `null` unknown. */
  readonly consumerCpuSeconds?: number | null;
}

/** What {@link modelInputOf} reads of a row, as its result records it. */
export interface ModelRow {
  /** The row's stages. */
  readonly stages: StagesRecord;
  /** Deliveries that arrived. */
  readonly delivered: number;
  /** The measured rate. */
  readonly deliveriesPerSecond?: number | null;
  /** Seconds from the first `sendActivity` call to the last delivery. */
  readonly totalSeconds?: number | null;
  /** Seconds from the first delivery to the last. */
  readonly receiveSeconds?: number | null;
  /** The `ParallelMessageQueue` level. */
  readonly parallelism: number;
  /** Worker processes (0: the sender consumed). */
  readonly workers: number;
  /** CPU ms per delivery of the app. */
  readonly cpuMsPerDelivery?: number | null;
  /** CPU ms per delivery of the queue server. */
  readonly serverCpuMsPerDelivery?: number | null;
  /** The row's processes with their CPU seconds. */
  readonly processes: readonly {
    readonly role: string;
    readonly cpuSeconds?: number | null;
    readonly mainThreadCpuSeconds?: number | null;
  }[];
  /** The CPU limit of each consuming process, cores, when one was set. */
  readonly consumerCpuLimit?: number | null;
}

/**
 * The model's input from what a row records, on a machine of `cores`
 * cores: the same whether the row was just measured or read back from a
 * results file (`deno task remodel`).
 */
export function modelInputOf(row: ModelRow, cores: number): ModelInput {
  const inboxCpuMs = cpuMsPerDelivery(
    row.processes.filter((p) => p.role === "inbox").map((p) => p.cpuSeconds),
    row.delivered,
  );
  const role = row.workers > 0 ? "worker" : "sender";
  const consuming = row.processes.filter((p) => p.role === role);
  const loops = consuming.map((p) => p.mainThreadCpuSeconds)
    .filter((s): s is number => s != null);
  return {
    stages: row.stages,
    delivered: row.delivered,
    deliveriesPerSecond: row.deliveriesPerSecond ?? null,
    parallelism: row.parallelism,
    cores,
    appCpuMs: row.cpuMsPerDelivery ?? null,
    serverCpuMs: row.serverCpuMsPerDelivery ?? null,
    inboxCpuMs,
    eventLoopSeconds: loops.length === 0 ? null : Math.max(...loops),
    firstDeliverySeconds: row.totalSeconds == null ||
        row.receiveSeconds == null
      ? null
      : Math.max(0, row.totalSeconds - row.receiveSeconds),
    ...(row.consumerCpuLimit == null ? {} : {
      consumerCpuLimit: row.consumerCpuLimit,
      consumers: consuming.length,
      consumerCpuSeconds: sumOrNull(consuming.map((p) => p.cpuSeconds)),
    }),
  };
}

/** A row's prediction. */
export interface Prediction {
  /**
   * Deliveries/s: delivered ÷ (the wait before the first delivery +
   * delivered ÷ the smallest bound); `null` when no bound applies.
   */
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
  let slotMs: number | null = null;
  if (outbox != null && stages.slots > 0 && (parallel || stages.serial)) {
    const ms = outbox.meanMs + fanoutMs +
      (parallel ? (shares?.handoverMs ?? 0) + (shares?.pickupMs ?? 0) : 0) +
      (!parallel && turnaroundMs != null ? turnaroundMs : 0);
    slotMs = ms > 0 ? ms : null;
    consumer = ms > 0 ? stages.slots * 1000 / ms : null;
  }
  const dequeue = parallel && stages.serial && turnaroundMs != null &&
      turnaroundMs > 0
    ? 1000 / turnaroundMs
    : null;
  // The dequeue loop and the slots together: the loop holds one message
  // while every slot is busy, so each waits on the other at times.
  const pipeline = dequeue != null && slotMs != null
    ? pipelineRate(turnaroundMs!, slotMs, stages.slots)
    : null;
  const cpuLimit = cpuLimitBound(input);
  const bounds: PredictionBounds = {
    cpu: round(cpu),
    eventLoop: round(eventLoop),
    consumer: round(consumer),
    dequeue: round(dequeue),
    pipeline: round(pipeline),
    ...(input.consumerCpuLimit == null ? {} : { cpuLimit: round(cpuLimit) }),
  };
  const applicable = [cpu, eventLoop, consumer, dequeue, pipeline, cpuLimit]
    .filter((b) => b != null);
  if (applicable.length === 0) return { deliveriesPerSecond: null, bounds };
  const steady = Math.min(...applicable);
  const wait = input.firstDeliverySeconds ?? 0;
  return {
    deliveriesPerSecond: round(
      wait > 0 && input.delivered > 0
        ? input.delivered / (wait + input.delivered / steady)
        : steady,
    ),
    bounds: {
      ...bounds,
      ...(input.firstDeliverySeconds == null
        ? {}
        : { firstDeliverySeconds: roundTo(input.firstDeliverySeconds, 3) }),
    },
  };
}

/**
 * The bound of consuming processes each held to a CPU limit: consumers ×
 * the limit × 1000 ÷ their CPU ms per delivery; `null` without a limit or
 * their CPU time.
 */
function cpuLimitBound(input: ModelInput): number | null {
  const limit = input.consumerCpuLimit;
  const seconds = input.consumerCpuSeconds;
  if (limit == null || seconds == null || seconds <= 0) return null;
  if (input.delivered <= 0 || (input.consumers ?? 0) <= 0) return null;
  return input.consumers! * limit * input.delivered / seconds;
}

/**
 * Deliveries per second of a queue that hands one message at a time to
 * `slots` slots, with `turnaroundMs` between hand-offs and `slotMs` of a
 * slot's time per delivery: the dequeue loop and the slots as a birth–death
 * chain, with both times taken as exponentially distributed (the one
 * assumption; the means are the row's own).  State n = 0 … slots is the
 * number of busy slots with the loop dequeuing; state slots + 1 is every
 * slot busy and the loop holding the next message, blocked.  The loop
 * moves n up at rate 1 ÷ turnaround; busy slots finish at min(n, slots) ÷
 * slotMs, and a finish in the blocked state takes the held message at
 * once.  The rate is the chain's mean rate of finishes.
 */
export function pipelineRate(
  turnaroundMs: number,
  slotMs: number,
  slots: number,
): number {
  const up = 1 / turnaroundMs;
  const down = (n: number) => Math.min(n, slots) / slotMs;
  const weights = [1];
  for (let n = 1; n <= slots + 1; n++) {
    weights.push(weights[n - 1] * up / down(n));
  }
  const sum = weights.reduce((a, b) => a + b, 0);
  let rate = 0;
  for (let n = 1; n <= slots + 1; n++) rate += weights[n] / sum * down(n);
  return rate * 1000;
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
  const rate = flowingRate(input);
  if (rate == null || rate <= 0) return null;
  const { bounds } = prediction;
  const used = (
    ["cpu", "eventLoop", "consumer", "dequeue", "cpuLimit"] as const
  )
    .filter((name) => bounds[name] != null && bounds[name]! > 0)
    .map((name) => ({ name, utilisation: rate / bounds[name]! }))
    .sort((a, b) => b.utilisation - a.utilisation);
  if (used.length === 0) return null;
  // A CPU limit that is reached stretches every handler's time (the
  // process waits out its quota), so the slots' bound follows it: the limit
  // is the cause.
  const limit = used.find((u) => u.name === "cpuLimit");
  const top = limit != null && limit.utilisation >= LIMITED_AT
    ? limit
    : used[0];
  const pipeline = bounds.pipeline;
  if (
    top.utilisation < LIMITED_AT && pipeline != null && pipeline > 0 &&
    rate / pipeline >= LIMITED_AT
  ) {
    // Neither alone, but the two together: name the busier one.
    const pair = used.find((u) =>
      u.name === "consumer" || u.name === "dequeue"
    )!;
    return {
      resource: pair.name as "consumer" | "dequeue",
      evidence: `the dequeue loop and the ${input.stages.slots} slots ` +
        `together, each waiting on the other at times: at most ` +
        `${pipeline.toFixed(1)}/s, the rate ${
          Math.round(rate / pipeline * 100)
        }% of it (${evidenceOf(pair.name, pair.utilisation, input)})`,
      utilisation: roundTo(rate / pipeline, 3),
    };
  }
  const evidence = evidenceOf(top.name, top.utilisation, input);
  return {
    resource: top.utilisation >= LIMITED_AT
      ? RESOURCES[top.name]
      : "unexplained",
    evidence: top.utilisation >= LIMITED_AT
      ? evidence
      : `nothing measured is near its limit; the nearest: ${evidence}`,
    utilisation: roundTo(top.utilisation, 3),
  };
}

/**
 * The measured rate once deliveries flowed: delivered over the receive
 * time, the row's time less the wait before its first delivery.
 */
function flowingRate(input: ModelInput): number | null {
  const rate = input.deliveriesPerSecond;
  const wait = input.firstDeliverySeconds ?? 0;
  if (rate == null || rate <= 0 || wait <= 0) return rate;
  const seconds = input.delivered / rate - wait;
  return seconds > 0 ? input.delivered / seconds : rate;
}

/** Each bound's resource, as a row's `limitedBy` names it. */
const RESOURCES = {
  cpu: "cpu",
  eventLoop: "event-loop",
  consumer: "consumer",
  dequeue: "dequeue",
  cpuLimit: "cpu-limit",
} as const;

/** The figure that shows a resource's use, in words. */
function evidenceOf(
  resource: "cpu" | "eventLoop" | "consumer" | "dequeue" | "cpuLimit",
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
    case "cpuLimit": {
      const cores = (input.consumers ?? 0) * (input.consumerCpuLimit ?? 0);
      return `the consuming processes' CPU limit: ${input.consumers} × ` +
        `${input.consumerCpuLimit} cores, ${
          (utilisation * cores).toFixed(2)
        } ` +
        `of ${roundTo(cores, 2)} used (${percent})`;
    }
    case "dequeue":
      return `the queue's turnaround between hand-offs (${
        stages.byStage["queue.after"]?.meanMs.toFixed(2)
      } ms on average) takes ${percent} of the dequeue loop's time`;
  }
}

function round(value: number | null): number | null {
  return value == null || !Number.isFinite(value) ? null : roundTo(value, 1);
}
