/**
 * The depth error's definition on hand-made logs: the truth's range over a
 * `getDepth()` call, the error outside it, the window, and the delayed
 * backlog the bench counts itself.
 */
import assert from "node:assert/strict";
import {
  delayedBacklog,
  depthError,
  type EnqueueEvent,
  sampleError,
  StepFunction,
  trueDepth,
} from "./depth_error.ts";

const enqueue = (
  calledAt: number,
  returnedAt: number,
  count: number,
  delayMs = 0,
): EnqueueEvent => ({ calledAt, returnedAt, count, delayMs });

Deno.test("StepFunction reads a value and a range", () => {
  const f = new StepFunction([[10, 5], [20, -2], [20, -1], [30, 4]]);
  assert.equal(f.at(5), 0);
  assert.equal(f.at(10), 5);
  assert.equal(f.at(25), 2);
  assert.deepEqual(f.range(15, 35), [2, 6]);
  assert.deepEqual(f.range(0, 9), [0, 0]);
});

Deno.test("a sample is right anywhere between lower and upper", () => {
  // Ten messages enqueued by a call from 100 to 110; three handed out at 200.
  const truth = trueDepth([enqueue(100, 110, 10)], [200, 200, 200]);
  // While the call runs, 0 and 10 are both right.
  assert.equal(sampleError(truth, { start: 105, end: 106, queued: 0 }), 0);
  assert.equal(sampleError(truth, { start: 105, end: 106, queued: 10 }), 0);
  assert.equal(sampleError(truth, { start: 105, end: 106, queued: 12 }), 2);
  // After it, exactly 10; then 7.
  assert.equal(sampleError(truth, { start: 150, end: 151, queued: 7 }), 3);
  assert.equal(sampleError(truth, { start: 250, end: 251, queued: 7 }), 0);
  // A call spanning the hand-out may say either.
  assert.equal(sampleError(truth, { start: 190, end: 210, queued: 10 }), 0);
  assert.equal(sampleError(truth, { start: 190, end: 210, queued: 7 }), 0);
  assert.equal(sampleError(truth, { start: 190, end: 210, queued: 5 }), 2);
});

Deno.test("depthError judges the samples inside the window only", () => {
  const figures = depthError({
    enqueues: [enqueue(100, 100, 10)],
    handled: [],
    samples: [
      { start: 50, end: 51, queued: 99 }, // before the window
      { start: 120, end: 121, queued: 10 },
      { start: 130, end: 131, queued: 13 },
      { start: 140, end: 141, queued: 9 },
      { start: 500, end: 501, queued: 99 }, // after it
    ],
    from: 100,
    to: 400,
  });
  assert.deepEqual(figures, {
    samples: 3,
    maxAbsError: 3,
    meanAbsError: 1.33,
    peakTrueDepth: 10,
  });
});

Deno.test("delayedBacklog counts a delayed message until it is due", () => {
  const backlog = delayedBacklog([
    enqueue(100, 101, 4, 1000),
    enqueue(200, 201, 1),
    enqueue(300, 302, 2, 500),
  ]);
  assert.equal(backlog.at(100), 0);
  assert.equal(backlog.at(101), 4);
  assert.equal(backlog.at(400), 6);
  assert.equal(backlog.at(800), 4);
  assert.equal(backlog.at(1100), 0);
});

Deno.test("StepFunction's mean weighs each value by how long it held", () => {
  const f = new StepFunction([[10, 4], [20, -4]]);
  assert.equal(f.mean(0, 40), 1);
  assert.equal(f.mean(10, 20), 4);
  assert.equal(f.mean(15, 15), 4);
});
