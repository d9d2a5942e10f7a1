/**
 * Where a delivery's time goes: the stages a row times (from Fedify's own
 * OpenTelemetry spans where Fedify has them, from the bench's wrapper at
 * the queue seam where it has none), what limits the row, and the rate a
 * model predicts from its stages.  The stages are declared here as data,
 * one entry each, for the recorder, the results and the reports alike.
 *
 * @module
 */

/** Where a stage's timings come from. */
export type StageSource = "fedify-span" | "queue-wrapper";

/** What one timing of a stage is of. */
export type StageUnit = "delivery" | "activity" | "call" | "message";

/** One stage, as declared. */
export interface StageSpec {
  /** Its name in the results (`stages.byStage`). */
  readonly name: string;
  /** A short label for tables and charts. */
  readonly label: string;
  /** What each timing is of. */
  readonly per: StageUnit;
  /** Where its timings come from. */
  readonly source: StageSource;
  /** The Fedify span it is read from, for `fedify-span` stages. */
  readonly span?: string;
  /**
   * Only spans of this kind: `consumer` for a queue's handler (Fedify names
   * the span of `sendActivity` itself `activitypub.fanout` or
   * `activitypub.outbox` too, as a producer or client span).
   */
  readonly spanKind?: "consumer";
  /** What it covers, for the docs and the report's legend. */
  readonly help: string;
}

/** The stages, in the order a delivery meets them. */
export const STAGES = [
  {
    name: "enqueue",
    label: "enqueue call",
    per: "call",
    source: "queue-wrapper",
    help: "one enqueue call on the driver's queue: the sender's " +
      "`enqueue` of a fanout message (or, without fanout, of an outbox " +
      "message), a worker's `enqueueMany` of a fanout's outbox messages",
  },
  {
    name: "fanout.wait",
    label: "fanout wait",
    per: "activity",
    source: "queue-wrapper",
    help: "a fanout message, from the start of its enqueue call to the " +
      "driver's queue handing it to a handler",
  },
  {
    name: "fanout",
    label: "fanout",
    per: "activity",
    source: "fedify-span",
    span: "activitypub.fanout",
    spanKind: "consumer",
    help: "Fedify's fanout handler: one outbox message built and " +
      "enqueued for every inbox",
  },
  {
    name: "queue.wait",
    label: "queue wait",
    per: "delivery",
    source: "queue-wrapper",
    help: "an outbox message, from the start of its enqueue call to the " +
      "driver's queue handing it to a handler: the wait behind earlier " +
      "messages and the dequeue itself",
  },
  {
    name: "queue.slot",
    label: "slot wait",
    per: "delivery",
    source: "queue-wrapper",
    help: "under `ParallelMessageQueue`: from the driver's queue handing " +
      "an outbox message over to the wrapper taking it on a free worker " +
      "slot (its handler returning to the driver's queue)",
  },
  {
    name: "queue.pickup",
    label: "slot pick-up",
    per: "message",
    source: "queue-wrapper",
    help: "under `ParallelMessageQueue`, for a message that waited for a " +
      "free slot: from a slot's handler ending to the wrapper taking that " +
      "message (Fedify's wrapper wakes each waiting message with a " +
      "`Promise.any` over the slots); the slot is free and idle meanwhile",
  },
  {
    name: "queue.handover",
    label: "slot hand-over",
    per: "message",
    source: "queue-wrapper",
    help: "under `ParallelMessageQueue`: from the wrapper taking a " +
      "message (outbox or fanout) on a free slot to Fedify's handler " +
      "starting on it; the slot is held and idle meanwhile (Fedify's " +
      "wrapper waits for a `setTimeout(0)` first)",
  },
  {
    name: "outbox",
    label: "outbox handler",
    per: "delivery",
    source: "fedify-span",
    span: "activitypub.outbox",
    spanKind: "consumer",
    help: "Fedify's outbox handler: one delivery's whole work (the " +
      "signing and the POST included)",
  },
  {
    name: "post",
    label: "POST",
    per: "delivery",
    source: "fedify-span",
    span: "activitypub.send_activity",
    help: "sending the activity to one inbox: signing the request and the " +
      "HTTP POST until the inbox answers",
  },
  {
    name: "sign",
    label: "signing",
    per: "delivery",
    source: "fedify-span",
    span: "http_signatures.sign",
    help: "signing one request (HTTP Signatures), inside the POST",
  },
  {
    name: "queue.after",
    label: "queue turnaround",
    per: "message",
    source: "queue-wrapper",
    help: "from the driver's handler returning to the driver's next " +
      "hand-off, counted only when the next message was already waiting " +
      "and no other handler of that queue was running: the acknowledgement " +
      "and the next dequeue",
  },
] as const satisfies readonly (StageSpec & { readonly name: StageName })[];

