/**
 * What the bench's parallel wrappers (`awaiting_parallel_queue.ts`,
 * `prompt_parallel_queue.ts`) do as Fedify's `ParallelMessageQueue` does:
 * read a message's ordering key, and enqueue a batch on a queue that may
 * have no `enqueueMany()`.
 *
 * @module
 */
import type { MessageQueue, MessageQueueEnqueueOptions } from "@fedify/fedify";

/**
 * The ordering key of a message in the wrapper format Fedify's Deno KV and
 * Workers queues deliver (`__fedify_ordering_key__`), whatever its type, as
 * Fedify takes it; other queues order messages themselves.
 */
export function orderingKey(message: unknown): unknown {
  if (
    message != null && typeof message === "object" &&
    "__fedify_ordering_key__" in message
  ) {
    return message.__fedify_ordering_key__;
  }
  return undefined;
}

/**
 * Enqueues `messages` on `queue`: with its `enqueueMany()`, or one by one.
 * @throws {AggregateError} When more than one of those enqueues failed.
 */
export async function enqueueAll(
  queue: MessageQueue,
  messages: readonly unknown[],
  options?: MessageQueueEnqueueOptions,
): Promise<void> {
  if (queue.enqueueMany != null) {
    return await queue.enqueueMany(messages, options);
  }
  const results = await Promise.allSettled(
    messages.map((message) => queue.enqueue(message, options)),
  );
  const errors = results.flatMap((r) =>
    r.status === "rejected" ? [r.reason] : []
  );
  if (errors.length > 1) {
    throw new AggregateError(errors, "Failed to enqueue messages.");
  }
  if (errors.length === 1) throw errors[0];
}
