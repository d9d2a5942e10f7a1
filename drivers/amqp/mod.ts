/**
 * AMQP on RabbitMQ (`@fedify/amqp`): the drivers (the source's, with
 * RabbitMQ's defaults, the stand-in's), the publisher-confirm and ordered
 * ablations, the stand-in that `deno.json` maps under `@fedify/amqp`
 * (`amqp_standin.ts`), and the throwaway server (`AMQP_URL` when given).
 *
 * @module
 */
export { amqpDefaultsDriver, amqpDriver, amqpStandInDriver } from "./amqp.ts";
export { amqpConfirmDriver } from "./amqp_confirm.ts";
export { amqpOrderedDriver } from "./amqp_ordered.ts";
export {
  probeRabbitmq,
  rabbitmqService,
  startRabbitmq,
} from "./rabbitmq_server.ts";
