/**
 * {@link AwaitingParallelMessageQueue}: a variant of Fedify's
 * `ParallelMessageQueue` whose wrapped queue learns a message's outcome.
 *
 * @module
 */
import {
  type MessageQueue,
  type MessageQueueDepth,
  type MessageQueueEnqueueOptions,
  type MessageQueueListenOptions,
  ParallelMessageQueue,
} from "@fedify/fedify";
import type { ParallelImpl } from "../results/mod.ts";
import { sleep } from "../system/sleep.ts";
import { enqueueAll, orderingKey } from "./parallel_parts.ts";
import { PromptParallelMessageQueue } from "./prompt_parallel_queue.ts";

/**
 * Whether each parallel wrapper keeps the order the wrapped queue keeps for
 * an `orderingKey`, and why, for the ordering results.
 */
export const PARALLEL_ORDERING: Readonly<
  Record<ParallelImpl, { readonly keepsOrder: boolean; readonly note: string }>
> = {
  fedify: {
    keepsOrder: false,
    note: "Fedify's ParallelMessageQueue (2.3.6) returns from the queue's " +
      "handler once the work has started, so the queue's per-key lock ends " +
      "before the message is handled; it keeps keys itself only for " +
      "messages that reach it wrapped with __fedify_ordering_key__, which " +
      "no queue here hands out",
  },
  prompt: {
    keepsOrder: false,
    note: "Fedify's ParallelMessageQueue without its yield before each " +
      "handler: it returns from the queue's handler as Fedify's does",
  },
  awaiting: {
    keepsOrder: true,
    note: "the awaiting wrapper settles the queue's handler when the " +
      "message is done, so the queue's per-key lock holds throughout",
  },
};

/**
 * Wraps `queue` to handle up to `workers` messages at once, with Fedify's
 * `ParallelMessageQueue`, {@link AwaitingParallelMessageQueue} or
 * `PromptParallelMessageQueue` (Fedify's without the yield, an experiment).
 *
 * @param queue The driver's queue.
 * @param workers Messages handled at once; 1 or less returns `queue` as is.
 * @param impl Which wrapper to use.
 */
export function wrapParallel(
  queue: MessageQueue,
  workers: number,
  impl: ParallelImpl = "fedify",
): MessageQueue {
  if (workers <= 1) return queue;
  return impl === "awaiting"
    ? new AwaitingParallelMessageQueue(queue, workers)
    : impl === "prompt"
    ? new PromptParallelMessageQueue(queue, workers)
    : new ParallelMessageQueue(queue, workers);
}

/**
 * A `MessageQueue` that handles up to `workers` messages of the queue it
 * wraps at once, like Fedify 2.3.6's `ParallelMessageQueue`: `enqueue`,
 * `enqueueMany` and `getDepth` pass through to the wrapped queue,
 * `nativeRetrial` is the wrapped queue's, messages with the same
 * `__fedify_ordering_key__` are handled one after the other, and each
 * handler call starts behind a `setTimeout(0)`, as Fedify's does.
 *
 * It differs from Fedify's in two ways that are the point of it:
 *
 * 1. **The wrapped queue's handler settles when the message is done.**
 *    Fedify's handler returns as soon as a worker slot is free and the work
 *    has started, so a queue that acknowledges or deletes a message when its
 *    handler returns (AMQP, Deno KV, most SQL queues' "done" step) does so
 *    before the delivery happened: a worker killed then loses up to
 *    `workers` messages the queue believes handled, and a failure never
 *    reaches the queue's own retry (`nativeRetrial`).  Here the handler
 *    resolves once the work finished and rejects with the work's error, so
 *    the queue acknowledges after processing and retries natively.  The
 *    price: the parallelism is only the wrapped queue's own concurrency of
 *    handler calls.  A queue that awaits each handler before taking the next
 *    message (AMQP with prefetch 1) gets none; one that starts a poll loop
 *    per notification and removes each message before calling its handler
 *    (`@fedify/postgres` and `@fedify/redis` 1.8.7) gets it, but the messages
 *    its loops hold while waiting for a slot are already gone from the queue,
 *    so a worker killed then loses them under either wrapper.
 * 2. **A failed message frees its slot.**  Fedify keeps every worker's
 *    promise in a map and waits for a free slot with `Promise.any`, removing
 *    only the worker that fulfilled; a rejected worker is never removed, so
 *    once `workers` of them have rejected, `Promise.any` throws
 *    `AggregateError` for every further message and the queue stops
 *    handling anything (and each rejection is an unhandled promise rejection
 *    until the next message arrives).  Here a worker's slot is released
 *    whether its message succeeded or failed.
 *
 * And in smaller ways, each of which can only keep it from going wrong where
 * Fedify's would:
 *
 * - **The ordering key is waited for before the slot, not after.**  Fedify
 *   waits for a free slot, then for the message's ordering key, and starts
 *   the message once it has the key without looking at the slots again: the
 *   limit then rests on the key's previous holder still being counted, and
 *   the message goes ahead of any that waited for a slot meanwhile (with a
 *   queue that calls the handler concurrently: Deno KV's `listenQueue`, the
 *   poll loops above).  Here a message waits for its key first, holding no
 *   slot, then queues for a slot in turn, and never runs beyond `workers`.
 * - **The key is handed straight on.**  Fedify frees a finished message's
 *   ordering key and then wakes the next message waiting for it, which takes
 *   the key a microtask later; a newcomer with the same key that looks in
 *   between finds it free, and two messages with one key run at once.  Here
 *   the key passes to the next waiter directly.
 * - **Arguments are checked.**  `workers` must be a whole number ≥ 1 (Fedify
 *   takes any number, and with 0 fails every message with `AggregateError`).
 * - **It refuses to wrap Fedify's `ParallelMessageQueue` too**, not only
 *   itself (Fedify refuses only its own class): nesting either would make
 *   the outer wrapper's limit and acknowledgement meaningless.
 */
