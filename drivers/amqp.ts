/**
 * RabbitMQ through the bench's own {@link AmqpMessageQueue} on `amqplib`
 * (`@fedify/amqp` is not on the npm registry).  Each run uses its own queue
 * names, prefixed with the run id, and deletes them afterwards.
 *
 * @module
 */
import { type ChannelModel, connect } from "amqplib";
import type { Driver, Json } from "../lib/driver.ts";
import { rabbitmqService } from "../lib/services/rabbitmq.ts";
import { AmqpMessageQueue } from "@fedify/amqp";

/** What the sender and worker processes need to open the queue. */
interface AmqpConfig {
  readonly url: string;
  readonly queue: string;
  readonly [key: string]: Json;
}

/**
 * Opens a connection whose failures surface through the calls that use it.
 * `noDelay` turns Nagle's algorithm off, which `amqplib` leaves on: with it,
 * every confirmed publish waited about 40 ms (Nagle plus delayed ACKs)
 * instead of about 1.3 ms.
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

/** A RabbitMQ queue: durable, persistent, acknowledged after handling. */
export const amqpDriver: Driver = {
  name: "amqp",
  description:
    "RabbitMQ via the bench's AmqpMessageQueue (amqplib; durable, confirmed)",
  crossProcess: true,
  service: rabbitmqService,
  packages: ["amqplib"],
  async prepare({ runId, serviceUrl }) {
    if (serviceUrl == null) throw new Error("amqp: no server URL");
    const config: AmqpConfig = { url: serviceUrl, queue: `fqb.${runId}` };
    const connection = await open(serviceUrl);
    try {
      // Declare the queues up front, so the worker and the sender need not
      // race; then empty them in case a run with this id left something.
      const queue = new AmqpMessageQueue(connection, { queue: config.queue });
      await queue.drop();
      await queue.initialize();
    } finally {
      await close(connection);
    }
    return {
      config,
      async cleanup() {
        const connection = await open(serviceUrl);
        try {
          await new AmqpMessageQueue(connection, { queue: config.queue })
            .drop();
        } finally {
          await close(connection);
        }
      },
    };
  },
  async open(config) {
    const { url, queue } = config as AmqpConfig;
    const connection = await open(url);
    return {
      queue: new AmqpMessageQueue(connection, { queue }),
      close: () => close(connection),
    };
  },
};
