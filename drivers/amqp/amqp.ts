/**
 * RabbitMQ through `AmqpMessageQueue` of `@fedify/amqp`: the Fedify source
 * tree's when one is given (`--fedify-source`); otherwise, as the package is
 * not on the npm registry, the bench's stand-in that `deno.json` maps the
 * name to (`amqp_standin.ts`, whose module documentation lists how
 * it differs from upstream), which `amqp-standin` runs whatever the source.
 *
 * `amqp` runs the queue with `nativeRetrial: true`, the setting its
 * documentation describes as the one with "much less chance of losing
 * messages", and the only one under which the 2.3.5 package keeps
 * consuming: with its default, `false`, it acknowledges every delivery
 * twice and RabbitMQ closes the channel after the first message (Finding
 * 1).  `amqp-defaults` runs the package's defaults, to show that.  Each run
 * uses its own ready queue, delay queue prefix (and, with ordering, its own
 * partition prefix and consistent-hash exchange), all named after the run
 * id, and deletes them afterwards.
 *
 * Upstream's class has no way to list or delete the delay queues it makes
 * (they expire a minute after their delay), so this driver wraps the queue
 * it gives Fedify: the first time a process enqueues with a given delay,
 * the wrapper records that delay queue's name in a registry queue, which
 * `cleanup()` drains to delete them.  That costs one extra publish per
 * distinct delay per process and nothing otherwise.
 *
 * @module
 */
