/**
 * A stand-in for `DenoKvMessageQueue` of `@fedify/denokv` 2.3.6, which is not
 * on the npm registry; `deno.json` maps the name `@fedify/denokv` to this
 * file.  It is written from a reading of upstream's
 * `packages/denokv/src/mod.ts` (branch `2.3-maintenance` of
 * https://github.com/fedify-dev/fedify) and behaves as that class does:
 *
 * - `enqueue()` wraps the message together with its ordering key and makes
 *   one `Deno.Kv.enqueue()` call, with `delay` in milliseconds (negative
 *   delays count as none).  There is no `enqueueMany()`, so Fedify enqueues
 *   a fanout's outbox messages with one `enqueue()` call each.
 * - `nativeRetrial` is `true`: `listen()` hands `Deno.Kv.listenQueue()` a
 *   handler whose promise settles when Fedify's handler does, so Deno KV
 *   acknowledges a message only after it was handled, redelivers it (with
 *   its own backoff) when the handler throws, and runs handlers concurrently
 *   with no limit of the queue's own.
 * - Messages with an ordering key take a lock in the database first (a key
 *   under `orderingLockPrefix`, set with an atomic check, expiring after
 *   60 s), polling every 100 ms while another handler holds it, and release
 *   it when the handler settles.
 * - When the signal given to `listen()` aborts, the `Deno.Kv` is closed,
 *   which ends `listenQueue()`; handlers still running are not waited for.
 *   `[Symbol.dispose]()` closes the `Deno.Kv` too.
 * - There is no `getDepth()`.
 *
 * Differences from upstream's `packages/denokv/src/mod.ts`:
 *
 * - Only `DenoKvMessageQueue` and its options are here; upstream's module
 *   also exports `DenoKvStore`, a `KvStore` the bench does not use.
 * - The types come from `@fedify/fedify` rather than
 *   `@fedify/fedify/federation` (the same types; no behavioural effect).
 *
 * Deno KV itself delivers at least once, with upstream's class as with
 * this one: the local (SQLite) backend gives a message it hands out a
 * deadline of its ready time plus 5 s (not refreshed while the handler runs,
 * as measured with Deno 2.9.6), and a queue cleanup (when any handle opens
 * the file, then about every 60 s in every process that has it open) puts a
 * message still being handled past that deadline back in the queue.  A
 * message that waited over 5 s before being handed out, as every message
 * another process enqueued does, can so be handled twice.
 *
 * @module
 */
import type {
  MessageQueue,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from "@fedify/fedify";
import { sleep } from "../../lib/system/sleep.ts";

/** Options for {@link DenoKvMessageQueue}, as upstream's. */
export interface DenoKvMessageQueueOptions {
  /**
   * The prefix of the keys that lock ordering keys while one of their
   * messages is handled.
   * @default `["__fedify_ordering_lock__"]`
   */
  readonly orderingLockPrefix?: Deno.KvKey;
}

/**
 * What goes into Deno KV's queue: the message and its ordering key, under
 * the property names upstream uses, so that both read each other's messages.
 */
interface Wrapped {
  readonly __fedify_ordering_key__?: string;
  readonly __fedify_payload__: unknown;
}

/** How long an ordering-key lock lives if its holder never releases it. */
const LOCK_TTL_MS = 60_000;
/** How long a handler waits before looking at a held lock again. */
const LOCK_RETRY_MS = 100;

/**
 * A Fedify `MessageQueue` on Deno KV's queue, with the behaviour of
 * `@fedify/denokv` 2.3.6's class of the same name (see the module
 * documentation).
 *
 * ```ts
 * const queue = new DenoKvMessageQueue(await Deno.openKv("queue.db"));
 * const controller = new AbortController();
 * const listening = queue.listen(
 *   (message) => console.log(message),
 *   { signal: controller.signal },
 * );
 * await queue.enqueue({ hello: "world" });
 * controller.abort(); // closes the Deno.Kv
 * await listening;
 * ```
 */
export class DenoKvMessageQueue implements MessageQueue, Disposable {
  /** Deno KV redelivers a message whose handler threw, with its backoff. */
  readonly nativeRetrial = true;

  readonly #kv: Deno.Kv;
  readonly #orderingLockPrefix: Deno.KvKey;

  /**
   * Makes a queue on a Deno KV database, which it closes when its listener
   * is aborted or it is disposed.
   * @param kv The database.
   * @param options Options for the queue.
   */
  constructor(kv: Deno.Kv, options: DenoKvMessageQueueOptions = {}) {
    this.#kv = kv;
    this.#orderingLockPrefix = options.orderingLockPrefix ??
      ["__fedify_ordering_lock__"];
  }

  /**
   * Enqueues one message with one `Deno.Kv.enqueue()` call.
   * @param message The message; anything Deno KV can serialize.
   * @param options The delay (negative counts as none) and ordering key.
   */
  async enqueue(
    // deno-lint-ignore no-explicit-any
    message: any,
    options?: MessageQueueEnqueueOptions,
  ): Promise<void> {
    const wrapped: Wrapped = {
      __fedify_ordering_key__: options?.orderingKey,
      __fedify_payload__: message,
    };
    const delay = options?.delay?.total("millisecond");
    await this.#kv.enqueue(
      wrapped,
      delay == null ? undefined : { delay: Math.max(delay, 0) },
    );
  }

  /**
   * Hands every message Deno KV delivers to `handler`, concurrently.
   * @param handler Called for each message; a throw makes Deno KV deliver
   *                the message again later.
   * @param options The signal whose abort closes the `Deno.Kv`.
   * @returns The promise of `Deno.Kv.listenQueue()`, which settles once the
   *          `Deno.Kv` is closed.
   */
  listen(
    // deno-lint-ignore no-explicit-any
    handler: (message: any) => void | Promise<void>,
    options: MessageQueueListenOptions = {},
  ): Promise<void> {
    options.signal?.addEventListener("abort", () => this.#close(), {
      once: true,
    });
    return this.#kv.listenQueue(async (raw: unknown) => {
      const wrapped = raw as Wrapped;
      const orderingKey = wrapped.__fedify_ordering_key__;
      const message = "__fedify_payload__" in wrapped
        ? wrapped.__fedify_payload__
        : raw;
      if (orderingKey != null) await this.#lock(orderingKey);
      try {
        await handler(message);
      } finally {
        if (orderingKey != null) {
          await this.#kv.delete(this.#lockKey(orderingKey));
        }
      }
    });
  }

  /** Closes the `Deno.Kv`; closing it again is harmless. */
  [Symbol.dispose](): void {
    this.#close();
  }

  #lockKey(orderingKey: string): Deno.KvKey {
    return [...this.#orderingLockPrefix, orderingKey];
  }

  /** Waits until this handler holds the lock of `orderingKey`. */
  async #lock(orderingKey: string): Promise<void> {
    const key = this.#lockKey(orderingKey);
    while (true) {
      const current = await this.#kv.get(key);
      if (current.value == null) {
        const result = await this.#kv.atomic()
          .check(current)
          .set(key, true, { expireIn: LOCK_TTL_MS })
          .commit();
        if (result.ok) return;
      }
      await sleep(LOCK_RETRY_MS);
    }
  }

  #close(): void {
    try {
      this.#kv.close();
    } catch (error) {
      if (!(error instanceof Deno.errors.BadResource)) throw error;
    }
  }
}
