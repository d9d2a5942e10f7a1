/**
 * A Fedify `MessageQueue` on RabbitMQ (AMQP 0-9-1, through `amqplib`).
 * `@fedify/amqp` is not on the npm registry, so the bench has its own; it
 * follows the same design and adds publisher confirms, a bounded prefetch
 * and ordering without broker plugins.
 *
 * Semantics:
 *
 * - **Durability.**  Every queue is durable and every message persistent.
 *   `enqueue()` and `enqueueMany()` resolve only after the broker has
 *   confirmed every message (publisher confirms), so a resolved enqueue
 *   survives a broker restart.
 * - **Acknowledgement.**  `listen()` hands messages to the handler one at a
 *   time and acknowledges each only after the handler's promise settles.  A
 *   listener that dies (or a connection that drops) before that leaves the
 *   message to be redelivered: delivery is at least once.  Note that Fedify's
 *   `ParallelMessageQueue` resolves the handler it gives its inner queue as
 *   soon as a worker slot is free, so under it "after the handler" means
 *   "once a worker has started on it".
 * - **Failures.**  With `nativeRetrial: false` (the default, as in Fedify's
 *   own AMQP queue) a message is acknowledged even when the handler throws:
 *   Fedify has then already scheduled its own retry with its backoff policy.
 *   With `nativeRetrial: true` a failed message is rejected with requeue, and
 *   RabbitMQ redelivers it at once, without backoff.
 * - **Delays.**  A delayed message waits in a queue per delay whose
 *   `x-message-ttl` is that delay and whose dead-letter target is the ready
 *   queue; such queues delete themselves (`x-expires`) a minute after their
 *   last use.  Delays are rounded up to two significant digits (at most 10 %
 *   later) so that jittered retries share a few queues instead of making one
 *   each.  A delay is a lower bound: the message becomes ready no earlier.
 *   RabbitMQ moves an expired message from a classic queue to its target
 *   without confirmation, so a broker crash at that moment can lose it.
 * - **Ordering.**  Messages with an `orderingKey` go to one of
 *   `orderingPartitions` partition queues, chosen by a hash of the key.  Each
 *   partition is a single-active-consumer queue, so across all processes one
 *   listener at a time receives it, in FIFO order, and hands it to the
 *   handler one message at a time.  Messages with the same key are therefore
 *   handled in enqueue order, one after another, as long as they carry the
 *   same delay (a delayed message joins its partition when its delay ends)
 *   and the handler succeeds (a message requeued by `nativeRetrial` can be
 *   overtaken by the ones already prefetched).  Under `ParallelMessageQueue`
 *   only the start order holds, as the note on acknowledgement explains.
 * - **Prefetch.**  Each listener lets the broker push up to `prefetch`
 *   unacknowledged messages per consumed queue ahead of the handler, which
 *   hides the round trip of one acknowledgement; it does not make handlers
 *   run concurrently.
 *
 * Names: the ready queue is `queue`; partitions are `queue.ordering.N`, delay
 * queues `queue.delay.MS` (and `queue.delay.MS.ordering.N`), and
 * `queue.delays` records every delay queue made so that {@link
 * AmqpMessageQueue.drop} can find them.
 *
 * @module
 */
