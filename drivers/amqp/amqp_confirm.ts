/**
 * An ablation of the `amqp` driver: the same `AmqpMessageQueue` (the
 * `@fedify/amqp` stand-in, unchanged), given a connection whose channels are
 * publisher-confirm channels.
 *
 * `@fedify/amqp` publishes on plain channels, so RabbitMQ never has to tell
 * it that a persistent message is on disk, and keeps new messages and
 * acknowledgements in its own write buffers until something makes it sync.
 * On a confirm channel RabbitMQ confirms each persistent message once it
 * has written it to disk, so it syncs within a fraction of a second.  The
 * queue does not wait for the confirms (its publishing code is untouched);
 * only the broker's side changes.  Compare the two when the server is killed:
 * `deno task bench --crash-server-at 0.5 --inbox-latency 10-50ms --total 100
 * --recipients 20 --parallel 1 --drivers amqp,amqp-confirm`.
 *
 * Not in the default suite.
 *
 * @module
 */
import type { ChannelModel } from "amqplib";
import type { Driver } from "../driver.ts";
import { amqpDriverFor } from "./amqp.ts";

/**
 * `connection`, except that `createChannel()` opens a publisher-confirm
 * channel (`createConfirmChannel()`, a subclass of the plain channel with
 * the same methods).  Everything else is the connection's own.
 */
export function withConfirmChannels(connection: ChannelModel): ChannelModel {
  return new Proxy(connection, {
    get(target, property, receiver) {
      if (property === "createChannel") {
        return () => target.createConfirmChannel();
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** RabbitMQ as the `amqp` driver runs it, publishing on confirm channels. */
export const amqpConfirmDriver: Driver = amqpDriverFor({
  name: "amqp-confirm",
  docs: {
    queue: "the same as `amqp`, on publisher-confirm channels",
    notes: "an ablation (run only when named): the queue class is untouched, " +
      "the connection it is given opens confirm channels, so RabbitMQ syncs " +
      "each message to disk",
  },
  detail: "the amqp driver's queue on publisher-confirm channels, so " +
    "RabbitMQ syncs messages to disk (an ablation, otherwise as amqp)",
  suite: "named",
  wrap: withConfirmChannels,
});