export class AwaitingParallelMessageQueue implements MessageQueue {
  /** The wrapped queue. */
  readonly queue: MessageQueue;
  /** The most messages handled at once. */
  readonly workers: number;
  /** The wrapped queue's. */
  readonly nativeRetrial?: boolean;
  /** The wrapped queue's, when it has one. */
  readonly getDepth?: () => Promise<MessageQueueDepth>;
  /** Ordering keys being handled, with the messages waiting for each. */
  #keys = new Map<unknown, (() => void)[]>();

  /**
   * Wraps `queue`.
   * @param queue The queue to take messages from; not itself parallel.
   * @param workers The most messages handled at once, a whole number ≥ 1.
   * @throws {TypeError} If `queue` is already parallel or `workers` is not a
   *   whole number ≥ 1.
   */
  constructor(queue: MessageQueue, workers: number) {
    if (
      queue instanceof AwaitingParallelMessageQueue ||
      queue instanceof ParallelMessageQueue
    ) {
      throw new TypeError(
        "Cannot nest parallel message queues; wrap the inner queue once.",
      );
    }
    if (!Number.isInteger(workers) || workers < 1) {
      throw new TypeError(
        `workers must be a whole number of at least 1, got ${workers}`,
      );
    }
    this.queue = queue;
    this.workers = workers;
    this.nativeRetrial = queue.nativeRetrial;
    if (queue.getDepth != null) this.getDepth = () => queue.getDepth!();
  }

  /** Enqueues on the wrapped queue. */
  enqueue(
    message: unknown,
    options?: MessageQueueEnqueueOptions,
  ): Promise<void> {
    return this.queue.enqueue(message, options);
  }

  /**
   * Enqueues on the wrapped queue, one by one when it has no `enqueueMany`.
   * @throws {AggregateError} When more than one of those enqueues failed.
   */
  enqueueMany(
    messages: readonly unknown[],
    options?: MessageQueueEnqueueOptions,
  ): Promise<void> {
    return enqueueAll(this.queue, messages, options);
  }

  /**
   * Listens on the wrapped queue; each message's handler call settles when
   * `handler` has finished with it, with `handler`'s outcome.
   */
  listen(
    handler: (message: unknown) => Promise<void> | void,
    options: MessageQueueListenOptions = {},
  ): Promise<void> {
    const slots = new Slots(this.workers);
    return this.queue.listen(
      (message) => this.#handle(slots, handler, message),
      options,
    );
  }

  async #handle(
    slots: Slots,
    handler: (message: unknown) => Promise<void> | void,
    message: unknown,
  ): Promise<void> {
    const key = orderingKey(message);
    if (key != null) await this.#takeKey(key);
    try {
      await slots.acquire();
      try {
        // Fedify's yield before each handler (a timer, clamped to ≥ 4 ms once
        // nested 5 deep), so that the wrappers differ only as documented.
        await sleep(0);
        await handler(message);
      } finally {
        slots.release();
      }
    } finally {
      if (key != null) this.#releaseKey(key);
    }
  }

  #takeKey(key: unknown): Promise<void> {
    const waiting = this.#keys.get(key);
    if (waiting == null) {
      this.#keys.set(key, []);
      return Promise.resolve();
    }
    return new Promise((resolve) => waiting.push(resolve));
  }

  /** Hands the key to the next message waiting for it, or frees it. */
  #releaseKey(key: unknown): void {
    const next = this.#keys.get(key)?.shift();
    if (next == null) this.#keys.delete(key);
    else next();
  }
}

/** A counting semaphore: at most `size` holders, the rest wait in order. */
class Slots {
  #free: number;
  #waiting: (() => void)[] = [];

  constructor(size: number) {
    this.#free = size;
  }

  acquire(): Promise<void> {
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next != null) next();
    else this.#free++;
  }
}