import type {
  MessageQueue,
  MessageQueueDepth,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from "@fedify/fedify";
import type {
  Channel,
  ChannelModel,
  ConfirmChannel,
  ConsumeMessage,
} from "amqplib";
import { Buffer } from "node:buffer";

/** Options for {@link AmqpMessageQueue}. */
export interface AmqpMessageQueueOptions {
  /**
   * The name of the ready queue, and the prefix of every other queue this
   * queue makes.
   */
  readonly queue: string;
  /**
   * How many unacknowledged messages the broker may push to a listener ahead
   * of the handler, per consumed queue.  Measured locally, 5 or more keeps
   * a listener busy; more only lets one process hoard messages that another
   * could handle.
   * @default 20
   */
  readonly prefetch?: number;
  /**
   * Whether RabbitMQ, not Fedify, retries failed messages (by requeueing
   * them at once).
   * @default false
   */
  readonly nativeRetrial?: boolean;
  /**
   * How many partition queues carry messages that have an ordering key.
   * `0` turns ordering off: ordering keys are then ignored.
   * @default 4
   */
  readonly orderingPartitions?: number;
}

/** A delay queue lives this long past its own delay without use. */
const DELAY_QUEUE_EXPIRY_MARGIN_MS = 60_000;
/** Re-declaring a delay queue this often keeps it from expiring. */
const DELAY_QUEUE_RENEW_MS = 10_000;
/** RabbitMQ's limit for `x-message-ttl` and `x-expires`. */
const MAX_TTL_MS = 2 ** 32 - 1;

/**
 * Rounds a delay up to two significant digits (1234 ms → 1300 ms), so that
 * nearby delays share a queue.
 */
export function delayBucket(ms: number): number {
  const whole = Math.max(1, Math.ceil(ms));
  const digits = String(whole).length;
  if (digits <= 2) return whole;
  const step = 10 ** (digits - 2);
  return Math.ceil(whole / step) * step;
}

/** A stable 32-bit FNV-1a hash of a string's UTF-16 code units. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Where a message goes: a queue, and the delay queue's settings if any. */
interface Route {
  readonly queue: string;
  readonly delay?: { readonly ms: number; readonly target: string };
}

/**
 * A Fedify message queue on RabbitMQ.  See the module documentation for its
 * semantics.  The connection belongs to the caller, who closes it after
 * every listener has stopped.  Open it with `noDelay: true`: `amqplib`
 * leaves Nagle's algorithm on, and every confirmed enqueue then takes about
 * 40 ms instead of about 1 ms.
 *
 * @example
 * ```ts
 * import { connect } from "amqplib";
 * const connection = await connect("amqp://127.0.0.1", { noDelay: true });
 * const queue = new AmqpMessageQueue(connection, { queue: "fedify" });
 * ```
 */
export class AmqpMessageQueue implements MessageQueue {
  /** Whether RabbitMQ retries failed messages; see the options. */
  readonly nativeRetrial: boolean;
  readonly #connection: ChannelModel;
  readonly #queue: string;
  readonly #prefetch: number;
  readonly #partitions: number;
  #publisher?: Promise<ConfirmChannel>;
  /** Delay queues this instance declared: name → when, and its delay. */
  readonly #delayQueues = new Map<string, { declared: number; ms: number }>();

  /**
   * @param connection An open `amqplib` connection.
   * @param options The queue name and tuning.
   */
  constructor(connection: ChannelModel, options: AmqpMessageQueueOptions) {
    if (options.queue === "") throw new TypeError("queue must not be empty");
    this.#connection = connection;
    this.#queue = options.queue;
    this.#prefetch = options.prefetch ?? 20;
    this.#partitions = options.orderingPartitions ?? 4;
    this.nativeRetrial = options.nativeRetrial ?? false;
    if (!Number.isInteger(this.#prefetch) || this.#prefetch < 1) {
      throw new RangeError("prefetch must be a positive integer");
    }
    if (!Number.isInteger(this.#partitions) || this.#partitions < 0) {
      throw new RangeError("orderingPartitions must be a whole number");
    }
  }

  /** The ready queue and the ordering partitions: what listeners consume. */
  get #consumed(): string[] {
    return [
      this.#queue,
      ...Array.from(
        { length: this.#partitions },
        (_, i) => `${this.#queue}.ordering.${i}`,
      ),
    ];
  }

  get #registry(): string {
    return `${this.#queue}.delays`;
  }

  /** Declares the ready, partition and registry queues (idempotent). */
  async #declare(channel: Channel): Promise<void> {
    await channel.assertQueue(this.#queue, { durable: true });
    for (const name of this.#consumed.slice(1)) {
      await channel.assertQueue(name, {
        durable: true,
        arguments: { "x-single-active-consumer": true },
      });
    }
    await channel.assertQueue(this.#registry, { durable: true });
  }

  /**
   * Declares every queue that listeners consume.  Optional: the queue does
   * this itself on first use; calling it early lets listeners and senders
   * start in any order without racing.
   */
  async initialize(): Promise<void> {
    await this.#withChannel((channel) => this.#declare(channel));
  }

  /**
   * Deletes every queue this queue made, in every process: the ready queue,
   * the partitions, and the delay queues recorded in the registry, with the
   * messages they hold.  Call it once nothing uses the queue any more.
   */
  async drop(): Promise<void> {
    await this.#withChannel(async (channel) => {
      await channel.assertQueue(this.#registry, { durable: true });
      const names = new Set<string>();
      while (true) {
        const entry = await channel.get(this.#registry, { noAck: true });
        if (entry === false) break;
        names.add(entry.content.toString("utf-8"));
      }
      for (const name of [...names, ...this.#consumed, this.#registry]) {
        await channel.deleteQueue(name);
      }
    });
    this.#delayQueues.clear();
  }

  /** Runs `fn` on a channel of its own, closed afterwards. */
  async #withChannel<T>(fn: (channel: Channel) => Promise<T>): Promise<T> {
    const channel = await this.#connection.createChannel();
    channel.on("error", () => {/* the failing call rejects */});
    try {
      return await fn(channel);
    } finally {
      await channel.close().catch(() => {});
    }
  }

  /** The shared confirm channel for publishing, opened on first use. */
  #publisherChannel(): Promise<ConfirmChannel> {
    if (this.#publisher != null) return this.#publisher;
    const opening = (async () => {
      const channel = await this.#connection.createConfirmChannel();
      channel.on("error", () => {/* pending publishes and calls reject */});
      channel.on("close", () => {
        if (this.#publisher === opening) this.#publisher = undefined;
      });
      await this.#declare(channel);
      return channel;
    })();
    this.#publisher = opening;
    opening.catch(() => {
      if (this.#publisher === opening) this.#publisher = undefined;
    });
    return opening;
  }

  /** Chooses the queue for a message with the given options. */
  #route(options?: MessageQueueEnqueueOptions): Route {
    const key = options?.orderingKey;
    const target = key == null || this.#partitions === 0
      ? this.#queue
      : `${this.#queue}.ordering.${hash(key) % this.#partitions}`;
    const delay = options?.delay?.total("millisecond") ?? 0;
    if (!(delay > 0)) return { queue: target };
    const ms = delayBucket(delay);
    if (ms + DELAY_QUEUE_EXPIRY_MARGIN_MS > MAX_TTL_MS) {
      throw new RangeError(`delay too long for RabbitMQ: ${delay} ms`);
    }
    const suffix = target === this.#queue
      ? ""
      : target.slice(this.#queue.length);
    return {
      queue: `${this.#queue}.delay.${ms}${suffix}`,
      delay: { ms, target },
    };
  }

  /**
   * Declares a delay queue unless this instance did so recently; the
   * declaration also renews its `x-expires` lease.  The first time, records
   * its name in the registry for {@link drop}.
   */
  async #declareDelayQueue(
    channel: ConfirmChannel,
    route: Route,
    confirms: Promise<void>[],
  ): Promise<void> {
    if (route.delay == null) return;
    const now = Date.now();
    const known = this.#delayQueues.get(route.queue);
    if (known != null && now - known.declared < DELAY_QUEUE_RENEW_MS) return;
    await channel.assertQueue(route.queue, {
      durable: true,
      arguments: {
        "x-message-ttl": route.delay.ms,
        "x-dead-letter-exchange": "",
        "x-dead-letter-routing-key": route.delay.target,
        "x-expires": route.delay.ms + DELAY_QUEUE_EXPIRY_MARGIN_MS,
      },
    });
    if (known == null) {
      const entry = Buffer.from(route.queue, "utf-8");
      confirms.push(publish(channel, this.#registry, entry).confirmed);
    }
    this.#delayQueues.set(route.queue, { declared: now, ms: route.delay.ms });
  }

  /**
   * Enqueues a message; resolves once the broker has confirmed it.
   * @param message A JSON-serializable message.
   * @param options A delay and an ordering key, both optional.
   */
  enqueue(
    // deno-lint-ignore no-explicit-any
    message: any,
    options?: MessageQueueEnqueueOptions,
  ): Promise<void> {
    return this.enqueueMany([message], options);
  }

  /**
   * Enqueues messages with the same options; resolves once the broker has
   * confirmed all of them.  Each is delivered once (at least once, should a
   * listener die before acknowledging it).
   * @param messages JSON-serializable messages.
   * @param options A delay and an ordering key, both optional.
   */
  async enqueueMany(
    // deno-lint-ignore no-explicit-any
    messages: readonly any[],
    options?: MessageQueueEnqueueOptions,
  ): Promise<void> {
    if (messages.length < 1) return;
    const route = this.#route(options);
    const channel = await this.#publisherChannel();
    const confirms: Promise<void>[] = [];
    await this.#declareDelayQueue(channel, route, confirms);
    for (const message of messages) {
      const body = Buffer.from(JSON.stringify(message), "utf-8");
      const { confirmed, writable } = publish(channel, route.queue, body);
      confirms.push(confirmed);
      if (!writable) await drained(channel);
    }
    await Promise.all(confirms);
  }

  /**
   * Counts the messages waiting: `ready` in the ready and partition queues,
   * `delayed` in the delay queues this instance declared (delays enqueued by
   * other processes are not seen).  Messages handed to a listener and not
   * yet acknowledged are not counted.  Costs one passive declaration per
   * queue and writes nothing.
   */
  async getDepth(): Promise<MessageQueueDepth> {
    let ready = 0;
    await this.#withChannel(async (channel) => {
      for (const name of this.#consumed) {
        ready += (await channel.checkQueue(name)).messageCount;
      }
    });
    let delayed = 0;
    const now = Date.now();
    for (const [name, { declared, ms }] of this.#delayQueues) {
      if (now > declared + ms + DELAY_QUEUE_EXPIRY_MARGIN_MS) {
        this.#delayQueues.delete(name);
        continue;
      }
      // A missing queue closes the channel, hence one channel per check.
      delayed += await this.#withChannel((channel) =>
        channel.checkQueue(name).then((reply) => reply.messageCount)
      ).catch(() => 0);
    }
    return { queued: ready + delayed, ready, delayed };
  }

  /**
   * Consumes the ready queue and the ordering partitions, handing messages
   * to `handler` one at a time and acknowledging each after its handler
   * settles.  On abort, stops consuming, lets the current handler finish,
   * returns the prefetched but unhandled messages to the queue, and resolves.
   *
   * @param handler Handles one message.
   * @param options The signal that ends listening.
   * @throws {Error} When the channel or connection is lost: the queue does
   *   not reconnect, and a listener that silently stopped would stall the
   *   whole deployment.
   */
  async listen(
    // deno-lint-ignore no-explicit-any
    handler: (message: any) => Promise<void> | void,
    options: MessageQueueListenOptions = {},
  ): Promise<void> {
    const { signal } = options;
    if (signal?.aborted) return;
    const channel = await this.#connection.createChannel();
    const inbox: ConsumeMessage[] = [];
    let wake: (() => void) | undefined;
    let stopping = false;
    let lost: Error | undefined;
    const onAbort = () => {
      stopping = true;
      wake?.();
    };
    channel.on("error", (error: Error) => {
      lost ??= error;
    });
    channel.on("close", () => {
      lost ??= new Error("the AMQP channel closed");
      wake?.();
    });
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      await this.#declare(channel);
      await channel.prefetch(this.#prefetch);
      const tags: string[] = [];
      for (const name of this.#consumed) {
        const reply = await channel.consume(name, (message) => {
          if (message == null) {
            // The broker cancelled the consumer (its queue was deleted).
            lost ??= new Error(`the AMQP queue ${name} went away`);
          } else {
            inbox.push(message);
          }
          wake?.();
        }, { noAck: false });
        tags.push(reply.consumerTag);
      }
      while (!stopping && lost == null) {
        const delivery = inbox.shift();
        if (delivery == null) {
          await new Promise<void>((resolve) => wake = resolve);
          wake = undefined;
          continue;
        }
        await this.#handle(channel, delivery, handler);
      }
      if (lost != null) {
        throw new Error(
          `AMQP listener on ${this.#queue} lost: ${lost.message}`,
          { cause: lost },
        );
      }
      for (const tag of tags) await channel.cancel(tag);
    } finally {
      signal?.removeEventListener("abort", onAbort);
      // Closing returns prefetched, unacknowledged messages to their queues.
      await channel.close().catch(() => {});
    }
  }

  /** Runs the handler on one delivery, then acknowledges or requeues it. */
  async #handle(
    channel: Channel,
    delivery: ConsumeMessage,
    // deno-lint-ignore no-explicit-any
    handler: (message: any) => Promise<void> | void,
  ): Promise<void> {
    // deno-lint-ignore no-explicit-any
    let message: any;
    try {
      message = JSON.parse(delivery.content.toString("utf-8"));
    } catch {
      channel.nack(delivery, false, false); // Not ours: drop it.
      return;
    }
    let ok = true;
    try {
      await handler(message);
    } catch {
      ok = false;
    }
    try {
      if (ok || !this.nativeRetrial) channel.ack(delivery);
      else channel.nack(delivery, false, true);
    } catch {
      // The channel closed meanwhile; the broker redelivers the message.
    }
  }
}

/** What {@link publish} returns. */
interface Published {
  /** Resolves once the broker has confirmed the message. */
  readonly confirmed: Promise<void>;
  /** `false` when the channel's buffer is full: wait for it to drain. */
  readonly writable: boolean;
}

/**
 * Publishes `body` persistently to `queue` through the default exchange.
 * The confirmation never counts as unhandled before it is awaited.
 */
function publish(
  channel: ConfirmChannel,
  queue: string,
  body: Buffer,
): Published {
  let writable = true;
  const confirmed = new Promise<void>((resolve, reject) => {
    try {
      writable = channel.sendToQueue(queue, body, {
        persistent: true,
        contentType: "application/json",
      }, (error: unknown) => {
        if (error == null) resolve();
        else {
          reject(
            error instanceof Error
              ? error
              : new Error(`RabbitMQ refused a message for ${queue}`),
          );
        }
      });
    } catch (error) {
      reject(error);
    }
  });
  confirmed.catch(() => {});
  return { confirmed, writable };
}

/** Resolves once the channel's buffer drains or the channel closes. */
function drained(channel: Channel): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      channel.off("drain", done);
      channel.off("close", done);
      resolve();
    };
    channel.on("drain", done);
    channel.on("close", done);
  });
}
