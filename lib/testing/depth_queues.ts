/**
 * Test queues whose depth is known: an in-memory queue whose `getDepth()`
 * counts exactly what it holds (ready and delayed), or misreports it on
 * purpose by a function the test chooses, so that the bench's depth error
 * can be checked against a known answer.
 *
 * @module
 */
import type {
  MessageQueue,
  MessageQueueDepth,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from "@fedify/fedify";

/** An in-memory queue with an exact (or deliberately wrong) `getDepth()`. */
export class KnownDepthQueue implements MessageQueue {
  readonly nativeRetrial = false;
  readonly #ready: unknown[] = [];
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  readonly #misreport: (queued: number) => number;
  #delayed = 0;
  #wake: (() => void) | undefined;

  /**
   * @param misreport Turns the true `queued` into what `getDepth()` says;
   *   the truth when absent.
   */
  constructor(misreport: (queued: number) => number = (queued) => queued) {
    this.#misreport = misreport;
  }

  /** Enqueues one message, after `delay` if given. */
  enqueue(
    message: unknown,
    options?: MessageQueueEnqueueOptions,
  ): Promise<void> {
    return this.enqueueMany([message], options);
  }

  /** Enqueues several messages, after `delay` if given. */
  enqueueMany(
    messages: readonly unknown[],
    options?: MessageQueueEnqueueOptions,
  ): Promise<void> {
    const delay = options?.delay?.total("millisecond") ?? 0;
    if (delay <= 0) {
      this.#ready.push(...messages);
      this.#wake?.();
      return Promise.resolve();
    }
    this.#delayed += messages.length;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#delayed -= messages.length;
      this.#ready.push(...messages);
      this.#wake?.();
    }, delay);
    this.#timers.add(timer);
    return Promise.resolve();
  }

  /** Hands out messages one at a time until `signal` aborts. */
  async listen(
    handler: (message: unknown) => Promise<void> | void,
    options?: MessageQueueListenOptions,
  ): Promise<void> {
    const signal = options?.signal;
    while (!signal?.aborted) {
      const message = this.#ready.shift();
      if (message !== undefined) {
        await handler(message);
        continue;
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        signal?.addEventListener("abort", () => resolve(), { once: true });
      });
      this.#wake = undefined;
    }
  }

  /** What it holds, passed through the misreport function. */
  getDepth(): Promise<MessageQueueDepth> {
    const ready = this.#ready.length;
    const queued = this.#misreport(ready + this.#delayed);
    return Promise.resolve({ queued, ready, delayed: this.#delayed });
  }

  /** Drops pending delays (for tests that end with messages delayed). */
  clearTimers(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }
}
