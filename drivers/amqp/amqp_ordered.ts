/**
 * The `amqp` driver with `AmqpMessageQueue`'s `ordering` option on: a
 * message with an ordering key goes to one of four partition queues (chosen
 * by the key), each consumed by a single active consumer, so a key's
 * messages are handled one at a time and in order.  Messages without a key
 * use the ready queue as in `amqp`.  The partition queues are named after
 * the run and deleted with the others; the stand-in declares no exchange
 * (upstream's consistent-hash exchange needs a plugin the bench's RabbitMQ
 * does not run), so there is none to delete.
 *
 * Not in the default suite: run it beside `amqp`, e.g.
 * `deno task bench --drivers amqp,amqp-ordered --workload cud
 * --ordering-key none,object`.
 *
 * @module
 */
import type { Driver } from "../driver.ts";
import { amqpDriverFor } from "./amqp.ts";

/** The partition count: upstream's default. */
export const PARTITIONS = 4;

/** RabbitMQ as the `amqp` driver runs it, with ordering keys honoured. */
export const amqpOrderedDriver: Driver = amqpDriverFor({
  name: "amqp-ordered",
  docs: {
    queue: "the same as `amqp`, with its `ordering` option on (4 partition " +
      "queues)",
    notes: "run only when named: ordering keys honoured; the real package " +
      "routes them through RabbitMQ's consistent-hash exchange (the " +
      "throwaway node enables that plugin; a user's `AMQP_URL` server needs " +
      "it), named after the run and deleted with the queues",
  },
  detail: "the amqp driver's queue with its ordering option on (" +
    `${PARTITIONS} partition queues with a single active consumer each; ` +
    "otherwise as amqp)",
  suite: "named",
  partitions: PARTITIONS,
});
