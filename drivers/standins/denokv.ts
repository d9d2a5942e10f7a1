/**
 * A Fedify `MessageQueue` on Deno KV's queue API (`Deno.Kv.enqueue()` and
 * `Deno.Kv.listenQueue()`).  `@fedify/denokv` is not on the npm registry, so
 * the bench has its own; it keeps the semantics of Fedify's
 * `DenoKvMessageQueue` and makes its ordering keys strict.
 *
 * Semantics:
 *
 * - **Envelope.**  Every message travels in an envelope that marks it as
 *   this queue's (and names the queue's `prefix`).  `listen()` acknowledges
 *   and drops any other value Deno KV hands it: values enqueued with
 *   `Deno.Kv.enqueue()` directly, or by a queue with another prefix.  Deno KV
 *   has one queue per database, and every listener on the database may
 *   receive any message, so do not run queues with different prefixes on one
 *   database: each would drop the other's messages.
 * - **Retries.**  `nativeRetrial` is `true`: when the handler throws, Deno KV
 *   redelivers the message.  Measured on the local (SQLite) backend: after
 *   0.1 s, 1 s, 5 s, 30 s and 60 s, then it gives up (6 attempts in about
 *   96 s).  Delivery is at least once.
 * - **Delays.**  `delay` becomes Deno KV's own `delay` (rounded up to whole
 *   milliseconds; negative delays count as none; at most 30 days).
 * - **Batches.**  `enqueueMany()` writes as few atomic operations as Deno
 *   KV's limits allow (1,000 mutations and 800 KiB of payload per
 *   operation; message sizes are measured with the V8 serializer Deno KV
 *   uses).  Each operation is all or nothing; if a later one fails, the
 *   earlier ones stay enqueued.  A single message must stay under 64 KiB.
 * - **Ordering.**  Messages with the same `orderingKey` are handed to the
 *   handler one at a time, in the order their enqueue operations committed
 *   (array order within one `enqueueMany()`), across every process that
 *   shares the database.  Each key has a sequence counter that enqueueing
 *   bumps atomically (one extra read and write per enqueue operation) and a
 *   head record (the next sequence number to handle, and a lease while one
 *   is being handled) that listeners take and advance with atomic checks.  A
 *   message that arrives before its turn, or while the key is leased, is
 *   enqueued again with a short delay (50 ms for each message ahead of it,
 *   at most 1 s) and its delivery acknowledged, like Fedify's queue does
 *   with its lock.  Consequences:
 *   - a message waits for every earlier message with its key, including a
 *     delayed one and one that Deno KV is retrying; the key moves past a
 *     message only when it has been handled successfully or Deno KV has
 *     given up on it (recorded through `keysIfUndelivered`);
 *   - consecutive messages of a key are at least one Deno KV round trip
 *     apart, and up to 50 ms when the next one is already waiting;
 *   - the lease lasts 30 s and is renewed every 10 s while the handler runs,
 *     so a message overlaps with another of its key only if a process stops
 *     renewing (crashes, or blocks its event loop for 30 s);
 *   - a message handled successfully by a process that died before it could
 *     advance the head is handled again, before its successors;
 *   - duplicate deliveries of a message already handled are dropped.
 *   When a key has nothing left to handle its records are deleted, and a new
 *   epoch starts with the next message, so keys do not pile up.  Messages
 *   without an ordering key cost no extra reads or writes.
 * - **Concurrency.**  Deno KV hands messages to the handler concurrently,
 *   without a limit of its own (well over a hundred at once were measured).
 *   Do not wrap this queue in Fedify's `ParallelMessageQueue`: it resolves
 *   the handler it passes in before the work is done, which would release
 *   ordering leases early and hide failures from the native retry.
 * - **Listening and closing.**  Deno KV allows one `listenQueue()` per
 *   `Deno.Kv` and ends it only when the `Deno.Kv` is closed, so this queue
 *   owns the `Deno.Kv` it is given: when the signal passed to `listen()`
 *   aborts, it stops taking new messages, waits for the handlers already
 *   running, closes the `Deno.Kv` and then resolves.  Deno KV hands a
 *   listener messages without waiting for its handlers (over a hundred at
 *   a time were measured), so some are usually in hand when the signal
 *   aborts; those are left unacknowledged, and Deno KV delivers them again
 *   to the next listener on the database 60 to 120 s later (measured; the
 *   ones it had not handed over come at once).  Nothing is lost, but those
 *   messages are late.  `[Symbol.asyncDispose]()` does the same and also
 *   closes a queue that never listened.  Give the queue its own `Deno.Kv`
 *   (`Deno.openKv()` on the same path again for anything else).
 * - **Other processes.**  The local backend looks at the queue when the
 *   `Deno.Kv` is opened, when this process enqueues something, and
 *   otherwise about every 60 s (measured).  So messages that another
 *   process enqueues after this one opened the database wait up to a
 *   minute, even if `listen()` is called later; `Deno.Kv.watch()` does not
 *   see such writes either.  The `pollInterval` option makes the listener
 *   enqueue a tiny no-op message that often, so such messages are picked
 *   up within that interval.
 * - **Depth.**  There is no `getDepth()`: Deno KV cannot count its queue,
 *   and counting ourselves would cost a write for every message.
 *
 * @module
 */
