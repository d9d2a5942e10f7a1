import assert from "node:assert/strict";
import {
  InProcessMessageQueue,
  type MessageQueue,
  ParallelMessageQueue,
} from "@fedify/fedify";
import { guardListeners } from "./guarded_queue.ts";
import { StopGuard } from "../system/stop_guard.ts";
import { settlingQueue } from "../system/settling_listen.ts";

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

Deno.test("a native-retrial queue stops taking messages when the stop is asked for, though work above it still runs", async () => {
  const guard = new StopGuard("native");
  // A package that hands messages over until its own signal aborts, and
  // records which it got back.
  let deliver!: (message: unknown) => Promise<void> | void;
  let stopped!: () => void;
  const thrownBack: unknown[] = [];
  const pkg: MessageQueue = {
    nativeRetrial: true,
    enqueue: () => Promise.resolve(),
    listen(handler, options) {
      deliver = async (message) => {
        try {
          await handler(message);
        } catch {
          thrownBack.push(message);
        }
      };
      return new Promise<void>((resolve) => {
        stopped = resolve;
        options?.signal?.addEventListener("abort", () => resolve());
      });
    },
  };
  const queue = guardListeners(settlingQueue(pkg), guard);
  const controller = new AbortController();
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => finish = resolve);
  const handled: unknown[] = [];
  const listening = queue.listen(async (message) => {
    handled.push(message);
    if (message === 1) await finished;
  }, { signal: controller.signal });
  const first = deliver(1);
  controller.abort();
  // The package hands one more over while message 1's work still runs.
  await deliver(2);
  assert.deepEqual(handled, [1], "nothing new is taken once stopping");
  assert.deepEqual(thrownBack, [2], "it goes back to the queue");
  finish();
  await first;
  await guard.stop(listening, () => Promise.resolve());
  stopped();
  assert.deepEqual(handled, [1]);
});
