/**
 * The stage wrappers at the queue seam, on Fedify's own in-process queue
 * and `ParallelMessageQueue`, with a clock the test moves: each message
 * carries the instant it was due to the handler's side and reaches Fedify's
 * handler without it; the waits, the enqueue calls, the turnaround and the
 * slot wait are timed.
 */
import assert from "node:assert/strict";
import {
  InProcessMessageQueue,
  type MessageQueue,
  ParallelMessageQueue,
} from "@fedify/fedify";
import { READY_AT_KEY, StageTiming } from "./timing_queue.ts";
import { AwaitingParallelMessageQueue } from "./awaiting_parallel_queue.ts";
import { StageSamples } from "../measure/stage_samples.ts";

/** Listens until `count` messages were handled, then stops. */
async function consume(
  queue: MessageQueue,
  count: number,
  onMessage: (message: Record<string, unknown>) => void,
): Promise<void> {
  const controller = new AbortController();
  const done = Promise.withResolvers<void>();
  let handled = 0;
  const listening = queue.listen((message) => {
    onMessage(message as Record<string, unknown>);
    if (++handled === count) done.resolve();
  }, { signal: controller.signal });
  const timer = setTimeout(() => done.reject(new Error("timed out")), 10_000);
  try {
    await done.promise;
  } finally {
    clearTimeout(timer);
    controller.abort();
    await listening;
  }
}

Deno.test("messages carry when they were due to the handler's side, and Fedify's handler never sees it", async () => {
  let t = 1000;
  const samples = new StageSamples();
  const timing = new StageTiming(samples, () => t);
  const inner = new InProcessMessageQueue();
  const queue = timing.inner(inner);
  assert.equal(typeof queue.enqueueMany, "function");
  assert.equal(queue.getDepth != null, inner.getDepth != null);
  await queue.enqueue({ type: "fanout", id: 0 });
  t += 5;
  await queue.enqueueMany!([
    { type: "outbox", id: 1 },
    { type: "outbox", id: 2 },
  ]);
  const seen: Record<string, unknown>[] = [];
  await consume(queue, 3, (message) => {
    seen.push(message);
    t += 10;
  });
  assert.deepEqual(seen.map((m) => m.id), [0, 1, 2]);
  for (const message of seen) assert.ok(!(READY_AT_KEY in message));
  const batch = samples.take();
  assert.equal(batch.enqueue?.length, 2);
  // Handed over at 1005, 1015 and 1025.
  assert.deepEqual(batch["fanout.wait"], [5]);
  assert.deepEqual(batch["queue.wait"], [10, 20]);
  // Both outbox messages were waiting when the handler before returned.
  assert.deepEqual(batch["queue.after"], [0, 0]);
  assert.equal(samples.peakInFlight, 1);
});

Deno.test("a delayed message is due after its delay, and the slot wait is timed outside the parallel wrapper", async () => {
  let t = 0;
  const samples = new StageSamples();
  const timing = new StageTiming(samples, () => t);
  const inner = timing.inner(new InProcessMessageQueue());
  const parallel = new ParallelMessageQueue(inner, 2);
  const queue = timing.outer(parallel, true);
  assert.notEqual(queue, parallel);
  assert.equal(timing.outer(parallel, false), parallel);
  await queue.enqueue({ type: "outbox", id: 1 }, {
    delay: Temporal.Duration.from({ milliseconds: 1 }),
  });
  t = 4;
  await consume(queue, 1, () => {});
  const batch = samples.take();
  // Due at 1 ms, handed over at 4 ms.
  assert.deepEqual(batch["queue.wait"], [3]);
  assert.deepEqual(batch["queue.slot"], [0]);
});

Deno.test("under ParallelMessageQueue the slot wait ends when a slot takes the message, and the hand-over to the handler is timed apart", async () => {
  let t = 0;
  const samples = new StageSamples();
  const timing = new StageTiming(samples, () => t);
  const messages: unknown[] = [];
  // A driver's queue that hands messages over one at a time and, after
  // each handler call returns, lets 7 ms pass before the wrapper's timer.
  const driver: MessageQueue = {
    enqueue(message) {
      messages.push(message);
      return Promise.resolve();
    },
    async listen(handler, options) {
      for (const message of messages.splice(0)) {
        await handler(message);
        t += 7;
      }
      await new Promise((resolve) =>
        options?.signal?.addEventListener("abort", resolve)
      );
    },
  };
  const inner = timing.inner(driver);
  const queue = timing.outer(new ParallelMessageQueue(inner, 1), true);
  await queue.enqueue({ type: "outbox", id: 1 });
  await queue.enqueue({ type: "fanout", id: 2 });
  await queue.enqueue({ type: "outbox", id: 3 });
  await consume(queue, 3, () => {
    t += 10;
  });
  const batch = samples.take();
  // 1 is taken at once; 2 was handed over at 7 and taken when 1 ended at
  // 17; 3 handed over at 24, taken when 2 ended at 34.
  assert.deepEqual(batch["queue.slot"], [0, 10]);
  assert.deepEqual(batch["queue.handover"], [7, 7, 7]);
  // 2 and 3 waited for a slot and were taken as the slot before ended (no
  // time passed between); 1 found a free slot, so it has no pick-up.
  assert.deepEqual(batch["queue.pickup"], [0, 0]);
});

Deno.test("a parallel wrapper that returns when the work is done gets no hand-over or pick-up", async () => {
  let t = 0;
  const samples = new StageSamples();
  const timing = new StageTiming(samples, () => t);
  const inner = timing.inner(new InProcessMessageQueue());
  const queue = timing.outer(
    new AwaitingParallelMessageQueue(inner, 2),
    true,
    false,
  );
  await queue.enqueue({ type: "outbox", id: 1 });
  await consume(queue, 1, () => {
    t += 3;
  });
  const batch = samples.take();
  assert.deepEqual(batch["queue.slot"], [0]);
  assert.equal(batch["queue.handover"], undefined);
  assert.equal(batch["queue.pickup"], undefined);
});
