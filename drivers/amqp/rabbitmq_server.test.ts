/**
 * RabbitMQ's throwaway node crashed: it keeps the persistent messages of
 * durable queues, and neither transient messages nor transient queues.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { connect as amqpConnect } from "amqplib";
import { rabbitmqService } from "./mod.ts";
import { outliveCrash, queueExists } from "../../lib/testing/mod.ts";
import { canStart, crashAndCheck } from "../../lib/testing/crash_fixtures.ts";

Deno.test({
  name: "crash(): RabbitMQ keeps persistent messages in durable queues",
  ignore: !canStart(rabbitmqService),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await crashAndCheck("rabbitmq", rabbitmqService, async (url, manager) => {
      // A durable queue declared right before a kill can be gone after the
      // restart (1 of 8 was, here): declare it so that it has outlived a
      // crash, so that this test is about the messages.
      url = (await outliveCrash(
        manager,
        rabbitmqService,
        async (url) => {
          const connection = await amqpConnect(url);
          try {
            const channel = await connection.createChannel();
            await channel.assertQueue("fqb-durable", { durable: true });
          } finally {
            await connection.close();
          }
        },
        async (url) => {
          const connection = await amqpConnect(url);
          connection.on("error", () => {});
          try {
            return await queueExists(connection, "fqb-durable");
          } finally {
            await connection.close().catch(() => {});
          }
        },
      )).url;
      const connection = await amqpConnect(url);
      try {
        const channel = await connection.createConfirmChannel();
        await channel.assertQueue("fqb-transient-queue", { durable: false });
        channel.sendToQueue("fqb-durable", Buffer.from("kept"), {
          persistent: true,
        });
        channel.sendToQueue(
          "fqb-durable",
          Buffer.from("transient message"),
          { persistent: false },
        );
        channel.sendToQueue(
          "fqb-transient-queue",
          Buffer.from("in a transient queue"),
          { persistent: true },
        );
        await channel.waitForConfirms();
      } finally {
        await connection.close();
      }
    }, async (url) => {
      const connection = await amqpConnect(url);
      connection.on("error", () => {});
      try {
        const channel = await connection.createChannel();
        const first = await channel.get("fqb-durable", { noAck: true });
        assert.ok(first !== false, "the persistent message survived");
        assert.equal(new TextDecoder().decode(first.content), "kept");
        assert.equal(first.properties.deliveryMode, 2);
        assert.equal(await channel.get("fqb-durable", { noAck: true }), false);
        const { messageCount } = await channel.checkQueue("fqb-durable");
        assert.equal(messageCount, 0);
        // A non-durable queue does not come back at all.
        await assert.rejects(channel.checkQueue("fqb-transient-queue"));
      } finally {
        await connection.close().catch(() => {});
      }
    });
  },
});
