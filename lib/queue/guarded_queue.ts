/**
 * {@link guardListeners}: a queue whose listeners and handler calls a
 * {@link StopGuard} counts, so that the queue is closed only once the work
 * they started has settled.
 *
 * @module
 */
import type { MessageQueue } from "@fedify/fedify";
import type { StopGuard } from "../system/stop_guard.ts";
import { listenSettling, withListen } from "../system/settling_listen.ts";

/**
 * Wraps `queue` so that each `listen()` and each handler call it makes
 * count in `guard` as in flight until they settle, and an abort of a
 * listener's signal moves `guard` to "stopping the listener".  Everything
 * else passes through: `enqueueMany()` and `getDepth()` exist exactly when
 * the wrapped queue has them, and `nativeRetrial` is its.
 *
 * The queue itself sees the listener's abort only once the handler calls
 * already running have settled (`listenSettling`): a package that releases
 * its connection the moment its signal aborts (`@fedify/denokv` closes its
 * `Deno.Kv`) would otherwise close it under a running fanout, whose
 * enqueues then fail with "Database is closed".  A message handed over
 * meanwhile is handled as usual.
 *
 * Put it outside Fedify's `ParallelMessageQueue`: that wrapper's handler
 * returns before the work is done, and runs the work on after the wrapped
 * queue's `listen()` has returned; the handler Fedify gives is the work.
 *
 * @param queue The queue Fedify (or a test) listens on.
 * @param guard Counts the work and follows the stop.
 */
export function guardListeners(
  queue: MessageQueue,
  guard: StopGuard,
): MessageQueue {
  return withListen(queue, (handler, options) => {
    guard.watch(options?.signal);
    const listening = listenSettling(
      (h, o) => queue.listen(h, o),
      (message) => {
        const result = handler(message);
        if (result instanceof Promise) guard.track(result);
        return result;
      },
      options,
      false,
    );
    guard.track(listening);
    return listening;
  });
}
