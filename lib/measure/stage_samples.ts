/**
 * The timings of a delivery's stages as a process records them, before
 * they go to the runner: one list of durations per stage, taken in batches
 * (`take`), plus the most handlers the driver's queue had running at once.
 * The span processor (`span_stages.ts`) and the queue wrapper
 * (`lib/queue/timing_queue.ts`) write into it; the child sends each batch
 * as a `stages` message.
 *
 * @module
 */
import type { StageName } from "../results/stages_record.ts";

/** A batch of timings, ms, by stage; stages without a timing are absent. */
export type StageBatch = Partial<Record<StageName, number[]>>;

/** Durations are kept to the microsecond. */
const MICROSECOND = 1000;

/** Collects one process's stage timings. */
export class StageSamples {
  #batch: StageBatch = {};
  #peakInFlight = 0;

  /** Records one timing of `stage`, in ms; negative ones count as 0. */
  add(stage: StageName, ms: number): void {
    const value = Math.round(Math.max(0, ms) * MICROSECOND) / MICROSECOND;
    (this.#batch[stage] ??= []).push(value);
  }

  /** Notes how many handlers the driver's queue has running now. */
  inFlight(count: number): void {
    if (count > this.#peakInFlight) this.#peakInFlight = count;
  }

  /** The most handlers the driver's queue had running at once so far. */
  get peakInFlight(): number {
    return this.#peakInFlight;
  }

  /** The timings since the last take, and starts a new batch. */
  take(): StageBatch {
    const batch = this.#batch;
    this.#batch = {};
    return batch;
  }
}