import type {
  MessageQueue,
  MessageQueueDepth,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from "@fedify/fedify";
import { type Channel, type ChannelModel, connect } from "amqplib";
import { Buffer } from "node:buffer";
import type {
  Driver,
  Json,
  OpenedQueue,
  OrderingSupport,
  SuiteTier,
} from "../driver.ts";
import { rabbitmqService } from "./rabbitmq_server.ts";
import type { AmqpMessageQueue } from "@fedify/amqp";
import { hash } from "./amqp_standin.ts";
import { listenSettling } from "../../lib/system/settling_listen.ts";
import {
  followsSource,
  loadQueuePackage,
  type PackageChoice,
  packageLabel,
} from "../packages.ts";

/** What the sender and worker processes need to open the queue. */
interface AmqpConfig {
  readonly url: string;
  /** The ready queue, also the prefix of the registry's name. */
  readonly queue: string;
  /** The delay queues' prefix, which the delay in milliseconds follows. */
  readonly delayedQueuePrefix: string;
  /** With ordering on, the partition queues' prefix (the number follows). */
  readonly orderingPrefix: string | null;
  /** With ordering on, how many partition queues there are. */
  readonly partitions: number | null;
  /** With ordering on, the consistent-hash exchange (the real package's). */
  readonly exchange: string | null;
  /**
   * Whose delay queue names the queue uses: the real package's (`upstream`)
   * or the stand-in's (which differ with ordering keys).
   */
  readonly naming: "upstream" | "stand-in";
  /** The queue's `nativeRetrial` option. */
  readonly nativeRetrial: boolean;
  readonly [key: string]: Json;
}

/** The queue that records every delay queue made during a run. */
function registryOf(config: AmqpConfig): string {
  return `${config.queue}.delays`;
}

/**
 * The delay queue `AmqpMessageQueue` publishes a message with this delay
 * to, or `undefined` when it goes to the ready queue (or a partition):
 * the prefix, then the delay in milliseconds; with ordering on and a key,
 * `ordering_` and the delay, which the stand-in follows with `_` and the
 * key's partition (and rounds up to whole milliseconds).
 */
function delayQueueOf(
  config: AmqpConfig,
  options?: MessageQueueEnqueueOptions,
): string | undefined {
  const delay = options?.delay?.total("millisecond") ?? 0;
  if (!(delay > 0)) return undefined;
  const key = options?.orderingKey;
  if (config.naming === "upstream") {
    const text = delay.toLocaleString("en", { useGrouping: false });
    return key == null || config.partitions == null
      ? `${config.delayedQueuePrefix}${text}`
      : `${config.delayedQueuePrefix}ordering_${text}`;
  }
  const ms = Math.ceil(delay);
  return key == null || config.partitions == null
    ? `${config.delayedQueuePrefix}${ms}`
    : `${config.delayedQueuePrefix}ordering_${ms}_${
      hash(key) % config.partitions
    }`;
}

/** The partition queues of a run with ordering on; none without it. */
function partitionsOf(config: AmqpConfig): string[] {
  const names: string[] = [];
  for (let i = 0; i < (config.partitions ?? 0); i++) {
    names.push(`${config.orderingPrefix}${i}`);
  }
  return names;
}

/**
 * Opens a connection whose failures surface through the calls that use it.
 * `noDelay` turns Nagle's algorithm off, which `amqplib` leaves on: with
 * it, a publish followed by a wait for the broker (a declaration, a
 * confirm) took about 40 ms (Nagle plus delayed ACKs) instead of about
 * 1 ms.  Upstream leaves the connection to the application; this is the
 * setting a deployment that measured it would pick.
 */
async function open(url: string): Promise<ChannelModel> {
  const connection = await connect(url, { noDelay: true });
  // Without a listener, an "error" event (a lost broker) would throw.
  connection.on("error", () => {});
  return connection;
}

/** Closes a connection that may already be closed. */
async function close(connection: ChannelModel): Promise<void> {
  await connection.close().catch(() => {});
}

/** Runs `fn` on a channel of its own, closed afterwards. */
async function withChannel<T>(
  connection: ChannelModel,
  fn: (channel: Channel) => Promise<T>,
): Promise<T> {
  const channel = await connection.createChannel();
  channel.on("error", () => {/* the failing call rejects */});
  try {
    return await fn(channel);
  } finally {
    await channel.close().catch(() => {});
  }
}

/**
 * Deletes the run's ready queue, its ordering partitions, the delay queues
 * its registry names, and the registry, with the messages they hold.
 */
async function dropQueues(
  connection: ChannelModel,
  config: AmqpConfig,
): Promise<void> {
  await withChannel(connection, async (channel) => {
    const registry = registryOf(config);
    await channel.assertQueue(registry, { durable: true });
    const names = new Set<string>();
    while (true) {
      const entry = await channel.get(registry, { noAck: true });
      if (entry === false) break;
      names.add(entry.content.toString("utf-8"));
    }
    const queues = [...names, config.queue, ...partitionsOf(config)];
    for (const name of [...queues, registry]) {
      await channel.deleteQueue(name);
    }
    if (config.exchange != null) await channel.deleteExchange(config.exchange);
  });
}

/**
 * The queue Fedify gets: `AmqpMessageQueue` itself, plus a note in the
 * registry the first time this process enqueues with a new delay.
 */
class RecordingQueue implements MessageQueue {
  readonly #inner: AmqpMessageQueue;
  readonly #connection: ChannelModel;
  readonly #config: AmqpConfig;
  readonly #recorded = new Map<string, Promise<void>>();

  /** Whether RabbitMQ retries failed messages: the inner queue's setting. */
  get nativeRetrial(): boolean {
    return this.#inner.nativeRetrial;
  }

  constructor(
    inner: AmqpMessageQueue,
    connection: ChannelModel,
    config: AmqpConfig,
  ) {
    this.#inner = inner;
    this.#connection = connection;
    this.#config = config;
  }

  /** Records a delayed message's delay queue in the registry, once. */
  #record(options?: MessageQueueEnqueueOptions): Promise<void> {
    const name = delayQueueOf(this.#config, options);
    if (name == null) return Promise.resolve();
    let recording = this.#recorded.get(name);
    if (recording == null) {
      recording = withChannel(this.#connection, async (channel) => {
        const registry = registryOf(this.#config);
        await channel.assertQueue(registry, { durable: true });
        channel.sendToQueue(registry, Buffer.from(name, "utf-8"), {
          persistent: true,
        });
      });
      this.#recorded.set(name, recording);
      recording.catch(() => this.#recorded.delete(name));
    }
    return recording;
  }

  async enqueue(
    // deno-lint-ignore no-explicit-any
    message: any,
    options?: MessageQueueEnqueueOptions,
  ): Promise<void> {
    await this.#record(options);
    await this.#inner.enqueue(message, options);
  }

  async enqueueMany(
    // deno-lint-ignore no-explicit-any
    messages: readonly any[],
    options?: MessageQueueEnqueueOptions,
  ): Promise<void> {
    await this.#record(options);
    await this.#inner.enqueueMany(messages, options);
  }

  getDepth(): Promise<MessageQueueDepth> {
    return this.#inner.getDepth();
  }

  /**
   * Listens as the inner queue does, except that the inner queue sees the
   * abort only once the handler calls already running have settled
   * (`lib/system/settling_listen.ts`): the 2.x package closes its channel as soon as
   * its signal aborts, and a handler that settles after that acknowledges
   * on the closed channel, a rejection nobody holds (`Channel closed`).
   */
  listen(
    // deno-lint-ignore no-explicit-any
    handler: (message: any) => Promise<void> | void,
    options?: MessageQueueListenOptions,
  ): Promise<void> {
    return listenSettling(
      (h, o) => this.#inner.listen(h, o),
      handler,
      options,
      this.nativeRetrial === true,
    );
  }
}

/**
 * A driver made by {@link amqpDriverFor}: its name, and how it varies the
 * `amqp` driver for an ablation (each optional part defaults to that
 * driver's).
 */
export interface AmqpDriverOptions {
  /** The driver's name. */
  readonly name: string;
  /** Its row in the docs' table of drivers; see {@link Driver.docs}. */
  readonly docs?: Driver["docs"];
  /**
   * What sets it apart, the end of its description; by default "otherwise
   * the package's defaults".
   */
  readonly detail?: string;
  /** Which suite runs it without naming it (see {@link Driver.suite}). */
  readonly suite?: SuiteTier;
  /**
   * Wraps the connection `AmqpMessageQueue` is given in the sender and
   * worker processes; the queue class itself is untouched.
   */
  readonly wrap?: (connection: ChannelModel) => ChannelModel;
  /**
   * Turns the queue's `ordering` option on with this many partitions
   * (queues named after the run), and declares ordering keys supported.
   */
  readonly partitions?: number;
  /** Which code it runs (see `packages.ts`); follows the source by default. */
  readonly choice?: PackageChoice;
  /** The queue's `nativeRetrial` option; `true` by default (see above). */
  readonly nativeRetrial?: boolean;
}

/** What the queue, with `partitions` or without, does with ordering keys. */
function amqpOrdering(partitions: number | undefined): OrderingSupport {
  return partitions == null
    ? {
      supported: false,
      note: "AmqpMessageQueue keeps order only with its ordering option " +
        "(partitions with one active consumer), off by default and left " +
        "off here: keys are ignored",
    }
    : {
      supported: true,
      note: `AmqpMessageQueue's ordering option on: ${partitions} ` +
        "partition queues with a single active consumer each, a key's " +
        "messages all in one of them (routed by RabbitMQ's consistent-hash " +
        "exchange; the stand-in hashes the key itself)",
    };
}

/** The names one run's queues get on the server, and the queue's options. */
function amqpConfig(
  serviceUrl: string,
  runId: string,
  options: AmqpDriverOptions,
): AmqpConfig {
  const { partitions } = options;
  return {
    url: serviceUrl,
    queue: `fqb.${runId}`,
    delayedQueuePrefix: `fqb.${runId}.delayed_`,
    orderingPrefix: partitions == null ? null : `fqb.${runId}.ordering_`,
    partitions: partitions ?? null,
    exchange: partitions == null ? null : `fqb.${runId}.ordering`,
    naming: followsSource(options.choice ?? "follow-source")
      ? "upstream"
      : "stand-in",
    nativeRetrial: options.nativeRetrial ?? true,
  };
}

/** Opens the queue of `amqp` in a sender or worker process. */
async function openAmqp(
  amqp: AmqpConfig,
  options: AmqpDriverOptions,
): Promise<OpenedQueue> {
  const { module } = await loadQueuePackage(
    "amqp",
    () => import("@fedify/amqp"),
    options.choice ?? "follow-source",
  );
  const connection = await open(amqp.url);
  const given = options.wrap?.(connection) ?? connection;
  const queue = new module.AmqpMessageQueue(given, {
    queue: amqp.queue,
    delayedQueuePrefix: amqp.delayedQueuePrefix,
    nativeRetrial: amqp.nativeRetrial,
    ...(amqp.partitions == null ? {} : {
      ordering: {
        exchange: amqp.exchange ?? undefined,
        queuePrefix: amqp.orderingPrefix ?? undefined,
        partitions: amqp.partitions,
      },
    }),
  });
  return {
    queue: new RecordingQueue(queue, connection, amqp),
    close: () => close(connection),
  };
}

/**
 * The `amqp` driver, or an ablation of it: the same queue, names and
 * clean-up, with `options` applied to the connection the queue is given.
 *
 * @param options Its name and how it differs from the `amqp` driver.
 */
export function amqpDriverFor(options: AmqpDriverOptions): Driver {
  const { name, detail = "otherwise the package's defaults" } = options;
  const choice = options.choice ?? "follow-source";
  const nativeRetrial = options.nativeRetrial ?? true;
  return {
    name,
    get description() {
      return `RabbitMQ via AmqpMessageQueue (${
        packageLabel("amqp", choice)
      }, nativeRetrial: ${nativeRetrial}), ${detail}`;
    },
    crossProcess: true,
    // Without native retrial the package acknowledges in a `finally` right
    // after calling the handler (Finding 1), before it settles.
    removes: nativeRetrial ? "after-handler" : "before-handler",
    ordering: amqpOrdering(options.partitions),
    service: rabbitmqService,
    queueSpecifier: "@fedify/amqp",
    packages: ["amqplib"],
    depth: "ready-and-delayed",
    ...(options.suite == null ? {} : { suite: options.suite }),
    ...(options.docs == null ? {} : { docs: options.docs }),
    async prepare({ runId, serviceUrl }) {
      if (serviceUrl == null) throw new Error(`${name}: no server URL`);
      const config = amqpConfig(serviceUrl, runId, options);
      const connection = await open(serviceUrl);
      try {
        // Empty whatever a run with this id left, then declare the ready
        // queue up front, so the worker and the sender need not race.
        await dropQueues(connection, config);
        await withChannel(connection, async (channel) => {
          await channel.assertQueue(config.queue, { durable: true });
        });
      } finally {
        await close(connection);
      }
      return {
        config,
        async cleanup() {
          const connection = await open(serviceUrl);
          try {
            await dropQueues(connection, config);
          } finally {
            await close(connection);
          }
        },
      };
    },
    open: (config) => openAmqp(config as AmqpConfig, options),
  };
}

/**
 * A RabbitMQ queue: durable, persistent, `nativeRetrial: true` (acknowledged
 * after the handler succeeds).
 */
export const amqpDriver: Driver = amqpDriverFor({
  name: "amqp",
  docs: {
    queue: "`@fedify/amqp` `AmqpMessageQueue` on amqplib, `nativeRetrial: " +
      "true`: the source tree's, else the stand-in",
    notes: "`AMQP_URL` or a throwaway RabbitMQ node. `nativeRetrial: true` " +
      "is the setting the package's documentation says loses far fewer " +
      "messages, and the only one under which the 2.3.5 package keeps " +
      "consuming ([Finding 1](findings.md#1-amqp-acknowledges-twice))",
  },
});

/**
 * The package with all its defaults (`nativeRetrial: false`): what a user
 * who copies the package's README example gets.
 */
export const amqpDefaultsDriver: Driver = amqpDriverFor({
  name: "amqp-defaults",
  docs: {
    queue: "the same with the package's defaults (`nativeRetrial: false`)",
    notes: "run only when named: what a user who copies the package's README " +
      "example gets",
  },
  detail: "the package's defaults (what its README example gets)",
  nativeRetrial: false,
  suite: "named",
});

/**
 * The project's stand-in for `@fedify/amqp` whatever the source, as `amqp`
 * runs it: for the fidelity comparison with the real package
 * (docs/methodology.md).
 */
export const amqpStandInDriver: Driver = amqpDriverFor({
  name: "amqp-standin",
  docs: {
    queue: "the stand-in (`drivers/amqp/amqp_standin.ts`) whatever the " +
      "source, as `amqp`",
    notes: "run only when named: for the fidelity comparison with the real " +
      "package",
  },
  choice: "mapped",
  suite: "named",
});
