/**
 * {@link PromptParallelMessageQueue}: Fedify's `ParallelMessageQueue`
 * (2.3.6) with one change, for the experiment that isolates its slot
 * hand-over: a message's handler starts as soon as a slot takes it, where
 * Fedify's first waits for a `setTimeout(0)`.  Everything else is as
 * Fedify's does it: the wrapped queue's handler returns once the message
 * has a slot and its work has started (so the queue acknowledges before
 * the delivery is done, Finding 2); a free slot is waited for with
 * `Promise.any` over the slots' promises, removing only the slot that
 * fulfilled; messages with the same `__fedify_ordering_key__` run one
 * after the other; `enqueue`, `enqueueMany`, `getDepth` and `nativeRetrial`
 * are the wrapped queue's.
 *
 * It is not a wrapper to use: `--parallel-impl prompt` exists so that a run
 * can change only the hand-over and show what it costs
 * (docs/results.md, "Where a delivery's time goes").
 *
 * @module
 */
import type {
  MessageQueue,
  MessageQueueDepth,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from "@fedify/fedify";
import { enqueueAll, orderingKey } from "./parallel_parts.ts";

type Handler = (message: unknown) => Promise<void> | void;

/** A message waiting for its ordering key, and how to wake it. */
interface Pending {
  readonly key: unknown;
  readonly resume: () => void;
}

/** Fedify's `ParallelMessageQueue` without the yield before each handler. */
export class PromptParallelMessageQueue implements MessageQueue {
  /** The wrapped queue. */
  readonly queue: MessageQueue;
  /** The most messages handled at once. */
  readonly workers: number;
  /** The wrapped queue's. */
  readonly nativeRetrial?: boolean;
  /** The wrapped queue's, when it has one. */
  readonly getDepth?: () => Promise<MessageQueueDepth>;
  /** Ordering keys being handled. */
  readonly #keys = new Set<unknown>();
  /** Messages waiting for a key, in arrival order. */
  readonly #pending: Pending[] = [];

  /**
   * Wraps `queue`.
   * @param queue The queue to take messages from.
   * @param workers The most messages handled at once.
   */
  constructor(queue: MessageQueue, workers: number) {
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

  /** Enqueues on the wrapped queue, one by one without `enqueueMany`. */
  enqueueMany(
    messages: readonly unknown[],
    options?: MessageQueueEnqueueOptions,
  ): Promise<void> {
    return enqueueAll(this.queue, messages, options);
  }

  /**
   * Listens on the wrapped queue; its handler returns once the message has
   * a slot and its handler has started.
   */
  listen(
    handler: Handler,
    options: MessageQueueListenOptions = {},
  ): Promise<void> {
    const slots = new Map<number, Promise<number>>();
    let next = 0;
    return this.queue.listen(async (message) => {
      while (slots.size >= this.workers) {
        slots.delete(await Promise.any(slots.values()));
      }
      const key = orderingKey(message);
      if (key != null && this.#keys.has(key)) {
        await new Promise<void>((resume) =>
          this.#pending.push({ key, resume })
        );
      }
      if (key != null) this.#keys.add(key);
      const id = next++;
      slots.set(id, this.#work(id, handler, message, key));
    }, options);
  }

  async #work(
    id: number,
    handler: Handler,
    message: unknown,
    key: unknown,
  ): Promise<number> {
    try {
      await handler(message);
    } finally {
      if (key != null) {
        this.#keys.delete(key);
        const waiting = this.#pending.findIndex((p) => p.key === key);
        if (waiting >= 0) this.#pending.splice(waiting, 1)[0].resume();
      }
    }
    return id;
  }
}
