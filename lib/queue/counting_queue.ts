/**
 * A wrapper around a driver's queue that logs what went in and what came
 * out, for the truth `getDepth()` is compared with (`--sample-depth`) and
 * for the delayed backlog (`--inbox-dead-rate`): every enqueue call with
 * when it began and returned, its messages and its delay, and the instant
 * each message was handed to a handler.  It sits between the driver's queue
 * and the parallel wrapper, so "handed to a handler" is the instant the
 * driver's queue let go of a message.
 *
 * It has `enqueueMany()` and `getDepth()` exactly when the wrapped queue
 * has them (Fedify looks for both), and passes `nativeRetrial` on.  Only
 * runs that ask for depth or a delayed backlog wrap their queue, so that
 * the logging never perturbs other figures.
 *
 * @module
 */
import type {
  MessageQueue,
  MessageQueueDepth,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from "@fedify/fedify";
import type { EnqueueEvent } from "../measure/depth_error.ts";

/** What a {@link CountingQueue} logged since the last {@link take}. */
export interface QueueLog {
  /** Enqueue calls that returned since the last take. */
  readonly enqueues: EnqueueEvent[];
  /** Epoch ms of each message handed to a handler since the last take. */
  readonly handled: number[];
  /**
   * Every event before this epoch ms has been taken, now or before: the
   * time of the take, or the start of the oldest enqueue call still
   * running if earlier.
   */
  readonly complete: number;
}

/** Reads the clock every process of a run shares, in epoch ms. */
export type Clock = () => number;

/** Logs the enqueues and hand-outs of the queue it wraps. */
export class CountingQueue implements MessageQueue {
  readonly #queue: MessageQueue;
  readonly #clock: Clock;
  #enqueues: EnqueueEvent[] = [];
  #handled: number[] = [];
  /** Start times of enqueue calls still running, by call id. */
  readonly #running = new Map<number, number>();
  #nextCall = 0;
  /** Passed on from the wrapped queue. */
  readonly nativeRetrial?: boolean;
  /** Present exactly when the wrapped queue has `enqueueMany()`. */
  readonly enqueueMany?: (
    messages: readonly unknown[],
    options?: MessageQueueEnqueueOptions,
  ) => Promise<void>;
  /** Present exactly when the wrapped queue has `getDepth()`. */
  readonly getDepth?: () => Promise<MessageQueueDepth>;

  /** Wraps `queue`, reading the time with `clock`. */
  constructor(queue: MessageQueue, clock: Clock) {
    this.#queue = queue;
    this.#clock = clock;
    this.nativeRetrial = queue.nativeRetrial;
    if (queue.enqueueMany != null) {
      this.enqueueMany = (messages, options) =>
        this.#log(
          messages.length,
          options,
          () => queue.enqueueMany!(messages, options),
        );
    }
    if (queue.getDepth != null) this.getDepth = () => queue.getDepth!();
  }

  /** Enqueues one message through the wrapped queue and logs it. */
  enqueue(
    message: unknown,
    options?: MessageQueueEnqueueOptions,
  ): Promise<void> {
    return this.#log(1, options, () => this.#queue.enqueue(message, options));
  }

  /** Listens on the wrapped queue, logging each message handed out. */
  listen(
    handler: (message: unknown) => Promise<void> | void,
    options?: MessageQueueListenOptions,
  ): Promise<void> {
    return this.#queue.listen((message) => {
      this.#handled.push(this.#clock());
      return handler(message);
    }, options);
  }

  /** Takes what was logged since the last take. */
  take(): QueueLog {
    const at = this.#clock();
    let complete = at;
    for (const start of this.#running.values()) {
      complete = Math.min(complete, start);
    }
    const log = {
      enqueues: this.#enqueues,
      handled: this.#handled,
      complete,
    };
    this.#enqueues = [];
    this.#handled = [];
    return log;
  }

  async #log(
    count: number,
    options: MessageQueueEnqueueOptions | undefined,
    call: () => Promise<void>,
  ): Promise<void> {
    const id = this.#nextCall++;
    const calledAt = this.#clock();
    this.#running.set(id, calledAt);
    try {
      await call();
      if (count > 0) {
        this.#enqueues.push({
          calledAt,
          returnedAt: this.#clock(),
          count,
          delayMs: Math.max(0, options?.delay?.total("millisecond") ?? 0),
        });
      }
    } finally {
      this.#running.delete(id);
    }
  }
}
