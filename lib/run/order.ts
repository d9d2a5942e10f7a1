/**
 * The order a suite runs its rows in: in rounds (every configuration's
 * first run before any second run), each round shuffled by a seeded
 * pseudo-random generator, so that a host that slows down during a suite
 * spreads its drift over different rows each time instead of always the
 * last ones, and a seed repeats an order exactly.
 *
 * @module
 */
import { seededRandom } from "../../fake_inbox/behaviour.ts";

/** A random seed for {@link planRounds}: a 32-bit unsigned integer. */
export function randomSeed(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0];
}

/** A shuffled copy of `items` (Fisher–Yates, drawing from `random`). */
export function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Options of {@link planRounds}. */
export interface RoundOptions<T> {
  /**
   * Entries that run first in every round they are in, in their given
   * order, unshuffled: the steady-load generator's row, whose rate the
   * others' searches need.
   */
  readonly pinned?: (entry: T) => boolean;
  /** Entries that run in the first round only (a max-rate search). */
  readonly once?: (entry: T) => boolean;
}

/**
 * The rounds of a suite: `runs` rounds, each holding every entry once (an
 * entry `once` only in the first), pinned entries first, the rest shuffled
 * by one generator seeded with `seed` for all rounds: the same arguments
 * always give the same rounds.  The runner drops from later rounds an entry
 * whose run did not finish; the others keep their places.
 * @throws {RangeError} If `runs` is not a positive integer.
 */
export function planRounds<T>(
  entries: readonly T[],
  runs: number,
  seed: number,
  options: RoundOptions<T> = {},
): T[][] {
  if (!Number.isInteger(runs) || runs < 1) {
    throw new RangeError(`runs must be a positive integer, got ${runs}`);
  }
  const random = seededRandom(seed);
  const pinned = options.pinned ?? (() => false);
  const once = options.once ?? (() => false);
  const rounds: T[][] = [];
  for (let round = 1; round <= runs; round++) {
    const members = entries.filter((e) => round === 1 || !once(e));
    rounds.push([
      ...members.filter(pinned),
      ...shuffle(members.filter((e) => !pinned(e)), random),
    ]);
  }
  return rounds;
}
