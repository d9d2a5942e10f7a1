/**
 * How far a queue's `getDepth()` is from the truth: the messages enqueued
 * minus the messages handed to a handler, as the bench's counting wrapper
 * (`lib/queue/counting_queue.ts`) logged them in every process that opened
 * the queue.
 *
 * The definition, which docs/methodology.md repeats:
 *
 * - Every process logs each `enqueue()`/`enqueueMany()` call with the epoch
 *   ms it was called and returned and how many messages it carried, and the
 *   epoch ms each message was handed to a handler.  All processes read the
 *   same clock (`performance.timeOrigin + performance.now()`).
 * - At an instant `t`, the queue held at least `lower(t)` = messages of
 *   enqueue calls that had returned by `t` minus messages handed out by
 *   `t`, and at most `upper(t)` = messages of enqueue calls that had begun
 *   by `t` minus messages handed out by `t`.
 * - A `getDepth()` call that began at `s` and returned at `e` may report
 *   any value the queue held in between: the truth is the range from the
 *   least `lower` to the greatest `upper` over `[s, e]`.  Its error is 0
 *   inside that range and the distance to the range outside it.
 *
 * Samples are judged only inside the window the caller gives (from the
 * start of sending to the end of the run) and up to the horizon every
 * process's log is complete to.
 *
 * @module
 */
import { roundTo } from "./stats.ts";

/** One logged enqueue call: when it began and returned, and its messages. */
export interface EnqueueEvent {
  /** Epoch ms the call began. */
  readonly calledAt: number;
  /** Epoch ms the call returned. */
  readonly returnedAt: number;
  /** Messages it carried (1 for `enqueue()`). */
  readonly count: number;
  /** Its `delay` option in ms; 0 without one. */
  readonly delayMs: number;
}

/** One `getDepth()` call: when it began and returned, and what it said. */
export interface DepthSample {
  /** Epoch ms the call began. */
  readonly start: number;
  /** Epoch ms the call returned. */
  readonly end: number;
  /** Its `queued`. */
  readonly queued: number;
  /** Its `delayed`, when the queue reports it. */
  readonly delayed?: number;
}

/** What {@link depthError} compares. */
export interface DepthErrorInput {
  /** Every enqueue call of every process. */
  readonly enqueues: readonly EnqueueEvent[];
  /** Epoch ms of every message handed to a handler, in every process. */
  readonly handled: readonly number[];
  /** The `getDepth()` calls. */
  readonly samples: readonly DepthSample[];
  /** Samples judged: those that began at or after this epoch ms… */
  readonly from: number;
  /** …and returned at or before this one (the logs' horizon, the run's end). */
  readonly to: number;
}

/** The error figures of a run's `getDepth()` samples. */
export interface DepthErrorFigures {
  /** Samples judged. */
  readonly samples: number;
  /** The largest error, in messages; 0 without samples. */
  readonly maxAbsError: number;
  /** The mean error, in messages (two decimals); 0 without samples. */
  readonly meanAbsError: number;
  /** The largest true depth (`upper`) at any sample, for scale. */
  readonly peakTrueDepth: number;
}

/**
 * A step function of time: the running sum of `+n`/`-n` steps, read at an
 * instant or as its least and greatest value over an interval.
 */
export class StepFunction {
  readonly #times: number[];
  readonly #values: number[];