/** A stage's name: one of {@link STAGES}. */
export type StageName =
  | "enqueue"
  | "fanout.wait"
  | "fanout"
  | "queue.wait"
  | "queue.slot"
  | "queue.pickup"
  | "queue.handover"
  | "outbox"
  | "post"
  | "sign"
  | "queue.after";

/** The stage of that name. */
export function stageSpec(name: StageName): StageSpec {
  return STAGES.find((s) => s.name === name)!;
}

/**
 * One stage's timings over a row.
 * @additionalProperties false
 */
export interface StageFigures {
  /**
   * Timings recorded.
   * @minimum 1
   * @asType integer
   */
  readonly count: number;
  /**
   * Their mean, ms.
   * @minimum 0
   */
  readonly meanMs: number;
  /**
   * Their median, ms.
   * @minimum 0
   */
  readonly p50Ms: number;
  /**
   * Their 99th percentile, ms.
   * @minimum 0
   */
  readonly p99Ms: number;
  /**
   * Their sum, seconds.
   * @minimum 0
   */
  readonly totalSeconds: number;
  /**
   * The share of the row's consumer time it accounts for: its sum ÷
   * (`windowSeconds` × `slots`); absent for stages that are no consumer's
   * work (the waits, the enqueue calls).
   * @minimum 0
   */
  readonly share?: number;
}

/**
 * The stages of one row.
 * @additionalProperties false
 */
export interface StagesRecord {
  /**
   * By stage name; a stage with no timing is absent.
   * @propertyNames { "enum": ["enqueue", "fanout.wait", "fanout", "queue.wait",
   *   "queue.slot", "queue.pickup", "queue.handover", "outbox", "post", "sign",
   *   "queue.after"] }
   */
  readonly byStage: Partial<Record<StageName, StageFigures>>;
  /**
   * The consumer slots shares count against: the `ParallelMessageQueue`
   * level × the consuming processes, or for a queue that runs handlers
   * concurrently itself, the most handlers it had running at once.
   * @minimum 0
   * @asType integer
   */
  readonly slots: number;
  /**
   * Seconds the shares count against: the row's receive time.
   * @minimum 0
   */
  readonly windowSeconds: number;
  /**
   * The most handlers the driver's queue had running at once.
   * @minimum 0
   * @asType integer
   */
  readonly peakInFlight: number;
  /**
   * Whether the driver's queue hands a message over only after the last
   * handler returned (one at a time), as measured: `peakInFlight` is 1, or
   * at least 90% of its hand-offs came after the last handler returned.
   */
  readonly serial: boolean;
  /** What the timings leave out or mean differently for this row. */
  readonly notes: readonly string[];
}

/** The resource a row is limited by. */
export type LimitingResource =
  | "cpu"
  | "event-loop"
  | "consumer"
  | "dequeue"
  | "cpu-limit"
  | "unexplained";

/**
 * What limits a row, and the figure that shows it.
 * @additionalProperties false
 */
export interface LimitedByRecord {
  /**
   * `cpu`: the app, its queue server and the inbox together near the
   * cores they had; `event-loop`: a consuming process's main thread (its
   * event loop, which runs one thing at a time) near one core; `consumer`: the handler slots busy with deliveries
   * (latency × concurrency); `dequeue`: the queue's own turnaround
   * between hand-offs; `unexplained`: none of these near the rate.
   */
  readonly resource: LimitingResource;
  /** The figure, in words, e.g. "CPU 1.86 of 2 cores (93%)". */
  readonly evidence: string;
  /**
   * How much of that resource the row used: 0 to 1 (or above).
   * @minimum 0
   */
  readonly utilisation: number;
}

