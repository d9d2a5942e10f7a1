/**
 * An adapter for queue classes written against Fedify 1.x's `MessageQueue`
 * type (`@fedify/redis` and `@fedify/postgres` 1.8.7).  They work at run time
 * with Fedify 2.x, but their `enqueueMany` takes a mutable array where 2.x
 * passes a readonly one, so TypeScript rejects them as 2.x queues.
 *
 * @module
 */
import type { MessageQueue } from "@fedify/fedify";

/** The shape of a Fedify 1.x message queue. */
export interface LegacyMessageQueue {
  /** See Fedify's `MessageQueue.nativeRetrial`. */
  readonly nativeRetrial?: boolean;
  /** See Fedify's `MessageQueue.enqueue`. */
  enqueue: MessageQueue["enqueue"];
  /** Takes a mutable array; it never mutates it. */
  enqueueMany?(
    // deno-lint-ignore no-explicit-any
    messages: any[],
    options?: Parameters<MessageQueue["enqueue"]>[1],
  ): Promise<void>;
  /** See Fedify's `MessageQueue.listen`. */
  listen: MessageQueue["listen"];
  /** See Fedify's `MessageQueue.getDepth` (2.3 and later). */
  getDepth?: MessageQueue["getDepth"];
}

/**
 * Presents a Fedify 1.x queue as a Fedify 2.x `MessageQueue` (a 2.x queue
 * passes through it unchanged in behaviour, `getDepth()` included).
 */
export function adaptLegacyQueue(queue: LegacyMessageQueue): MessageQueue {
  const enqueueMany = queue.enqueueMany;
  return {
    nativeRetrial: queue.nativeRetrial,
    enqueue: (message, options) => queue.enqueue(message, options),
    enqueueMany: enqueueMany == null
      ? undefined
      : (messages, options) =>
        enqueueMany.call(queue, messages as unknown[], options),
    listen: (handler, options) => queue.listen(handler, options),
    ...(queue.getDepth == null ? {} : { getDepth: () => queue.getDepth!() }),
  };
}