  /** Builds the function from `[epochMs, change]` steps in any order. */
  constructor(steps: readonly (readonly [number, number])[]) {
    const sorted = [...steps].sort((a, b) => a[0] - b[0]);
    this.#times = [];
    this.#values = [];
    let sum = 0;
    for (const [at, change] of sorted) {
      sum += change;
      const last = this.#times.length - 1;
      if (last >= 0 && this.#times[last] === at) this.#values[last] = sum;
      else {
        this.#times.push(at);
        this.#values.push(sum);
      }
    }
  }

  /** Index of the last step at or before `t`, or -1. */
  #indexAt(t: number): number {
    let lo = 0;
    let hi = this.#times.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.#times[mid] <= t) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  /** The value at `t` (every step at or before `t` counted). */
  at(t: number): number {
    const i = this.#indexAt(t);
    return i < 0 ? 0 : this.#values[i];
  }

  /** The time-weighted mean over `[from, to]`; the value at `from` if empty. */
  mean(from: number, to: number): number {
    if (!(to > from)) return this.at(from);
    let area = 0;
    let at = from;
    let value = this.at(from);
    for (let i = this.#indexAt(from) + 1; i < this.#times.length; i++) {
      if (this.#times[i] > to) break;
      area += value * (this.#times[i] - at);
      at = this.#times[i];
      value = this.#values[i];
    }
    area += value * (to - at);
    return area / (to - from);
  }

  /** The least and greatest value over `[from, to]`. */
  range(from: number, to: number): [number, number] {
    let min = this.at(from);
    let max = min;
    for (let i = this.#indexAt(from) + 1; i < this.#times.length; i++) {
      if (this.#times[i] > to) break;
      min = Math.min(min, this.#values[i]);
      max = Math.max(max, this.#values[i]);
    }
    return [min, max];
  }
}

/** The true depth's bounds over time, from the logs of every process. */
export interface TrueDepth {
  /** Messages surely in the queue. */
  readonly lower: StepFunction;
  /** Messages possibly in the queue. */
  readonly upper: StepFunction;
}

/** Builds the true depth's bounds from the enqueue and hand-out logs. */
export function trueDepth(
  enqueues: readonly EnqueueEvent[],
  handled: readonly number[],
): TrueDepth {
  const out = handled.map((at): [number, number] => [at, -1]);
  return {
    lower: new StepFunction([
      ...enqueues.map((e): [number, number] => [e.returnedAt, e.count]),
      ...out,
    ]),
    upper: new StepFunction([
      ...enqueues.map((e): [number, number] => [e.calledAt, e.count]),
      ...out,
    ]),
  };
}

/** The error of one sample against the truth (0 inside its range). */
export function sampleError(truth: TrueDepth, sample: DepthSample): number {
  const [lo] = truth.lower.range(sample.start, sample.end);
  const [, hi] = truth.upper.range(sample.start, sample.end);
  if (sample.queued < lo) return lo - sample.queued;
  if (sample.queued > hi) return sample.queued - hi;
  return 0;
}

/** Compares every sample inside the window with the truth. */
export function depthError(input: DepthErrorInput): DepthErrorFigures {
  const truth = trueDepth(input.enqueues, input.handled);
  const judged = input.samples.filter((s) =>
    s.start >= input.from && s.end <= input.to
  );
  let max = 0;
  let sum = 0;
  let peak = 0;
  for (const sample of judged) {
    const error = sampleError(truth, sample);
    max = Math.max(max, error);
    sum += error;
    peak = Math.max(peak, truth.upper.range(sample.start, sample.end)[1]);
  }
  return {
    samples: judged.length,
    maxAbsError: max,
    meanAbsError: judged.length === 0 ? 0 : roundTo(sum / judged.length, 2),
    peakTrueDepth: peak,
  };
}

/**
 * Messages enqueued with a delay that is not yet due at `t`: the bench's
 * own count of a delayed backlog, for queues whose `getDepth()` does not
 * report one.  A message counts from its enqueue call's return until its
 * call's start plus its delay.
 */
export function delayedBacklog(
  enqueues: readonly EnqueueEvent[],
): StepFunction {
  const steps: [number, number][] = [];
  for (const e of enqueues) {
    if (e.delayMs <= 0) continue;
    const due = e.calledAt + e.delayMs;
    if (due <= e.returnedAt) continue;
    steps.push([e.returnedAt, e.count], [due, -e.count]);
  }
  return new StepFunction(steps);
}