/**
 * The model's bounds, deliveries/s, each from the row's own measured
 * figures; the prediction is the smallest.  `null` where a bound does not
 * apply (no queue turnaround measured, no slot limit).
 * @additionalProperties false
 */
export interface PredictionBounds {
  /**
   * cores × 1000 ÷ (app + server + inbox CPU ms per delivery).
   * @minimum 0
   */
  readonly cpu: number | null;
  /**
   * 1000 ÷ the busiest consuming process's main-thread CPU ms per
   * delivery: an event loop runs on one core at most.
   * @minimum 0
   */
  readonly eventLoop: number | null;
  /**
   * slots × 1000 ÷ (consumer ms per delivery): the handlers' own time per
   * delivery (outbox handler, plus the fanout's share), under
   * `ParallelMessageQueue` the slot pick-up and hand-over, and for a
   * serial queue at ×1 its turnaround too.
   * @minimum 0
   */
  readonly consumer: number | null;
  /**
   * Under `ParallelMessageQueue`: 1000 ÷ the queue's turnaround, ms.
   * @minimum 0
   */
  readonly dequeue: number | null;
  /**
   * Where `consumer` and `dequeue` both apply: the rate of the serial
   * dequeue loop and the slots together, each waiting on the other at
   * times (a birth–death chain with exponential times of the measured
   * means; `pipelineRate` in `lib/measure/stage_model.ts`).  Absent in
   * files made before it.
   * @minimum 0
   */
  readonly pipeline?: number | null;
  /**
   * Where each consuming process was held to a CPU limit: consumers × the
   * limit in cores × 1000 ÷ their CPU ms per delivery.  Absent without a
   * limit.
   * @minimum 0
   */
  readonly cpuLimit?: number | null;
  /**
   * Not a bound: seconds from the first `sendActivity` call to the first
   * delivery, which the prediction adds to the deliveries at the smallest
   * bound.  Absent in files made before it, and where it is unknown.
   * @minimum 0
   */
  readonly firstDeliverySeconds?: number;
}

/** A row's queue work spread over its deliveries, ms per delivery. */
export interface PerDelivery {
  /** The fanout handler's time divided over the deliveries it made. */
  readonly fanoutMs: number;
  /**
   * The queue's turnaround for each hand-off a delivery needs (its outbox
   * message and its share of a fanout message); `null` when not measured.
   */
  readonly turnaroundMs: number | null;
  /**
   * Under `ParallelMessageQueue`: the slot hand-over for each message a
   * delivery needs (its outbox message and its share of a fanout
   * message), a slot's held-but-idle time; 0 when not measured.
   */
  readonly handoverMs: number;
  /**
   * Under `ParallelMessageQueue`: the slot pick-up per delivery (the sum
   * over the messages that waited for a slot, over the deliveries), a
   * freed slot's idle time while a message waited; 0 when not measured.
   */
  readonly pickupMs: number;
}

/**
 * The fanout's and the turnaround's share of one delivery, from a row's
 * stages (read by the model and by the report's split of a slot's time);
 * `null` without outbox handler timings.
 */
export function perDelivery(stages: StagesRecord): PerDelivery | null {
  const outbox = stages.byStage.outbox;
  if (outbox == null || outbox.count === 0) return null;
  const fanout = stages.byStage.fanout;
  const after = stages.byStage["queue.after"];
  const handover = stages.byStage["queue.handover"];
  const pickup = stages.byStage["queue.pickup"];
  const handoffs = (outbox.count + (fanout?.count ?? 0)) / outbox.count;
  return {
    fanoutMs: fanout == null ? 0 : fanout.totalSeconds * 1000 / outbox.count,
    turnaroundMs: after == null ? null : after.meanMs * handoffs,
    handoverMs: handover == null ? 0 : handover.meanMs * handoffs,
    pickupMs: pickup == null ? 0 : pickup.totalSeconds * 1000 / outbox.count,
  };
}
