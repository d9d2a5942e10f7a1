/**
 * A row's stages from what its processes sent (`stages` messages): each
 * stage's count, mean, median, 99th percentile and sum, and the share of
 * the row's consumer time it accounts for, with notes on what the timings
 * leave out for this row.  The model that predicts the row's rate from
 * these figures is `stage_model.ts`.
 *
 * @module
 */
import {
  type StageFigures,
  type StageName,
  STAGES,
  type StagesRecord,
} from "../results/stages_record.ts";
import { nearestRank, roundTo } from "./stats.ts";

/** One `stages` message, as far as the summary reads it. */
export interface StageBatchMessage {
  readonly samples: Readonly<Record<string, readonly number[]>>;
  readonly peakInFlight: number;
}

/** What {@link summariseStages} needs of a row. */
export interface StageInput {
  /** Each process's `stages` messages, one list per process. */
  readonly processes: readonly (readonly StageBatchMessage[])[];
  /** Seconds the row's rate counts over (delivered ÷ deliveries/s). */
  readonly windowSeconds: number | null;
  /** The `ParallelMessageQueue` level (1: none). */
  readonly parallelism: number;
  /** Whether Fedify's `ParallelMessageQueue` (not the awaiting one) wraps. */
  readonly fedifyParallel: boolean;
  /** Whether the row has a queue (not `none`). */
  readonly hasQueue: boolean;
  /** Deliveries that arrived, for the notes. */
  readonly delivered: number;
  /** When the driver's queue lets go of a message, if it says. */
  readonly removes?: "before-handler" | "after-handler";
}

/**
 * A queue counts as handing messages over one at a time when it did so
 * (each after the last handler had returned: a turnaround was timed) for
 * at least this share of its hand-offs, even if two handlers overlapped
 * now and then (Redis's fanout handler beside an outbox handler).
 */
export const SERIAL_SHARE = 0.9;

/** The stages that are a consumer's own work, whose share is given. */
const CONSUMER_WORK: ReadonlySet<StageName> = new Set([
  "fanout",
  "outbox",
  "post",
  "sign",
  "queue.pickup",
  "queue.handover",
  "queue.after",
]);

/**
 * Summarises a row's stage timings; `null` when no process sent any.
 */
export function summariseStages(input: StageInput): StagesRecord | null {
  const byName = new Map<StageName, number[]>();
  const peaks: number[] = [];
  for (const messages of input.processes) {
    let peak = 0;
    for (const message of messages) {
      peak = Math.max(peak, message.peakInFlight);
      for (const stage of STAGES) {
        const values = message.samples[stage.name];
        if (values == null || values.length === 0) continue;
        let list = byName.get(stage.name);
        if (list == null) byName.set(stage.name, list = []);
        for (const value of values) list.push(value);
      }
    }
    if (messages.length > 0) peaks.push(peak);
  }
  if (byName.size === 0) return null;
  const peakInFlight = peaks.reduce((sum, peak) => sum + peak, 0);
  const consumers = peaks.filter((peak) => peak > 0).length;
  const handoffs = (byName.get("outbox")?.length ?? 0) +
    (byName.get("fanout")?.length ?? 0);
  const oneAtATime = byName.get("queue.after")?.length ?? 0;
  const mostlySerial = handoffs > 0 &&
    oneAtATime >= SERIAL_SHARE * handoffs;
  const serial = peaks.every((peak) => peak <= 1) || mostlySerial;
  const slots = !input.hasQueue || consumers === 0
    ? null
    : input.parallelism > 1
    ? input.parallelism * consumers
    : serial
    ? consumers
    : peakInFlight;
  const window = input.windowSeconds;
  const byStage: Partial<Record<StageName, StageFigures>> = {};
  for (const stage of STAGES) {
    const values = byName.get(stage.name);
    if (values == null) continue;
    values.sort((a, b) => a - b);
    const total = values.reduce((sum, value) => sum + value, 0);
    const share = slots != null && window != null && window > 0 &&
        CONSUMER_WORK.has(stage.name)
      ? roundTo(total / 1000 / (window * slots), 4)
      : undefined;
    byStage[stage.name] = {
      count: values.length,
      meanMs: roundTo(total / values.length, 3),
      p50Ms: nearestRank(values, 0.5),
      p99Ms: nearestRank(values, 0.99),
      totalSeconds: roundTo(total / 1000, 3),
      ...(share == null ? {} : { share }),
    };
  }
  return {
    byStage,
    slots: slots ?? 0,
    windowSeconds: window == null ? 0 : roundTo(window, 3),
    peakInFlight,
    serial,
    notes: notes(input, byStage, serial, peakInFlight, mostlySerial),
  };
}

/** What the timings leave out, or mean differently, for this row. */
function notes(
  input: StageInput,
  byStage: Partial<Record<StageName, StageFigures>>,
  serial: boolean,
  peakInFlight: number,
  mostlySerial: boolean,
): string[] {
  const out: string[] = [];
  if (!input.hasQueue) {
    out.push(
      "no queue: Fedify delivers while `sendActivity` runs, so there is " +
        "no outbox handler, no queue stage and no share; signing and the " +
        "POST are timed per delivery",
    );
    return out;
  }
  if (input.removes === "before-handler") {
    out.push(
      "the queue removes a message before its handler runs: its " +
        "turnaround is the next dequeue alone",
    );
  } else if (input.removes === "after-handler") {
    out.push(
      "the queue acknowledges a message once its handler has settled: its " +
        "turnaround is that acknowledgement and the next dequeue",
    );
  }
  if (input.parallelism > 1 && input.fedifyParallel) {
    out.push(
      "`ParallelMessageQueue` returns to the driver's queue once a slot " +
        "is free, before the delivery is done (Finding 2): the queue " +
        "turnaround counts from there, and the outbox handler runs on the " +
        "slots",
    );
  }
  if (input.parallelism <= 1 && serial && peakInFlight > 1 && mostlySerial) {
    const after = byStage["queue.after"]?.count ?? 0;
    const handoffs = (byStage.outbox?.count ?? 0) +
      (byStage.fanout?.count ?? 0);
    out.push(
      `the queue ran up to ${peakInFlight} handlers at once, but handed ` +
        `${after} of its ${handoffs} messages over one at a time, after ` +
        "the last handler returned: it counts as handing out one at a time",
    );
  }
  if (input.parallelism <= 1 && !serial) {
    out.push(
      `the queue runs handlers concurrently itself (up to ${peakInFlight} ` +
        "at once): its turnaround between handlers is not measured, and " +
        "the shares count against that many slots",
    );
  }
  const outbox = byStage.outbox?.count ?? 0;
  if (outbox < input.delivered) {
    out.push(
      `the outbox handler was timed ${outbox} times for ${input.delivered} ` +
        "deliveries (timings of a killed process, and of the last moments " +
        "of a stopped row, never reached the bench)",
    );
  }
  return out;
}
