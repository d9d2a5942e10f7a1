/**
 * A message queue that accepts every message and drops it: the load
 * generator's target, so that the highest rate the sender can offer is
 * measured without any queue's cost (the steady-load equivalent of the
 * baseline).  Not a driver: it delivers nothing, so no suite lists it.
 *
 * @module
 */
import type {
  MessageQueue,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from "@fedify/fedify";

/** Accepts every message at once and keeps none. */
export class DiscardQueue implements MessageQueue {
  /** Accepts one message and drops it. */
  enqueue(
    _message: unknown,
    _options?: MessageQueueEnqueueOptions,
  ): Promise<void> {
    return Promise.resolve();
  }

  /** Accepts several messages and drops them. */
  enqueueMany(
    _messages: readonly unknown[],
    _options?: MessageQueueEnqueueOptions,
  ): Promise<void> {
    return Promise.resolve();
  }

  /** Hands out nothing; returns once `options.signal` aborts. */
  listen(
    _handler: (message: unknown) => Promise<void> | void,
    options?: MessageQueueListenOptions,
  ): Promise<void> {
    return new Promise((resolve) => {
      if (options?.signal == null) return;
      if (options.signal.aborted) return resolve();
      options.signal.addEventListener("abort", () => resolve(), { once: true });
    });
  }
}
