/**
 * A row's stages from its processes' `stages` messages: merged timings,
 * percentiles and sums, the slots and shares, and the notes.
 */
import assert from "node:assert/strict";
import { summariseStages } from "./stages.ts";

const batch = (
  samples: Record<string, number[]>,
  peakInFlight = 1,
) => ({ samples, peakInFlight });

Deno.test("stage timings are merged over a process's messages and its processes", () => {
  const stages = summariseStages({
    processes: [
      [batch({ enqueue: [2, 4] }, 0)],
      [
        batch({ outbox: [10, 20], "queue.after": [1] }),
        batch({ outbox: [30, 40], sign: [5, 5, 5, 5], "queue.after": [3] }),
      ],
    ],
    windowSeconds: 1,
    parallelism: 1,
    fedifyParallel: false,
    hasQueue: true,
    delivered: 4,
  })!;
  assert.deepEqual(stages.byStage.outbox, {
    count: 4,
    meanMs: 25,
    p50Ms: 20,
    p99Ms: 40,
    totalSeconds: 0.1,
    // 0.1 s of one slot's 1 s.
    share: 0.1,
  });
  assert.equal(stages.byStage.sign?.share, 0.02);
  // The enqueue calls are no consumer's work: no share.
  assert.equal(stages.byStage.enqueue?.share, undefined);
  assert.equal(stages.byStage["queue.after"]?.meanMs, 2);
  // One process consumed (the other only enqueued), one at a time.
  assert.equal(stages.slots, 1);
  assert.equal(stages.serial, true);
  assert.deepEqual(stages.notes, []);
});

Deno.test("slots: the parallel level per consumer, or what a concurrent queue ran at once", () => {
  const input = {
    windowSeconds: 2,
    fedifyParallel: true,
    hasQueue: true,
    delivered: 2,
  };
  const parallel = summariseStages({
    ...input,
    processes: [[batch({ outbox: [1, 1] })], [batch({ outbox: [1] })]],
    parallelism: 4,
  })!;
  assert.equal(parallel.slots, 8);
  assert.match(parallel.notes[0], /ParallelMessageQueue` returns/);
  const concurrent = summariseStages({
    ...input,
    fedifyParallel: false,
    processes: [[batch({ outbox: [1, 1] }, 3), batch({}, 7)]],
    parallelism: 1,
  })!;
  assert.equal(concurrent.serial, false);
  assert.equal(concurrent.peakInFlight, 7);
  assert.equal(concurrent.slots, 7);
  assert.match(concurrent.notes[0], /up to 7 at once/);
});

Deno.test("a queue that handed nearly every message over one at a time counts as serial though two handlers once overlapped", () => {
  const input = {
    windowSeconds: 10,
    fedifyParallel: false,
    hasQueue: true,
    delivered: 10,
    parallelism: 1,
  };
  const outbox = Array.from({ length: 10 }, () => 5);
  // A turnaround for 10 of 11 hand-offs (the fanout message and 10 outbox
  // messages): 91%.
  const mostly = summariseStages({
    ...input,
    processes: [[
      batch({ fanout: [40], outbox, "queue.after": outbox.map(() => 30) }, 2),
    ]],
  })!;
  assert.equal(mostly.serial, true);
  assert.equal(mostly.peakInFlight, 2);
  assert.equal(mostly.slots, 1);
  assert.match(
    mostly.notes.join("\n"),
    /ran up to 2 handlers at once, but handed 10 of its 11 messages over one at a time/,
  );
  // Half of them: it runs handlers concurrently.
  const half = summariseStages({
    ...input,
    processes: [[
      batch({ fanout: [40], outbox, "queue.after": [30, 30, 30, 30, 30] }, 2),
    ]],
  })!;
  assert.equal(half.serial, false);
  assert.equal(half.slots, 2);
});

Deno.test("without a queue there are no slots or shares; with nothing timed, no stages", () => {
  const none = summariseStages({
    processes: [[batch({ sign: [2], post: [4] }, 0)]],
    windowSeconds: 1,
    parallelism: 1,
    fedifyParallel: false,
    hasQueue: false,
    delivered: 1,
  })!;
  assert.equal(none.slots, 0);
  assert.equal(none.byStage.sign?.share, undefined);
  assert.match(none.notes[0], /^no queue/);
  assert.equal(
    summariseStages({
      processes: [[batch({})]],
      windowSeconds: 1,
      parallelism: 1,
      fedifyParallel: false,
      hasQueue: true,
      delivered: 0,
    }),
    null,
  );
});

Deno.test("fewer outbox timings than deliveries are noted", () => {
  const stages = summariseStages({
    processes: [[batch({ outbox: [1] })]],
    windowSeconds: 1,
    parallelism: 1,
    fedifyParallel: false,
    hasQueue: true,
    delivered: 3,
  })!;
  assert.match(stages.notes.at(-1)!, /timed 1 times for 3 deliveries/);
});
