/**
 * A driver whose speed is known by construction, for tests of the budget's
 * early stop and of the estimate: an in-memory queue, consumed by the
 * sender process, that hands its messages to the handler one at a time on a
 * fixed schedule, message `k` no earlier than `k ×` {@link PACED_INTERVAL_MS}
 * after the first, so `n` messages take `n ×` the interval as long as the
 * sender keeps up (one delivery at a time, far below its capacity).  Below
 * Fedify's fanout threshold (fewer than 5 recipients) every message is one
 * delivery.  Loaded as a user driver module.
 *
 * @module
 */
import type {
  MessageQueue,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from "@fedify/fedify";
import type { Driver } from "../../drivers/driver.ts";

/** Milliseconds between two messages handed to the handler. */
export const PACED_INTERVAL_MS = 100;

/** An in-memory queue that hands out one message per interval. */
class PacedQueue implements MessageQueue {
  readonly #messages: unknown[] = [];
  #wake: (() => void) | undefined;
  /** When the first message was enqueued: the schedule counts from it. */
  #firstAt: number | undefined;

  enqueue(
    message: unknown,
    _options?: MessageQueueEnqueueOptions,
  ): Promise<void> {
    this.#firstAt ??= performance.now();
    this.#messages.push(message);
    this.#wake?.();
    return Promise.resolve();
  }

  async listen(
    // deno-lint-ignore no-explicit-any
    handler: (message: any) => Promise<void> | void,
    options: MessageQueueListenOptions = {},
  ): Promise<void> {
    const { signal } = options;
    let handed = 0;
    while (!signal?.aborted) {
      if (this.#messages.length === 0) {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
          signal?.addEventListener("abort", () => resolve(), { once: true });
        });
        this.#wake = undefined;
        continue;
      }
      const due = this.#firstAt! + handed * PACED_INTERVAL_MS;
      const wait = due - performance.now();
      if (wait > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait);
          signal?.addEventListener("abort", () => {
            clearTimeout(timer);
            resolve();
          }, { once: true });
        });
        if (signal?.aborted) break;
      }
      handed++;
      try {
        await handler(this.#messages.shift());
      } catch { /* Fedify retries through enqueue; nothing to do here */ }
    }
  }
}

/** Delivers one message per {@link PACED_INTERVAL_MS}, in the sender. */
export const pacedDriver: Driver = {
  name: "test-paced",
  description: `test: one delivery every ${PACED_INTERVAL_MS} ms`,
  crossProcess: false,
  volatile: true,
  prepare: () =>
    Promise.resolve({ config: null, cleanup: () => Promise.resolve() }),
  open: () =>
    Promise.resolve({
      queue: new PacedQueue(),
      close: () => Promise.resolve(),
    }),
};

export default [pacedDriver];
