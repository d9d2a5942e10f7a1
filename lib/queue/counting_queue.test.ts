/**
 * {@link CountingQueue} over a queue whose depth is known: the logs it
 * takes give the depth error 0 against an exact `getDepth()` and the
 * misreport against a deliberately wrong one.
 */
import assert from "node:assert/strict";
import { CountingQueue } from "./counting_queue.ts";
import {
  depthError,
  type DepthSample,
  type EnqueueEvent,
} from "../measure/depth_error.ts";
import { KnownDepthQueue } from "../testing/depth_queues.ts";
import { waitFor } from "../testing/queues.ts";

const clock = () => performance.timeOrigin + performance.now();

/** Enqueues, samples, drains and samples again; returns the error figures. */
async function measure(inner: KnownDepthQueue) {
  const queue = new CountingQueue(inner, clock);
  const enqueues: EnqueueEvent[] = [];
  const handled: number[] = [];
  const samples: DepthSample[] = [];
  const take = () => {
    const log = queue.take();
    enqueues.push(...log.enqueues);
    handled.push(...log.handled);
    return log.complete;
  };
  const sample = async () => {
    const start = clock();
    const { queued } = await queue.getDepth!();
    samples.push({ start, end: clock(), queued });
  };
  const from = clock();
  for (let i = 0; i < 10; i++) await queue.enqueue({ i });
  await sample();
  await queue.enqueueMany!([{ i: 10 }, { i: 11 }, { i: 12 }], {
    delay: Temporal.Duration.from({ hours: 1 }),
  });
  await sample();
  const abort = new AbortController();
  let got = 0;
  const listening = queue.listen(() => {
    got++;
  }, { signal: abort.signal });
  await waitFor(() => got === 10, 5_000, "ten messages handled");
  await sample();
  abort.abort();
  await listening;
  inner.clearTimers();
  const to = take();
  assert.equal(enqueues.length, 11);
  assert.equal(handled.length, 10);
  return depthError({ enqueues, handled, samples, from, to });
}

Deno.test("an exact getDepth() has no error", async () => {
  const figures = await measure(new KnownDepthQueue());
  assert.deepEqual(figures, {
    samples: 3,
    maxAbsError: 0,
    meanAbsError: 0,
    peakTrueDepth: 13,
  });
});

Deno.test("a getDepth() that says 5 more has an error of 5", async () => {
  const figures = await measure(new KnownDepthQueue((n) => n + 5));
  assert.equal(figures.samples, 3);
  assert.equal(figures.maxAbsError, 5);
  assert.equal(figures.meanAbsError, 5);
});

Deno.test("a getDepth() that ignores delayed messages misses them", async () => {
  // 10 ready, then 10 ready + 3 delayed, then 3 delayed: the delayed 3 missed
  // in the last two samples.
  const figures = await measure(
    new KnownDepthQueue((n) => n >= 13 ? n - 3 : n === 3 ? 0 : n),
  );
  assert.equal(figures.maxAbsError, 3);
  assert.equal(figures.meanAbsError, 2);
});

Deno.test("CountingQueue keeps the wrapped queue's optional members", () => {
  const bare = {
    enqueue: () => Promise.resolve(),
    listen: () => Promise.resolve(),
  };
  const wrapped = new CountingQueue(bare, clock);
  assert.equal(wrapped.enqueueMany, undefined);
  assert.equal(wrapped.getDepth, undefined);
  const full = new CountingQueue(new KnownDepthQueue(), clock);
  assert.equal(typeof full.enqueueMany, "function");
  assert.equal(typeof full.getDepth, "function");
  assert.equal(full.nativeRetrial, false);
});
