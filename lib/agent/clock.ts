/**
 * An agent's clock against the bench's, estimated by round trips as NTP
 * does: each reading is the bench's clock before a request, the agent's as
 * it answers, and the bench's after the answer.  The agent read its clock
 * somewhere inside the round trip, so the reading with the shortest round
 * trip bounds the offset best: the offset is the agent's clock minus the
 * round trip's midpoint, within half the round trip either way.
 *
 * @module
 */
import type { ClockEstimate } from "../results/mod.ts";
import { roundTo } from "../measure/stats.ts";

/** Round trips per estimate. */
export const CLOCK_ROUND_TRIPS = 16;

/**
 * The estimate from readings `[benchBefore, agent, benchAfter]` (epoch ms):
 * the one with the shortest round trip.
 * @throws {RangeError} Without readings.
 */
export function estimateOffset(
  readings: readonly (readonly [number, number, number])[],
): ClockEstimate {
  if (readings.length === 0) {
    throw new RangeError("a clock estimate needs at least one reading");
  }
  const best = readings.reduce((a, b) => (b[2] - b[0] < a[2] - a[0] ? b : a));
  const [before, agent, after] = best;
  const roundTripMs = after - before;
  return {
    offsetMs: roundTo(agent - (before + after) / 2, 3),
    uncertaintyMs: roundTo(roundTripMs / 2, 3),
    roundTrips: readings.length,
  };
}

/**
 * Estimates an agent's offset from {@link CLOCK_ROUND_TRIPS} readings taken
 * one after another with `read`.
 */
export async function measureOffset(
  read: () => Promise<[number, number, number]>,
  roundTrips = CLOCK_ROUND_TRIPS,
): Promise<ClockEstimate> {
  const readings: [number, number, number][] = [];
  for (let i = 0; i < roundTrips; i++) readings.push(await read());
  return estimateOffset(readings);
}

/**
 * The uncertainty a row's figures carry from an agent's clock, from its
 * estimates before and after the row: the larger half-round-trip, plus half
 * the drift between them (the offset moved by that much during the row).
 */
export function rowUncertainty(
  before: ClockEstimate,
  after: ClockEstimate | null,
): number {
  if (after == null) return before.uncertaintyMs;
  const drift = Math.abs(after.offsetMs - before.offsetMs);
  return roundTo(
    Math.max(before.uncertaintyMs, after.uncertaintyMs) + drift / 2,
    3,
  );
}

/**
 * Whether a latency figure of `valueMs` is to be marked: its clock
 * uncertainty is above a tenth of it.
 */
export function clockMarks(uncertaintyMs: number, valueMs: number): boolean {
  return uncertaintyMs > valueMs / 10;
}
