import assert from "node:assert/strict";
import { arrivalSchedule } from "./arrivals.ts";
import { evaluateLoad, leastSquares } from "./load.ts";

const START = 1_700_000_000_000;

/**
 * A rate run against a queue that delivers each activity's recipients
 * `latencyMs` after its *scheduled* start, at most `capacity` activities per
 * second (one at a time, in order).
 */
function simulate(options: {
  rate: number;
  capacity: number;
  latencyMs: number;
  recipients?: number;
  durationSeconds?: number;
  senderStallMs?: number;
}) {
  const recipients = options.recipients ?? 4;
  const durationSeconds = options.durationSeconds ?? 30;
  const offsets = arrivalSchedule({
    rate: options.rate,
    durationSeconds,
    arrivals: "poisson",
    seed: 11,
  });
  const dueMs = offsets.map((o) => START + o);
  // A sender that stalls for a while starts the calls due meanwhile late.
  const calledMs = dueMs.map((due) =>
    options.senderStallMs != null && due - START < options.senderStallMs
      ? START + options.senderStallMs
      : due
  );
  const firstArrival: number[] = [];
  let free = START;
  for (const called of calledMs) {
    const done = Math.max(called, free) + 1000 / options.capacity;
    free = done;
    for (let r = 0; r < recipients; r++) {
      firstArrival.push(done + options.latencyMs);
    }
  }
  return {
    nominalRate: options.rate,
    arrivals: "poisson" as const,
    durationSeconds,
    startMs: START,
    dueMs,
    calledMs,
    firstArrival,
    recipients,
    endMs: START + durationSeconds * 1000 + 5000,
  };
}

Deno.test("a queue with room to spare keeps up", () => {
  const load = evaluateLoad(
    simulate({ rate: 20, capacity: 60, latencyMs: 30 }),
  );
  assert.equal(load.verdict, "kept-up", JSON.stringify(load));
  assert.ok(Math.abs(load.achievedRate - load.offeredRate) <= load.noise);
  assert.ok(load.backlogAtEnd < 20 * 4, `${load.backlogAtEnd}`);
  assert.equal(load.startLagMs?.max, 0);
});

Deno.test("a queue slower than the offer falls behind, its backlog growing", () => {
  const load = evaluateLoad(
    simulate({ rate: 20, capacity: 12, latencyMs: 30 }),
  );
  assert.equal(load.verdict, "fell-behind");
  assert.ok(load.achievedRate < 14, `${load.achievedRate}`);
  // About (20 − 12) × 4 deliveries a second more waiting.
  assert.ok(load.backlogSlope > 20, `${load.backlogSlope}`);
  assert.ok(load.backlogAtEnd > 8 * 4 * 20, `${load.backlogAtEnd}`);
  // The series runs to the end of watching and drains no faster than 12/s.
  const [lastSeconds] = load.backlog.at(-1)!;
  assert.equal(lastSeconds, 35);
});

Deno.test("backlog counts from the schedule: a stalled sender cannot hide it", () => {
  // The sender stalls for the first 10 s; the queue is fast.  The backlog at
  // 9 s counts every delivery due by then, none of which was even enqueued.
  const run = simulate({
    rate: 10,
    capacity: 1000,
    latencyMs: 5,
    senderStallMs: 10_000,
  });
  const load = evaluateLoad(run);
  const at9 = load.backlog.find(([s]) => s === 9)![1];
  const dueBy9 = run.dueMs.filter((d) => d <= START + 9000).length;
  assert.equal(at9, dueBy9 * 4);
  assert.ok(load.startLagMs!.max >= 9000);
});

Deno.test("least squares: slope and its error", () => {
  const line = leastSquares([0, 1, 2, 3], [1, 3, 5, 7]);
  assert.equal(line.slope, 2);
  assert.equal(line.error, 0);
  assert.deepEqual(leastSquares([1, 1], [2, 3]), { slope: 0, error: 0 });
});

Deno.test("a queue over half a window behind fell behind, even with too few arrivals for a rate", () => {
  // A queue that delivers nothing within the window (a one-minute poll, say)
  // at a rate so low that nothing fell due in the second half.
  const run = {
    nominalRate: 0.25,
    arrivals: "fixed" as const,
    durationSeconds: 20,
    startMs: START,
    dueMs: [START + 1000, START + 4000, START + 8000],
    firstArrival: Array(9).fill(null),
    recipients: 3,
    endMs: START + 27_000,
  };
  const load = evaluateLoad(run);
  assert.equal(load.offeredRate, 0);
  assert.equal(load.backlogAtEnd, 9);
  assert.equal(load.verdict, "fell-behind");
  // Delivered a second after each was due, it kept up.
  const prompt = evaluateLoad({
    ...run,
    firstArrival: run.dueMs.flatMap((
      due,
    ) => [due + 1000, due + 1000, due + 1000]),
  });
  assert.equal(prompt.verdict, "kept-up");
});

/** A run whose deliveries arrive in one batch every `pollMs`, from `phaseMs`. */
function batches(rate: number, pollMs: number, phaseMs: number) {
  const durationSeconds = 20;
  const dueMs = arrivalSchedule({
    rate,
    durationSeconds,
    arrivals: "fixed",
    seed: 1,
  }).map((o) => START + o);
  const firstArrival = dueMs.map((due) =>
    START + Math.ceil((due - START + 1 - phaseMs) / pollMs) * pollMs + phaseMs
  );
  return {
    nominalRate: rate,
    arrivals: "fixed" as const,
    durationSeconds,
    startMs: START,
    dueMs,
    firstArrival,
    recipients: 1,
    endMs: START + 30_000,
  };
}

Deno.test("a queue that delivers in batches is bounded whatever their phase", () => {
  for (const phaseMs of [0, 1200, 2500, 3700, 4900]) {
    const load = evaluateLoad(batches(20, 5000, phaseMs));
    assert.ok(load.backlogBounded, `${phaseMs}: ${JSON.stringify(load)}`);
    assert.ok(Math.abs(load.backlogPeakGrowth!) <= 1, `${phaseMs}`);
  }
  // Aligned with the window, the batches' sawtooth fits a rising trend.
  assert.equal(evaluateLoad(batches(20, 5000, 0)).verdict, "fell-behind");
});

Deno.test("a queue 10% past its capacity has an unbounded backlog", () => {
  const over = (rate: number, capacity: number) => {
    const dueMs = arrivalSchedule({
      rate,
      durationSeconds: 30,
      arrivals: "fixed",
      seed: 1,
    }).map((o) => START + o);
    let free = START;
    const firstArrival = dueMs.flatMap((due) => {
      free = Math.max(free, due) + 1000 / capacity;
      return [free, free, free, free];
    });
    return evaluateLoad({
      nominalRate: rate,
      arrivals: "fixed",
      durationSeconds: 30,
      startMs: START,
      dueMs,
      firstArrival,
      recipients: 4,
      endMs: START + 40_000,
    });
  };
  assert.equal(over(22, 20).backlogBounded, false);
  assert.equal(over(18, 20).backlogBounded, true);
  // Growth: a tenth of the last quarter's 22 × 7.5 activities, 4 each.
  const growth = over(22, 20).backlogPeakGrowth!;
  assert.ok(growth > 0.05 * 22 * 7.5 * 4, `${growth}`);
});