import type {
  MessageQueue,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from "@fedify/fedify";
import { serialize } from "node:v8";

/** Options for {@link DenoKvMessageQueue}. */
export interface DenoKvMessageQueueOptions {
  /**
   * The prefix of every key this queue keeps in the database (ordering
   * state), and the name its envelopes carry.
   * @default `["fedify_queue_bench_mq"]`
   */
  readonly prefix?: Deno.KvKey;
  /**
   * How often a listener wakes Deno KV up so that it picks up messages
   * other processes have enqueued, by enqueueing a no-op message.  Without
   * it (the default) the local backend notices them only on its own poll,
   * about once a minute.  Costs one enqueue and one delivery per interval.
   */
  readonly pollInterval?: Temporal.Duration | Temporal.DurationLike;
}

/** The property that marks a Deno KV queue value as one of our envelopes. */
const ENVELOPE_MARKER = "__fedify_queue_bench_denokv__";

/** What this queue puts in Deno KV's queue. */
interface Envelope {
  /** The queue's name, derived from its prefix. */
  readonly [ENVELOPE_MARKER]: string;
  /** The message itself; absent in a wake-up envelope. */
  readonly message?: unknown;
  /** The message's ordering key, if any. */
  readonly orderingKey?: string;
  /** The epoch of the ordering key that {@link Envelope.seq} belongs to. */
  readonly epoch?: string;
  /** The message's place in its ordering key's sequence. */
  readonly seq?: number;
  /** Set on the no-op messages that wake a listener up. */
  readonly wake?: true;
}

/** The enqueue side of an ordering key: the next number to hand out. */
interface TailState {
  readonly epoch: string;
  readonly next: number;
}

/** The handling side of an ordering key: the next number to handle. */
interface HeadState {
  readonly epoch: string;
  readonly next: number;
  /** While a message is being handled, when its lease runs out (epoch ms). */
  readonly leaseUntil: number;
}

/** A handler as Fedify passes it to {@link MessageQueue.listen}. */
// deno-lint-ignore no-explicit-any
type Handler = (message: any) => Promise<void> | void;

const DEFAULT_PREFIX: Deno.KvKey = ["fedify_queue_bench_mq"];
/** Deno KV's limit on mutations (sets, deletes, enqueues) per operation. */
const MAX_MUTATIONS = 1000;
/** Deno KV's limit on the total size of an atomic operation's mutations. */
const MAX_MUTATION_BYTES = 800 * 1024;
/** Room left in each operation for the sequence counter's key and value. */
const RESERVED_BYTES = 8 * 1024;
/** Deno KV's limit on one enqueued value. */
const MAX_PAYLOAD_BYTES = 64 * 1024;
/** Longest delay Deno KV accepts. */
const MAX_DELAY_MS = 30 * 24 * 60 * 60 * 1000;
/** How long an ordering lease lasts without being renewed. */
const LEASE_MS = 30_000;
/** How often a running handler renews its ordering lease. */
const LEASE_RENEW_MS = 10_000;
/** Delay before a waiting message looks again, per message ahead of it. */
const WAIT_STEP_MS = 50;
/** Longest delay before a waiting message looks again. */
const WAIT_MAX_MS = 1_000;

/**
 * A Fedify `MessageQueue` on Deno KV's queue.  See the module documentation
 * for its semantics, ordering guarantee and lifecycle.
 *
 * ```ts
 * const queue = new DenoKvMessageQueue(await Deno.openKv("queue.db"));
 * const controller = new AbortController();
 * const listening = queue.listen(
 *   (message) => console.log(message),
 *   { signal: controller.signal },
 * );
 * await queue.enqueue({ hello: "world" }, { orderingKey: "alice" });
 * controller.abort();
 * await listening; // the Deno.Kv is closed now
 * ```
 */
export class DenoKvMessageQueue implements MessageQueue, AsyncDisposable {
  /**
   * Deno KV redelivers a message whose handler threw, with its own backoff.
   */
  readonly nativeRetrial = true;

  readonly #kv: Deno.Kv;
  readonly #prefix: Deno.KvKey;
  readonly #name: string;
  readonly #pollIntervalMs?: number;
  #closed = false;
  #listening?: Promise<void>;
  /** Ends the current `listen()`; set while it runs. */
  #stop?: () => void;
  /** Set once `listen()` has been told to stop. */
  #stopping = false;
  /** The handlers running now, which a stopping listener waits for. */
  readonly #running = new Set<Promise<void>>();
  /** Settles once the Deno.Kv is closed; held by late deliveries. */
  readonly #kvClosed: Promise<void>;
  #resolveKvClosed!: () => void;

  /**
   * Makes a queue on the given Deno KV database, which the queue then owns:
   * it closes it when its listener stops or when it is disposed.
   * @param kv The database.  Do not call `listenQueue()` on it yourself.
   * @param options Options for the queue.
   */
  constructor(kv: Deno.Kv, options: DenoKvMessageQueueOptions = {}) {
    this.#kv = kv;
    this.#prefix = options.prefix ?? DEFAULT_PREFIX;
    this.#name = keyName(this.#prefix);
    if (options.pollInterval != null) {
      const ms = Temporal.Duration.from(options.pollInterval)
        .total("millisecond");
      if (!(ms > 0)) throw new RangeError("pollInterval must be positive.");
      this.#pollIntervalMs = ms;
    }
    this.#kvClosed = new Promise((resolve) => {
      this.#resolveKvClosed = resolve;
    });
  }

  /**
   * Enqueues a message.
   * @param message The message; anything the structured clone algorithm
   *                can copy, under 64 KiB serialized.
   * @param options The delay and the ordering key, if any.
   */
  enqueue(
    // deno-lint-ignore no-explicit-any
    message: any,
    options?: MessageQueueEnqueueOptions,
  ): Promise<void> {
    return this.enqueueMany([message], options);
  }

  /**
   * Enqueues messages in as few atomic operations as Deno KV allows.  With
   * an ordering key they are handled in array order.
   * @param messages The messages.
   * @param options The delay and the ordering key, if any, for all of them.
   * @throws {RangeError} If a message is 64 KiB or larger serialized; then
   *                      none is enqueued.
   */
  async enqueueMany(
    // deno-lint-ignore no-explicit-any
    messages: readonly any[],
    options?: MessageQueueEnqueueOptions,
  ): Promise<void> {
    if (this.#closed) throw new TypeError("The queue is closed.");
    if (messages.length < 1) return;
    const delay = toDelay(options?.delay);
    const orderingKey = options?.orderingKey;
    for (const chunk of this.#chunk(messages, orderingKey)) {
      if (orderingKey == null) await this.#enqueueChunk(chunk, delay);
      else await this.#enqueueOrderedChunk(chunk, orderingKey, delay);
    }
  }

  /**
   * Listens for messages until the signal aborts, then waits for the
   * handlers that are running, closes the Deno.Kv and resolves.  A queue
   * listens at most once.
   * @param handler Called for every message, concurrently; a throw makes
   *                Deno KV deliver the message again later.
   * @param options The signal that ends listening.
   * @returns Resolves after the signal aborts and the Deno.Kv is closed.
   *          Rejects only when the queue cannot listen at all: it already
   *          listened or was closed, or something else listens on its
   *          Deno.Kv.
   */
  listen(
    // deno-lint-ignore no-explicit-any
    handler: (message: any) => Promise<void> | void,
    options: MessageQueueListenOptions = {},
  ): Promise<void> {
    if (this.#closed || this.#listening != null) {
      return Promise.reject(
        new TypeError(
          this.#closed
            ? "The queue is closed."
            : "The queue is already listening; Deno KV allows one listener " +
              "per Deno.Kv.",
        ),
      );
    }
    this.#listening = this.#listen(handler, options.signal);
    return this.#listening;
  }

  /**
   * Stops the listener as an abort would and closes the Deno.Kv.  Safe to
   * call more than once.
   */
  async [Symbol.asyncDispose](): Promise<void> {
    if (this.#listening != null) {
      this.#stop?.();
      await this.#listening.catch(() => {});
    }
    this.#close();
  }

  async #listen(handler: Handler, signal?: AbortSignal): Promise<void> {
    const { promise: stopped, resolve: stop } = Promise.withResolvers<void>();
    this.#stop = stop;
    const onAbort = (): void => stop();
    if (signal?.aborted) stop();
    signal?.addEventListener("abort", onAbort, { once: true });
    const loop = this.#kv.listenQueue((value: unknown) =>
      this.#deliver(value, handler)
    );
    let wakeTimer: ReturnType<typeof setInterval> | undefined;
    if (this.#pollIntervalMs != null) {
      const wake: Envelope = { [ENVELOPE_MARKER]: this.#name, wake: true };
      wakeTimer = setInterval(() => {
        this.#kv.enqueue(wake).catch(() => {});
      }, this.#pollIntervalMs);
    }
    try {
      // The loop ends by itself only if someone else closes the Deno.Kv,
      // and rejects if it cannot listen at all (another listener on it).
      await Promise.race([stopped, loop]);
      this.#stopping = true;
      clearInterval(wakeTimer);
      while (this.#running.size > 0) {
        await Promise.allSettled([...this.#running]);
      }
    } finally {
      clearInterval(wakeTimer);
      signal?.removeEventListener("abort", onAbort);
      this.#close();
      await loop.catch(() => {});
    }
  }

  /** What `listenQueue()` calls for every value it dequeues. */
  #deliver(value: unknown, handler: Handler): Promise<void> {
    if (!isEnvelope(value) || value[ENVELOPE_MARKER] !== this.#name) {
      return Promise.resolve();
    }
    if (value.wake) return Promise.resolve();
    // Leave it unacknowledged; Deno KV delivers it again after we close.
    if (this.#stopping) return this.#kvClosed;
    const task = value.orderingKey == null
      ? Promise.resolve().then(() => handler(value.message))
      : this.#handleOrdered(value, handler);
    this.#running.add(task);
    return task.finally(() => this.#running.delete(task));
  }

  async #handleOrdered(envelope: Envelope, handler: Handler): Promise<void> {
    const orderingKey = envelope.orderingKey!;
    const epoch = envelope.epoch!;
    const seq = envelope.seq!;
    const headKey = this.#key("head", orderingKey);
    const tailKey = this.#key("tail", orderingKey);
    let lease: HeadState;
    let versionstamp: string;
    while (true) {
      const [head, tail] = await this.#kv.getMany<[HeadState, TailState]>([
        headKey,
        tailKey,
      ]);
      // The epoch was finished and cleared: this is a late duplicate.
      if (tail.value?.epoch !== epoch) return;
      const state: HeadState = head.value?.epoch === epoch
        ? head.value
        : { epoch, next: 0, leaseUntil: 0 };
      if (seq < state.next) return; // Already handled (or given up on).
      const now = Date.now();
      if (state.leaseUntil > now) {
        return await this.#wait(envelope, seq - state.next);
      }
      if (seq > state.next) {
        // Has Deno KV given up on the message whose turn it is?
        const lostKey = this.#lostKey(orderingKey, epoch, state.next);
        const lost = await this.#kv.get(lostKey);
        if (lost.versionstamp == null) {
          return await this.#wait(envelope, seq - state.next);
        }
        await this.#kv.atomic()
          .check(head, lost)
          .set(headKey, { epoch, next: state.next + 1, leaseUntil: 0 })
          .delete(lostKey)
          .commit();
        continue;
      }
      lease = { epoch, next: seq, leaseUntil: now + LEASE_MS };
      const result = await this.#kv.atomic()
        .check(head)
        .set(headKey, lease)
        .commit();
      if (result.ok) {
        versionstamp = result.versionstamp;
        break;
      }
    }

    // Renew the lease while the handler runs; renewals run one at a time.
    let renewing: Promise<void> = Promise.resolve();
    const renew = async (): Promise<void> => {
      const renewed = { ...lease, leaseUntil: Date.now() + LEASE_MS };
      const result = await this.#kv.atomic()
        .check({ key: headKey, versionstamp })
        .set(headKey, renewed)
        .commit()
        .catch(() => null);
      if (result?.ok) versionstamp = result.versionstamp;
    };
    const timer = setInterval(() => {
      renewing = renewing.then(renew);
    }, LEASE_RENEW_MS);
    try {
      await handler(envelope.message);
    } catch (error) {
      clearInterval(timer);
      await renewing;
      // Free the key so that Deno KV's redelivery can take it again.
      await this.#kv.atomic()
        .check({ key: headKey, versionstamp })
        .set(headKey, { epoch, next: seq, leaseUntil: 0 })
        .commit()
        .catch(() => {});
      throw error;
    }
    clearInterval(timer);
    await renewing;
    await this.#advance(orderingKey, epoch, seq, versionstamp);
  }

  /** Moves an ordering key past a message that was handled. */
  async #advance(
    orderingKey: string,
    epoch: string,
    seq: number,
    versionstamp: string,
  ): Promise<void> {
    const headKey = this.#key("head", orderingKey);
    const tailKey = this.#key("tail", orderingKey);
    while (true) {
      const tail = await this.#kv.get<TailState>(tailKey);
      const op = this.#kv.atomic().check({ key: headKey, versionstamp });
      if (tail.value?.epoch === epoch && tail.value.next === seq + 1) {
        // Nothing else enqueued: clear the key; its next message starts a
        // new epoch.
        op.check(tail).delete(headKey).delete(tailKey);
      } else {
        op.set(headKey, { epoch, next: seq + 1, leaseUntil: 0 });
      }
      if ((await op.commit()).ok) return;
      // Either a message was just enqueued (try again) or our lease ran out
      // and another listener took the key over (leave it to that one).
      const head = await this.#kv.get(headKey);
      if (head.versionstamp !== versionstamp) return;
    }
  }

  /** Puts a message that is not its turn back, to look again later. */
  async #wait(envelope: Envelope, ahead: number): Promise<void> {
    const delay = Math.min(WAIT_STEP_MS * Math.max(ahead, 1), WAIT_MAX_MS);
    await this.#kv.enqueue(envelope, {
      delay,
      keysIfUndelivered: [
        this.#lostKey(envelope.orderingKey!, envelope.epoch!, envelope.seq!),
      ],
    });
  }

  /** Splits messages into groups that fit in one atomic operation. */
  #chunk(
    messages: readonly unknown[],
    orderingKey?: string,
  ): (readonly unknown[])[] {
    // One message always fits; Deno KV checks its size itself.
    if (messages.length < 2) return [messages];
    // The envelope's fields besides the message, generously.
    const overhead = 128 + 2 * (this.#name.length + (orderingKey?.length ?? 0));
    const maxCount = MAX_MUTATIONS - 1;
    const maxBytes = MAX_MUTATION_BYTES - RESERVED_BYTES -
      2 * (orderingKey?.length ?? 0);
    const chunks: (readonly unknown[])[] = [];
    let chunk: unknown[] = [];
    let bytes = 0;
    for (const message of messages) {
      const size = serialize(message).byteLength + overhead;
      if (size >= MAX_PAYLOAD_BYTES) {
        throw new RangeError(
          `A message is too large for Deno KV (${size} bytes serialized; ` +
            `the limit is ${MAX_PAYLOAD_BYTES}).`,
        );
      }
      if (chunk.length >= maxCount || bytes + size > maxBytes) {
        chunks.push(chunk);
        chunk = [];
        bytes = 0;
      }
      chunk.push(message);
      bytes += size;
    }
    chunks.push(chunk);
    return chunks;
  }

  async #enqueueChunk(
    messages: readonly unknown[],
    delay: number,
  ): Promise<void> {
    const op = this.#kv.atomic();
    for (const message of messages) {
      const envelope: Envelope = { [ENVELOPE_MARKER]: this.#name, message };
      op.enqueue(envelope, { delay });
    }
    await op.commit();
  }

  async #enqueueOrderedChunk(
    messages: readonly unknown[],
    orderingKey: string,
    delay: number,
  ): Promise<void> {
    const tailKey = this.#key("tail", orderingKey);
    while (true) {
      const tail = await this.#kv.get<TailState>(tailKey);
      const epoch = tail.value?.epoch ?? newEpoch();
      const first = tail.value?.next ?? 0;
      const op = this.#kv.atomic()
        .check(tail)
        .set(tailKey, { epoch, next: first + messages.length });
      messages.forEach((message, i) => {
        const seq = first + i;
        const envelope: Envelope = {
          [ENVELOPE_MARKER]: this.#name,
          message,
          orderingKey,
          epoch,
          seq,
        };
        op.enqueue(envelope, {
          delay,
          keysIfUndelivered: [this.#lostKey(orderingKey, epoch, seq)],
        });
      });
      if ((await op.commit()).ok) return;
    }
  }

  #key(kind: "head" | "tail", orderingKey: string): Deno.KvKey {
    return [...this.#prefix, kind, orderingKey];
  }

  /** Where Deno KV notes that it gave up on a message with this number. */
  #lostKey(orderingKey: string, epoch: string, seq: number): Deno.KvKey {
    return [...this.#prefix, "lost", orderingKey, epoch, seq];
  }

  #close(): void {
    this.#closed = true;
    try {
      this.#kv.close();
    } catch (error) {
      if (!(error instanceof Deno.errors.BadResource)) throw error;
    }
    this.#resolveKvClosed();
  }
}

function isEnvelope(value: unknown): value is Envelope {
  return typeof value === "object" && value != null &&
    ENVELOPE_MARKER in value;
}

/** Turns Fedify's delay into Deno KV's: whole milliseconds, not negative. */
function toDelay(delay?: Temporal.Duration): number {
  if (delay == null) return 0;
  const ms = Math.max(Math.ceil(delay.total("millisecond")), 0);
  if (ms > MAX_DELAY_MS) {
    throw new RangeError("Deno KV cannot delay a message by over 30 days.");
  }
  return ms;
}

/** A random name for a new epoch of an ordering key. */
function newEpoch(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A string that names a Deno KV key, for comparing prefixes. */
function keyName(key: Deno.KvKey): string {
  return JSON.stringify(
    key.map((part) =>
      typeof part === "bigint"
        ? `${part}n`
        : part instanceof Uint8Array
        ? Array.from(part)
        : part
    ),
  );
}
