/**
 * {@link guardListeners}: a queue whose listeners and handler calls a
 * {@link StopGuard} counts, so that the queue is closed only once the work
 * they started has settled.
 *
 * @module
 */
import type {
  MessageQueue,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from "@fedify/fedify";
import type { StopGuard } from "../system/stop_guard.ts";

/**
 * Wraps `queue` so that each `listen()` and each handler call it makes
 * count in `guard` as in flight until they settle, and an abort of a
 * listener's signal moves `guard` to "stopping the listener".  Everything
 * else passes through: `enqueueMany()` and `getDepth()` exist exactly when
 * the wrapped queue has them, and `nativeRetrial` is its.
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
  const wrapped: MessageQueue = {
    get nativeRetrial() {
      return queue.nativeRetrial;
    },
    enqueue: (
      // deno-lint-ignore no-explicit-any
      message: any,
      options?: MessageQueueEnqueueOptions,
    ) => queue.enqueue(message, options),
    listen(
      // deno-lint-ignore no-explicit-any
      handler: (message: any) => Promise<void> | void,
      options?: MessageQueueListenOptions,
    ): Promise<void> {
      guard.watch(options?.signal);
      const listening = queue.listen((message) => {
        const result = handler(message);
        if (result instanceof Promise) guard.track(result);
        return result;
      }, options);
      guard.track(listening);
      return listening;
    },
  };
  if (queue.enqueueMany != null) {
    const enqueueMany = queue.enqueueMany.bind(queue);
    wrapped.enqueueMany = (messages, options) => enqueueMany(messages, options);
  }
  if (queue.getDepth != null) {
    const getDepth = queue.getDepth.bind(queue);
    wrapped.getDepth = () => getDepth();
  }
  return wrapped;
}
