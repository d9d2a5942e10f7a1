/**
 * Finding 14: `@fedify/amqp` 2.3.5 declares a delay queue with the delay as
 * given, and RabbitMQ takes only whole milliseconds for `x-expires` and
 * `x-message-ttl`: an enqueue whose delay is not a whole number of
 * milliseconds fails (406), and leaves a rejection nothing waits for.  The
 * stand-in rounds the delay up and enqueues.  Runs against the package from
 * the Fedify source tree (`FEDIFY_SOURCE`), on a throwaway RabbitMQ.
 */
import assert from "node:assert/strict";
import { serversMissing } from "../../lib/testing/servers.ts";
import { type ChannelModel, connect } from "amqplib";
import { ServiceManager } from "../../lib/services/mod.ts";
import { rabbitmqService } from "./mod.ts";
import { FedifySource, loadQueuePackage } from "../packages.ts";
import { sleep } from "../../lib/system/sleep.ts";

const source = FedifySource.fromEnv();
const noRabbitmq = serversMissing(rabbitmqService) != null;

/** A delay that is not a whole number of milliseconds: 1,799,997.5 ms. */
const FRACTIONAL = Temporal.Duration.from({ microseconds: 1_799_997_500 });
/** The same, whole: 1,800,000 ms. */
const WHOLE = Temporal.Duration.from({ milliseconds: 1_800_000 });

interface Queue {
  enqueue(message: unknown, options?: { delay?: Temporal.Duration }): Promise<
    void
  >;
}
type QueueClass = new (
  connection: ChannelModel,
  options: Record<string, unknown>,
) => Queue;

/**
 * Enqueues with `delay` on a queue of `Class` named after `prefix`; the
 * error it rejects with, or `null`, and how many rejections nobody waited
 * for came meanwhile (counted for the report, not asserted: when one lands
 * depends on the broker's timing).
 */
async function enqueueWith(
  url: string,
  Class: QueueClass,
  prefix: string,
  delay: Temporal.Duration,
): Promise<{ error: Error | null; strays: number }> {
  let strays = 0;
  const onStray = (event: PromiseRejectionEvent) => {
    strays++;
    event.preventDefault();
  };
  globalThis.addEventListener("unhandledrejection", onStray);
  const connection = await connect(url);
  connection.on("error", () => {});
  try {
    const queue = new Class(connection, {
      queue: prefix,
      delayedQueuePrefix: `${prefix}.d_`,
      nativeRetrial: true,
    });
    let error: Error | null = null;
    try {
      await queue.enqueue({ hello: "world" }, { delay });
    } catch (e) {
      error = e as Error;
    }
    // Give a dropped promise the turns it needs to settle.
    await sleep(200);
    return { error, strays };
  } finally {
    const cleanup = await connect(url);
    cleanup.on("error", () => {});
    const channel = await cleanup.createChannel();
    channel.on("error", () => {});
    const ms = delay.total("millisecond");
    for (
      const name of [
        prefix,
        `${prefix}.d_${ms}`,
        `${prefix}.d_${Math.ceil(ms)}`,
      ]
    ) {
      await channel.deleteQueue(name).catch(() => {});
    }
    await cleanup.close().catch(() => {});
    await connection.close().catch(() => {});
    globalThis.removeEventListener("unhandledrejection", onStray);
  }
}

Deno.test({
  name:
    "@fedify/amqp 2.3.5 cannot enqueue a delay that is not whole milliseconds; the stand-in rounds it up (Finding 14)",
  ignore: source == null || noRabbitmq,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const services = new ServiceManager();
    try {
      const { url } = await services.acquire(rabbitmqService);
      const real = (await loadQueuePackage(
        "amqp",
        () => import("@fedify/amqp"),
      )).module.AmqpMessageQueue as unknown as QueueClass;
      const standIn = (await loadQueuePackage(
        "amqp",
        () => import("@fedify/amqp"),
        "mapped",
      )).module.AmqpMessageQueue as unknown as QueueClass;

      const whole = await enqueueWith(url, real, "fqb.f14.whole", WHOLE);
      assert.equal(whole.error, null, String(whole.error));

      const fractional = await enqueueWith(
        url,
        real,
        "fqb.f14.fraction",
        FRACTIONAL,
      );
      assert.ok(fractional.error != null, "the enqueue should fail");
      assert.match(
        fractional.error.message,
        /406 \(PRECONDITION-FAILED\).*invalid arg 'x-(expires|message-ttl)'.*expected integer, got double/,
      );
      console.log(
        `2.3.5, ${FRACTIONAL.total("millisecond")} ms: ${fractional.strays} ` +
          "rejection(s) nothing waited for",
      );

      const rounded = await enqueueWith(
        url,
        standIn,
        "fqb.f14.standin",
        FRACTIONAL,
      );
      assert.equal(rounded.error, null, String(rounded.error));
    } finally {
      await services.stopAll();
    }
  },
});
