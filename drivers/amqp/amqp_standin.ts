/**
 * A stand-in for `@fedify/amqp` 2.3.6: a Fedify `MessageQueue` on RabbitMQ
 * (AMQP 0-9-1, through `amqplib`).  The package is not on the npm registry,
 * so `deno.json` maps its name to this module.  The class, its constructor
 * and its options carry upstream's names and defaults (`queue`
 * `"fedify_queue"`, `delayedQueuePrefix` `"fedify_delayed_"`, `durable`
 * `true`, `nativeRetrial` `false`, `ordering` off unless given, with
 * `exchange` `"fedify_ordering"`, `queuePrefix` `"fedify_ordering_"` and
 * `partitions` `4`), and it publishes, consumes and names queues as
 * upstream's `packages/amqp/src/mq.ts` does, except for the differences
 * below.
 *
 * Kept as upstream has it:
 *
 * - Plain (non-confirm) channels: `enqueue()` and `enqueueMany()` resolve
 *   once `amqplib` has buffered the messages, before the broker has them;
 *   write back-pressure is ignored.  Messages are persistent and queues
 *   durable when `durable` is on.
 * - `listen()` sets `prefetch(1)` (per consumer) and consumes the ready
 *   queue, plus each ordering partition when `ordering` is given.
 * - A delayed message waits in `delayedQueuePrefix + delay` (the delay in
 *   milliseconds, not rounded) whose `x-message-ttl` is the delay, whose
 *   dead-letter target is the ready queue, and which expires 60 s after
 *   its delay without use; every delayed enqueue re-declares that queue.
 * - `getDepth()` counts `ready` in the ready and partition queues and
 *   `delayed` in the delay queues this instance enqueued to, over one
 *   channel per call (a new one after a missing queue closed it); messages
 *   handed to a listener and not yet acknowledged count in neither.
 * - `nativeRetrial: false` acknowledges a message whether the handler
 *   succeeded or not (Fedify schedules its own retry); `true` rejects a
 *   failed one with requeue, and RabbitMQ redelivers it at once.
 *
 * Differences that can change a result:
 *
 * - **Acknowledgement.**  Upstream's `listen()`, with `nativeRetrial:
 *   false`, acknowledges every delivery in a `finally` right after
 *   calling the handler and, when the handler returns a promise (Fedify's
 *   always does), again once it settles.  RabbitMQ answers the second
 *   acknowledgement with `406 PRECONDITION_FAILED - unknown delivery tag`
 *   and closes the channel, so the listener receives nothing more and its
 *   `listen()` never settles (see `amqp.test.ts`).  The first, early
 *   acknowledgement also means a crash mid-handler loses the message, and
 *   that the broker sends the next delivery at once, so handlers overlap
 *   without bound until then.  This stand-in acknowledges each delivery
 *   once, after its handler settles: at least once, never lost by a dying
 *   listener.
 * - **Handler concurrency.**  Upstream calls the handler from the consume
 *   callback, so each consumer (the ready queue and every partition) may
 *   run a handler at once (with `nativeRetrial: true`, where acks wait for
 *   the handler).  This stand-in runs one handler at a time per `listen()`
 *   across all its consumers; Fedify's `ParallelMessageQueue` adds
 *   concurrency, as it does upstream.
 * - **A lost channel or connection.**  Upstream's `listen()` then never
 *   settles; this one rejects, so a worker does not stall silently.  On
 *   abort it stops consuming, waits for the running handler, closes the
 *   channel (returning prefetched messages) and resolves; upstream closes
 *   the channel at once, so with `nativeRetrial: true` a running handler's
 *   acknowledgement fails and its message is delivered again.  A message that is not JSON is rejected
 *   without requeue; upstream's consume callback throws and leaves it
 *   unacknowledged, which with `prefetch(1)` blocks that consumer.
 * - **Ordering.**  Upstream routes messages with an `orderingKey` through
 *   an `x-consistent-hash` exchange (`ordering.exchange`, which needs the
 *   `rabbitmq_consistent_hash_exchange` plugin) to
 *   `ordering.queuePrefix + N`.  The bench's RabbitMQ runs no plugins, so
 *   this stand-in picks the partition itself (FNV-1a of the key modulo
 *   `partitions`) and publishes to it directly; `exchange` is accepted and
 *   unused.  Partitions are single-active-consumer queues in both.  A key
 *   may land in a different partition than upstream would put it in.
 * - **Delayed messages with an ordering key.**  Upstream uses one queue,
 *   `delayedQueuePrefix + "ordering_" + delay`, whose dead-letter routing
 *   key is the first message's ordering key: a later message with another
 *   key and the same delay fails the re-declaration (406), and every
 *   message in it goes to the first key's partition.  This stand-in uses
 *   one queue per partition, `delayedQueuePrefix + "ordering_" + delay +
 *   "_" + N`, dead-lettered to that partition.
 * - **Fractional delays** are rounded up to whole milliseconds (RabbitMQ
 *   takes only whole TTLs); upstream names the queue after the fraction
 *   and asks for a fractional TTL.  Fedify's retry delays are whole.
 * - **Re-declaration failures.**  Upstream retries a delay queue's
 *   declaration without `x-expires` after a 406 (queues made by older
 *   versions), and keeps a sender channel that closed; this stand-in does
 *   neither retry and opens a fresh sender channel after one closes.
 *
 * @module
 */
