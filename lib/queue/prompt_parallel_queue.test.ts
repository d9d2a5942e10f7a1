/**
 * The prompt wrapper behaves as Fedify's `ParallelMessageQueue` does (the
 * queue's handler returns once the work has started, never more than
 * `workers` at once) except that a handler starts before the queue's
 * handler returns, with no timer in between.
 */
import assert from "node:assert/strict";
import type { MessageQueue } from "@fedify/fedify";
import { PromptParallelMessageQueue } from "./prompt_parallel_queue.ts";

/** A queue that hands its messages over one at a time, logging each step. */
function steppingQueue(messages: number[], log: string[]): MessageQueue {
  return {
    enqueue: () => Promise.resolve(),
    async listen(handler) {
      for (const message of messages) {
        log.push(`hand ${message}`);
        await handler(message);
        log.push(`returned ${message}`);
      }
    },
  };
}

Deno.test("a slot's handler starts before the queue's handler returns, and no more than `workers` run at once", async () => {
  const log: string[] = [];
  const queue = new PromptParallelMessageQueue(
    steppingQueue([1, 2, 3, 4, 5], log),
    2,
  );
  let running = 0;
  let most = 0;
  const done = Promise.withResolvers<void>();
  let finished = 0;
  await queue.listen(async (message) => {
    log.push(`start ${message}`);
    most = Math.max(most, ++running);
    await new Promise((resolve) => setTimeout(resolve, 5));
    running--;
    if (++finished === 5) done.resolve();
  });
  await done.promise;
  assert.equal(most, 2);
  // Each handler starts before the queue's handler call returns: no yield.
  for (const n of [1, 2, 3, 4, 5]) {
    assert.ok(
      log.indexOf(`start ${n}`) < log.indexOf(`returned ${n}`),
      log.join(", "),
    );
  }
  // The queue's handler returns before the delivery is done (Finding 2):
  // message 1 was handed back before message 3 could take its slot.
  assert.ok(log.indexOf("returned 1") < log.indexOf("start 3"));
});
