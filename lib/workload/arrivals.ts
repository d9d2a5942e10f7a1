/**
 * The arrival schedule of an open-loop rate run: when each activity's
 * `sendActivity` call is due, as offsets from the start of sending.  Poisson
 * arrivals (exponential gaps) come from a seeded generator, so the same
 * rate, duration and seed always give the same schedule, in the runner that
 * sizes the run and in the sender that keeps to it.
 *
 * @module
 */
import type { ArrivalPattern } from "../results/mod.ts";

/** What a schedule is drawn from. */
export interface ScheduleOptions {
  /** Activities per second. */
  readonly rate: number;
  /** Seconds over which activities arrive. */
  readonly durationSeconds: number;
  /** Exponential (`poisson`) or even (`fixed`) gaps. */
  readonly arrivals: ArrivalPattern;
  /** Seed of the Poisson draw. */
  readonly seed: number;
}

/**
 * A small seeded pseudo-random generator (mulberry32) of numbers in [0, 1):
 * enough for spacing arrivals, and the same everywhere for one seed.
 */
export class SeededRandom {
  #state: number;

  /** A generator that starts from `seed` (any integer). */
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** The next number in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}

/**
 * The due time of every activity, in ms from the start of sending, in
 * increasing order, all before `durationSeconds`.
 * @throws {RangeError} If the rate or duration is not positive.
 */
export function arrivalSchedule(options: ScheduleOptions): number[] {
  const { rate, durationSeconds } = options;
  if (!(rate > 0) || !(durationSeconds > 0)) {
    throw new RangeError("a schedule needs a positive rate and duration");
  }
  const endMs = durationSeconds * 1000;
  const gapMs = 1000 / rate;
  const due: number[] = [];
  if (options.arrivals === "fixed") {
    for (let at = 0; at < endMs; at = due.length * gapMs) due.push(at);
    return due;
  }
  const random = new SeededRandom(options.seed);
  // Exponential gaps; the first arrival too waits a gap, as in a process
  // that was already running when measuring began.
  for (let at = -Math.log(1 - random.next()) * gapMs; at < endMs;) {
    due.push(at);
    at += -Math.log(1 - random.next()) * gapMs;
  }
  return due;
}
