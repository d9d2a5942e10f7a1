/**
 * A queue that reorders on purpose, for the ordering tests: it holds every
 * message it is given and hands out each group of {@link GROUP} in reverse
 * order, one at a time.  With two recipients, no fanout and the `cud`
 * workload, a group is exactly one note's Create, Update and Delete to
 * both recipients (Fedify enqueues them in that order, one `sendActivity`
 * after the other), so each recipient gets Delete, Update, Create: two
 * order violations per note and recipient.  Loaded as a user driver module.
 *
 * @module
 */
import type { MessageQueue } from "@fedify/fedify";
import type { Driver } from "../../drivers/driver.ts";

/** Messages reversed at a time: 3 steps × 2 recipients. */
export const GROUP = 6;

/** Holds messages and hands out each full group of them last first. */
class ReversingQueue implements MessageQueue {
  #held: unknown[] = [];
  #ready: unknown[] = [];
  #wake: (() => void) | undefined;

  enqueue(message: unknown): Promise<void> {
    this.#held.push(message);
    if (this.#held.length >= GROUP) {
      this.#ready.push(...this.#held.reverse());
      this.#held = [];
      this.#wake?.();
    }
    return Promise.resolve();
  }

  async enqueueMany(messages: readonly unknown[]): Promise<void> {
    for (const message of messages) await this.enqueue(message);
  }

  async listen(
    handler: (message: unknown) => Promise<void> | void,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    const { signal } = options;
    while (!signal?.aborted) {
      const next = this.#ready.shift();
      if (next !== undefined) {
        await handler(next);
        continue;
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        signal?.addEventListener("abort", () => resolve(), { once: true });
      });
      this.#wake = undefined;
    }
  }
}

/** Consumed by the sender process; reverses groups of {@link GROUP}. */
export const reversingDriver: Driver = {
  name: "test-reversing",
  description: `test: hands out each group of ${GROUP} messages in reverse`,
  crossProcess: false,
  ordering: { supported: false, note: "test: reverses groups on purpose" },
  prepare: () =>
    Promise.resolve({ config: null, cleanup: () => Promise.resolve() }),
  open: () =>
    Promise.resolve({
      queue: new ReversingQueue(),
      close: () => Promise.resolve(),
    }),
};

export default [reversingDriver];