import type {
  MessageQueue,
  MessageQueueDepth,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from "@fedify/fedify";
import type { Channel, ChannelModel, ConsumeMessage } from "amqplib";
import { Buffer } from "node:buffer";

/**
 * Options for ordering keys in {@link AmqpMessageQueue}, as upstream's
 * `AmqpOrderingOptions`.
 */
export interface AmqpOrderingOptions {
  /**
   * The consistent-hash exchange upstream routes ordered messages through.
   * Accepted for compatibility and unused: this stand-in picks partitions
   * itself (see the module documentation).
   * @default "fedify_ordering"
   */
  readonly exchange?: string;
  /**
   * The prefix of the partition queues, followed by the partition number.
   * @default "fedify_ordering_"
   */
  readonly queuePrefix?: string;
  /**
   * How many partition queues there are.
   * @default 4
   */
  readonly partitions?: number;
}

/** Options for {@link AmqpMessageQueue}, as upstream's. */
export interface AmqpMessageQueueOptions {
  /**
   * The ready queue's name.
   * @default "fedify_queue"
   */
  readonly queue?: string;
  /**
   * The prefix of the delay queues' names, followed by the delay in
   * milliseconds.  Delay queues are not named after `queue`: give queues
   * that share a broker their own prefix.
   * @default "fedify_delayed_"
   */
  readonly delayedQueuePrefix?: string;
  /**
   * Whether the queues survive a broker restart and messages are
   * persistent.
   * @default true
   */
  readonly durable?: boolean;
  /**
   * Whether RabbitMQ, not Fedify, retries failed messages: `true` rejects a
   * failed message with requeue; `false` acknowledges it either way.
   * @default false
   */
  readonly nativeRetrial?: boolean;
  /**
   * Turns ordering keys on; without it they are ignored.
   */
  readonly ordering?: AmqpOrderingOptions;
}

/** A delay queue expires this long past its own delay without use. */
const DELAY_QUEUE_EXPIRY_MARGIN_MS = 60_000;

/**
 * A stable 32-bit FNV-1a hash of a string's UTF-16 code units: an ordering
 * key goes to partition `hash(key) % partitions`.
 */
export function hash(text: string): number {
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
 * A Fedify message queue on RabbitMQ, standing in for `@fedify/amqp`'s
 * class of the same name; the module documentation lists how it differs.
 * The connection belongs to the caller, who closes it after every listener
 * has stopped.
 *
 * @example
 * ```ts
 * import { connect } from "amqplib";
 * const queue = new AmqpMessageQueue(await connect("amqp://127.0.0.1"));
 * ```
 */
export class AmqpMessageQueue implements MessageQueue {
  /** Whether RabbitMQ retries failed messages; see the options. */
  readonly nativeRetrial: boolean;
  readonly #connection: ChannelModel;
  readonly #queue: string;
  readonly #delayedQueuePrefix: string;
  readonly #durable: boolean;
  readonly #ordering?: { readonly prefix: string; readonly partitions: number };
  #sender?: Promise<Channel>;
  /** Delay queues this instance enqueued to, for {@link getDepth}. */
  readonly #delayQueues = new Set<string>();

  /**
   * Creates a queue on an open connection; nothing is declared until the
   * first enqueue or listen.
   * @param connection An open `amqplib` connection.
   * @param options Queue names and behaviour; every one is optional.
   */
  constructor(connection: ChannelModel, options: AmqpMessageQueueOptions = {}) {
    this.#connection = connection;
    this.#queue = options.queue ?? "fedify_queue";
    this.#delayedQueuePrefix = options.delayedQueuePrefix ?? "fedify_delayed_";
    this.#durable = options.durable ?? true;
    this.nativeRetrial = options.nativeRetrial ?? false;
    if (options.ordering != null) {
      const partitions = options.ordering.partitions ?? 4;
      if (!Number.isInteger(partitions) || partitions < 1) {
        throw new RangeError("ordering.partitions must be a positive integer");
      }
      this.#ordering = {
        prefix: options.ordering.queuePrefix ?? "fedify_ordering_",
        partitions,
      };
    }
  }

  /** The ready queue and the ordering partitions: what listeners consume. */
  get #consumed(): string[] {
    const names = [this.#queue];
    for (let i = 0; i < (this.#ordering?.partitions ?? 0); i++) {
      names.push(`${this.#ordering!.prefix}${i}`);
    }
    return names;
  }

  /** Declares the ready queue and the partitions (idempotent). */
  async #declare(channel: Channel): Promise<void> {
    await channel.assertQueue(this.#queue, { durable: this.#durable });
    for (const name of this.#consumed.slice(1)) {
      await channel.assertQueue(name, {
        durable: this.#durable,
        arguments: { "x-single-active-consumer": true },
      });
    }
  }

  /** The shared channel for publishing, opened on first use. */
  #senderChannel(): Promise<Channel> {
    if (this.#sender != null) return this.#sender;
    const opening = (async () => {
      const channel = await this.#connection.createChannel();
      channel.on("error", () => {/* the failing call rejects */});
      channel.on("close", () => {
        if (this.#sender === opening) this.#sender = undefined;
      });
      await this.#declare(channel);
      return channel;
    })();
    this.#sender = opening;
    opening.catch(() => {
      if (this.#sender === opening) this.#sender = undefined;
    });
    return opening;
  }

  /** Chooses the queue for a message with the given options. */
  #route(options?: MessageQueueEnqueueOptions): Route {
    const key = options?.orderingKey;
    const partition = key == null || this.#ordering == null
      ? undefined
      : hash(key) % this.#ordering.partitions;
    const target = partition == null
      ? this.#queue
      : `${this.#ordering!.prefix}${partition}`;
    const delay = options?.delay?.total("millisecond") ?? 0;
    if (!(delay > 0)) return { queue: target };
    const ms = Math.ceil(delay);
    const queue = partition == null
      ? `${this.#delayedQueuePrefix}${ms}`
      : `${this.#delayedQueuePrefix}ordering_${ms}_${partition}`;
    return { queue, delay: { ms, target } };
  }

  /** Declares a delayed route's delay queue, which renews its expiry. */
  async #declareDelayQueue(channel: Channel, route: Route): Promise<void> {
    if (route.delay == null) return;
    await channel.assertQueue(route.queue, {
      durable: this.#durable,
      autoDelete: true,
      messageTtl: route.delay.ms,
      deadLetterExchange: "",
      deadLetterRoutingKey: route.delay.target,
      expires: route.delay.ms + DELAY_QUEUE_EXPIRY_MARGIN_MS,
    });
    this.#delayQueues.add(route.queue);
  }

  /**
   * Enqueues a message.  Resolves once `amqplib` has buffered it, before
   * the broker has it, as upstream does.
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
   * Enqueues messages with the same options.  Resolves once `amqplib` has
   * buffered them, before the broker has them, as upstream does.
   * @param messages JSON-serializable messages.
   * @param options A delay and an ordering key, both optional.
   */
  async enqueueMany(
    // deno-lint-ignore no-explicit-any
    messages: readonly any[],
    options?: MessageQueueEnqueueOptions,
  ): Promise<void> {
    const route = this.#route(options);
    const channel = await this.#senderChannel();
    await this.#declareDelayQueue(channel, route);
    for (const message of messages) {
      channel.sendToQueue(
        route.queue,
        Buffer.from(JSON.stringify(message), "utf-8"),
        { persistent: this.#durable, contentType: "application/json" },
      );
    }
  }

  /**
   * Counts the messages waiting: `ready` in the ready and partition queues,
   * `delayed` in the delay queues this instance enqueued to (delays that
   * other processes enqueued are not seen; expired queues are forgotten).
   * Messages handed to a listener and not yet acknowledged are not counted.
   * One channel serves the whole call, as upstream's does; a missing queue
   * closes it, and the next check opens another.
   */
  async getDepth(): Promise<MessageQueueDepth> {
    let channel: Channel | undefined;
    const count = async (name: string): Promise<number | undefined> => {
      channel ??= await this.#depthChannel();
      try {
        return (await channel.checkQueue(name)).messageCount;
      } catch (error) {
        if ((error as { code?: number }).code !== 404) throw error;
        // RabbitMQ closed the channel with the 404.
        channel = undefined;
        return undefined;
      }
    };
    try {
      let ready = 0;
      for (const name of this.#consumed) ready += await count(name) ?? 0;
      let delayed = 0;
      for (const name of [...this.#delayQueues]) {
        const found = await count(name);
        if (found == null) this.#delayQueues.delete(name);
        else delayed += found;
      }
      return { queued: ready + delayed, ready, delayed };
    } finally {
      const open: Channel | undefined = channel;
      await open?.close().catch(() => {});
    }
  }

  /** A channel for {@link getDepth}'s checks, whose errors are theirs. */
  async #depthChannel(): Promise<Channel> {
    const channel = await this.#connection.createChannel();
    channel.on("error", () => {/* checkQueue rejects */});
    return channel;
  }

  /**
   * Consumes the ready queue (and the ordering partitions) with
   * `prefetch(1)` per consumer, hands messages to `handler` one at a time,
   * and acknowledges each once, after its handler settles.  On abort, stops
   * consuming, lets the running handler finish, returns prefetched messages
   * to their queues, and resolves.
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
    // An abort while the channel was opening came before the listener.
    stopping ||= signal?.aborted ?? false;
    try {
      await this.#declare(channel);
      await channel.prefetch(1);
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
