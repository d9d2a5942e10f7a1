import assert from "node:assert/strict";
import {
  InProcessMessageQueue,
  type MessageQueue,
  ParallelMessageQueue,
} from "@fedify/fedify";
import { guardListeners } from "./guarded_queue.ts";
import { StopGuard } from "../system/stop_guard.ts";

Deno.test("guardListeners: passes the queue's face through", () => {
  const guard = new StopGuard("test");
  const plain: MessageQueue = {
    nativeRetrial: true,
    enqueue: () => Promise.resolve(),
    listen: () => Promise.resolve(),
  };
  const wrapped = guardListeners(plain, guard);
  assert.equal(wrapped.nativeRetrial, true);
  assert.equal(wrapped.enqueueMany, undefined);
  assert.equal(wrapped.getDepth, undefined);
  const full = guardListeners(new InProcessMessageQueue(), guard);
  assert.equal(typeof full.enqueueMany, "function");
  assert.equal(typeof full.getDepth, "function");
});

Deno.test("guardListeners: the stop closes only once Fedify's parallel workers are done", async () => {
  const guard = new StopGuard("in-process");
  const inner = new InProcessMessageQueue();
  // As the bench's children have it: the guard outside the parallel wrapper.
  const queue = guardListeners(new ParallelMessageQueue(inner, 2), guard);
  const controller = new AbortController();
  let started!: () => void;
  const running = new Promise<void>((resolve) => started = resolve);
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => finish = resolve);
  const events: string[] = [];
  const listening = queue.listen(async () => {
    started();
    await finished;
    events.push("handled");
  }, { signal: controller.signal });
  await queue.enqueue({ n: 1 });
  await running;
  controller.abort();
  assert.equal(guard.step, "stopping the listener");
  const stopping = guard.stop(listening, () => {
    events.push("closed");
    return Promise.resolve();
  });
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(events, [], "not closed under a running handler");
  finish();
  await stopping;
  assert.deepEqual(events, ["handled", "closed"]);
});
