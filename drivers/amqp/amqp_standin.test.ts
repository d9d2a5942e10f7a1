/**
 * The `@fedify/amqp` stand-in against one RabbitMQ node for the whole file:
 * a throwaway node (or `AMQP_URL` when set), stopped at the end with none
 * of its processes left behind.  Also reproduces upstream's
 * acknowledgement pattern with plain `amqplib`, which is why the stand-in
 * acknowledges differently.
 */
import { errorMessage } from "../../lib/results/error_message.ts";
import assert from "node:assert/strict";
import {
  type Channel,
  type ChannelModel,
  connect,
  type ConsumeMessage,
} from "amqplib";
import { Buffer } from "node:buffer";
import {
  descendants,
  isAlive,
  outliveCrash,
  queueExists,
  type Recorder,
  recordMessages,
  rejectsWithin,
  waitFor,
  withSilentServer,
} from "../../lib/testing/mod.ts";
import { sleep } from "../../lib/system/sleep.ts";
import { ServiceManager } from "../../lib/services/mod.ts";
import { probeRabbitmq, rabbitmqService } from "./mod.ts";
import {
  AmqpMessageQueue,
  type AmqpMessageQueueOptions,
} from "./amqp_standin.ts";
import { amqpDriver } from "./amqp.ts";

/** A promise and the function that resolves it. */
function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => open = resolve);
  return { opened, open };
}

/**
 * Records what `queue` handles, each message before its handler's work;
 * a broken connection's rejection is not reported.
 */
function record(
  queue: AmqpMessageQueue,
  // deno-lint-ignore no-explicit-any
  onMessage?: (message: any, got: any[]) => Promise<void> | void,
): Recorder {
  return recordMessages(queue, onMessage, { ignoreRejection: true });
}

/**
 * The depth once the broker holds `queued` messages.  `enqueue()` resolves
 * when `amqplib` has buffered a message in its channel's stream (unconfirmed,
 * as upstream), and `getDepth()` asks on another channel: `amqplib`'s muxer
 * interleaves the two channels' frames, and RabbitMQ runs each channel in its
 * own process, so the check can be answered before the last publish is
 * routed.  Read at once, that message can be missing (7 of 8 on a fresh
 * clone's first run).
 */
async function depthOnceHolding(
  queue: AmqpMessageQueue,
  queued: number,
): Promise<Awaited<ReturnType<AmqpMessageQueue["getDepth"]>>> {
  let depth = await queue.getDepth();
  await waitFor(
    async () => {
      depth = await queue.getDepth();
      return depth.queued >= queued;
    },
    2000,
    () => `${queued} queued (last read ${JSON.stringify(depth)})`,
  );
  return depth;
}

/** The last lines of a throwaway broker's log (in its working folder). */
function brokerLogTail(pid: number, lines = 40): string {
  try {
    const dir = Deno.readLinkSync(`/proc/${pid}/cwd`);
    return Deno.readTextFileSync(`${dir}/rabbitmq.log`).trimEnd()
      .split("\n").slice(-lines).join("\n");
  } catch (error) {
    return `(unreadable: ${errorMessage(error)})`;
  }
}

Deno.test("probeRabbitmq() fails fast and without secrets", async () => {
  const error = await rejectsWithin(
    probeRabbitmq("amqp://u:secret@127.0.0.1:1", 2000),
    2500,
  );
  assert.match(
    error.message,
    /^cannot reach RabbitMQ at amqp:\/\/u:\*\*\*@127\.0\.0\.1:1 \(.*ECONNREFUSED/,
  );
  assert.ok(!error.message.includes("secret"));

  // A server that accepts and never answers.
  await withSilentServer(async (port) => {
    const timeout = await rejectsWithin(
      probeRabbitmq(`amqp://127.0.0.1:${port}`, 700),
      1500,
    );
    assert.match(timeout.message, /^cannot reach RabbitMQ/);
  });
});

/**
 * Upstream's `listen()` consume callback (`@fedify/amqp` 2.3.6,
 * packages/amqp/src/mq.ts) with `nativeRetrial: false`, rewritten here
 * with plain `amqplib`: it calls the handler, acknowledges once the
 * handler's promise settles, and also acknowledges in a `finally` right
 * after calling it.  `settled` collects what the promise-side
 * acknowledgement did (upstream leaves its rejection unhandled).
 */
function upstreamAckPattern(
  channel: Channel,
  handler: (message: unknown) => Promise<void>,
  settled: (error: unknown) => void,
): (msg: ConsumeMessage | null) => void {
  return (msg) => {
    if (msg == null) return;
    const message = JSON.parse(msg.content.toString("utf-8"));
    try {
      const result = handler(message);
      result.finally(() => channel.ack(msg)).then(
        () => settled(undefined),
        settled,
      );
    } finally {
      channel.ack(msg);
    }
  };
}

const services = new ServiceManager();

Deno.test({
  name: "AmqpMessageQueue on RabbitMQ",
  ignore: !services.availability(rabbitmqService).available,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const startedAt = performance.now();
    let server = await services.acquire(rabbitmqService);
    console.log(
      `RabbitMQ ${server.version} ready in ${
        (performance.now() - startedAt).toFixed(0)
      } ms (${server.startedByBench ? "throwaway" : "$AMQP_URL"})`,
    );
    const connections: ChannelModel[] = [];
    const open = async (): Promise<ChannelModel> => {
      const connection = await connect(server.url, { noDelay: true });
      connection.on("error", () => {});
      connections.push(connection);
      return connection;
    };
    const prefix = `fqb-test.${crypto.randomUUID()}`;
    let serial = 0;
    /** Every queue name a test made, deleted at the end. */
    const made = new Set<string>();
    /** A queue with names of its own: `prefix.name` and its delay queues. */
    const queueOn = (
      connection: ChannelModel,
      name: string,
      options: AmqpMessageQueueOptions = {},
    ): AmqpMessageQueue => {
      made.add(`${prefix}.${name}`);
      return new AmqpMessageQueue(connection, {
        queue: `${prefix}.${name}`,
        delayedQueuePrefix: `${prefix}.${name}.delayed_`,
        ...options,
      });
    };
    try {
      const main = await open();
      const other = await open();

      await t.step("round trip, and listen() resolves on abort", async () => {
        const queue = queueOn(main, `rt${serial++}`);
        assert.equal(queue.nativeRetrial, false);
        const message = { type: "outbox", nested: { list: [1, "two"] } };
        await queue.enqueue(message);
        const listener = record(queue);
        await waitFor(() => listener.got.length === 1, 5000, "the message");
        assert.deepEqual(listener.got, [message]);
        // Resolves on abort (bounded: a hang fails instead of stalling).
        let stopped = false;
        const stopping = listener.stop().then(() => stopped = true);
        await waitFor(() => stopped, 30_000, "listen() to resolve");
        await stopping;
        // An already aborted signal: resolves at once.
        await queue.listen(() => {}, { signal: AbortSignal.abort() });
      });

      if (server.startedByBench) {
        await t.step(
          "upstream's default names on a broker of our own",
          async () => {
            const queue = new AmqpMessageQueue(main);
            await queue.enqueue({ n: 1 });
            await queue.enqueue({ n: 2 }, {
              delay: Temporal.Duration.from({ seconds: 30 }),
            });
            assert.ok(await queueExists(main, "fedify_queue"));
            assert.ok(await queueExists(main, "fedify_delayed_30000"));
            assert.deepEqual(await depthOnceHolding(queue, 2), {
              queued: 2,
              ready: 1,
              delayed: 1,
            });
            made.add("fedify_queue");
            made.add("fedify_delayed_30000");
          },
        );
      }

      await t.step("enqueueMany() delivers exactly once", async () => {
        const sender = queueOn(main, `many${serial}`);
        const receiver = queueOn(other, `many${serial++}`);
        const count = 500;
        await sender.enqueueMany(
          Array.from({ length: count }, (_, id) => ({ id })),
        );
        assert.deepEqual(await depthOnceHolding(sender, count), {
          queued: count,
          ready: count,
          delayed: 0,
        });
        // Two listeners on two connections share the queue.
        const a = record(sender);
        const b = record(receiver);
        await waitFor(
          () => a.got.length + b.got.length >= count,
          10_000,
          "every message",
        );
        await sleep(300); // Room for a duplicate to show up.
        await Promise.all([a.stop(), b.stop()]);
        const ids = [...a.got, ...b.got].map((m) => m.id).sort((x, y) => x - y);
        assert.deepEqual(ids, Array.from({ length: count }, (_, id) => id));
        assert.ok(a.got.length > 0 && b.got.length > 0, "both consumed");
        assert.equal((await sender.getDepth()).queued, 0);
        await sender.enqueueMany([]); // A no-op.
      });

      await t.step("delays are honoured, in upstream's queues", async () => {
        const name = `delay${serial++}`;
        const queue = queueOn(main, name);
        made.add(`${prefix}.${name}.delayed_2500`);
        // Long enough that the depth is read before the delay runs out.
        const delayMs = 2500;
        const enqueuedAt = Date.now();
        await queue.enqueue({ n: "late" }, {
          delay: Temporal.Duration.from({ milliseconds: delayMs }),
        });
        await queue.enqueueMany([{ n: "now" }], {
          delay: Temporal.Duration.from({ milliseconds: 0 }),
        });
        // Named after the exact delay, not rounded.
        assert.ok(await queueExists(main, `${prefix}.${name}.delayed_2500`));
        assert.deepEqual(await depthOnceHolding(queue, 2), {
          queued: 2,
          ready: 1,
          delayed: 1,
        });
        const arrivals = new Map<string, number>();
        const listener = record(queue, (m) => {
          arrivals.set(m.n, Date.now() - enqueuedAt);
        });
        await waitFor(() => arrivals.has("late"), 10_000, "the late one");
        await listener.stop();
        assert.deepEqual(listener.got.map((m) => m.n), ["now", "late"]);
        // Lower bounds only: a busy machine makes anything late, never
        // early; the undelayed one came first (above).
        const late = arrivals.get("late")!;
        assert.ok(late >= delayMs, `late: ${late}`);
        assert.deepEqual(await queue.getDepth(), {
          queued: 0,
          ready: 0,
          delayed: 0,
        });
      });

      await t.step("acknowledges only after the handler", async () => {
        const doomed = await open();
        const first = queueOn(doomed, `ack${serial}`);
        const second = queueOn(other, `ack${serial++}`);
        const release = gate();
        const a = record(first, () => release.opened);
        await first.enqueue({ n: 1 });
        await waitFor(() => a.got.length === 1, 5000, "the first delivery");
        // Handed out, not acknowledged: neither waiting nor gone.
        assert.equal((await second.getDepth()).queued, 0);
        // The listener's process "dies" mid-handler.
        await doomed.close();
        release.open();
        await assert.rejects(a.done, /AMQP listener on .* lost/);
        const b = record(second);
        await waitFor(() => b.got.length === 1, 5000, "the redelivery");
        await sleep(200);
        await b.stop();
        assert.deepEqual(b.got, [{ n: 1 }]);
      });

      await t.step("abort lets the running handler finish", async () => {
        const queue = queueOn(main, `abort${serial++}`);
        await queue.enqueueMany(
          Array.from({ length: 10 }, (_, id) => ({ id })),
        );
        const release = gate();
        const a = record(queue, () => release.opened);
        await waitFor(() => a.got.length === 1, 5000, "the first delivery");
        const stopping = a.stop();
        let resolved = false;
        stopping.then(() => resolved = true);
        await sleep(200);
        assert.ok(!resolved, "listen() waits for the running handler");
        release.open();
        await stopping;
        assert.equal(a.got.length, 1, "no handler runs after the abort");
        const b = record(queue);
        await waitFor(() => b.got.length === 9, 5000, "the rest");
        await sleep(200);
        await b.stop();
        const ids = [...a.got, ...b.got].map((m) => m.id).sort((x, y) => x - y);
        assert.deepEqual(ids, Array.from({ length: 10 }, (_, id) => id));
      });

      await t.step("a failing handler: Fedify retries by default", async () => {
        const queue = queueOn(main, `fail${serial++}`);
        await queue.enqueue({ n: "boom" });
        const a = record(queue, () => {
          throw new Error("handler failed");
        });
        await waitFor(() => a.got.length === 1, 5000, "the delivery");
        await sleep(300);
        await a.stop();
        assert.equal(a.got.length, 1, "acknowledged, not redelivered");
        assert.equal((await queue.getDepth()).queued, 0);
      });

      await t.step("a failing handler: nativeRetrial requeues", async () => {
        const queue = queueOn(main, `native${serial++}`, {
          nativeRetrial: true,
        });
        assert.equal(queue.nativeRetrial, true);
        await queue.enqueue({ n: "flaky" });
        const a = record(queue, (_, got) => {
          if (got.length === 1) throw new Error("first attempt fails");
        });
        await waitFor(() => a.got.length === 2, 5000, "the redelivery");
        await sleep(300);
        await a.stop();
        assert.deepEqual(a.got, [{ n: "flaky" }, { n: "flaky" }]);
      });

      await t.step("without ordering, ordering keys are ignored", async () => {
        const name = `noorder${serial++}`;
        const queue = queueOn(main, name);
        await queue.enqueue({ n: 1 }, { orderingKey: "alice" });
        const a = record(queue);
        await waitFor(() => a.got.length === 1, 5000, "the delivery");
        await a.stop();
        assert.ok(!await queueExists(main, `${prefix}.${name}.ordering_0`));
      });

      await t.step(
        "messages with one ordering key keep their order",
        async () => {
          const name = `order${serial++}`;
          const ordering = { queuePrefix: `${prefix}.${name}.ordering_` };
          for (let i = 0; i < 4; i++) made.add(`${ordering.queuePrefix}${i}`);
          const sender = queueOn(main, name, { ordering });
          const receiver = queueOn(other, name, { ordering });
          const keys = ["alice", "bob", "carol"];
          const sent = 60;
          for (let i = 0; i < sent; i += 6) {
            await Promise.all(keys.map((key) =>
              sender.enqueueMany(
                [{ key, seq: i }, { key, seq: i + 1 }],
                { orderingKey: key },
              )
            ));
          }
          await sender.enqueue({ key: null, seq: -1 });
          const slow = (m: { seq: number }) => sleep(Math.abs(m.seq) % 3);
          const a = record(sender, slow);
          const b = record(receiver, slow);
          const total = sent + 1;
          await waitFor(
            () => a.got.length + b.got.length >= total,
            10_000,
            "every message",
          );
          await Promise.all([a.stop(), b.stop()]);
          assert.equal(a.got.length + b.got.length, total);
          for (const key of keys) {
            const seen = [a.got, b.got].filter((got) =>
              got.some((m) => m.key === key)
            );
            assert.equal(seen.length, 1, `${key} went to one listener`);
            const seqs = seen[0].filter((m) => m.key === key).map((m) => m.seq);
            assert.deepEqual(seqs, [...seqs].sort((x, y) => x - y), key);
            assert.equal(seqs.length, sent / keys.length, key);
          }
        },
      );

      await t.step("delayed messages with different keys", async () => {
        // Upstream's shared `ordering_` delay queue would refuse the second
        // key (its dead-letter routing key is the first message's key).
        const name = `dorder${serial++}`;
        const ordering = { queuePrefix: `${prefix}.${name}.ordering_` };
        for (let i = 0; i < 4; i++) {
          made.add(`${ordering.queuePrefix}${i}`);
          made.add(`${prefix}.${name}.delayed_ordering_3000_${i}`);
        }
        const queue = queueOn(main, name, { ordering });
        // Long enough that the depth is read before any delay runs out.
        const delay = Temporal.Duration.from({ milliseconds: 3000 });
        for (const key of ["alice", "bob", "carol", "dave"]) {
          await queue.enqueueMany([{ key, seq: 0 }, { key, seq: 1 }], {
            delay,
            orderingKey: key,
          });
        }
        assert.equal((await depthOnceHolding(queue, 8)).delayed, 8);
        const a = record(queue);
        await waitFor(() => a.got.length === 8, 15_000, "every message");
        await a.stop();
        for (const key of ["alice", "bob", "carol", "dave"]) {
          assert.deepEqual(
            a.got.filter((m) => m.key === key).map((m) => m.seq),
            [0, 1],
          );
        }
      });

      // Why the stand-in acknowledges differently from upstream: upstream's
      // pattern acknowledges every delivery twice when the handler is async
      // (Fedify's always is), and RabbitMQ kills the channel for it.
      await t.step(
        "upstream's double acknowledgement: RabbitMQ closes the channel " +
          "(why the stand-in acknowledges once)",
        async () => {
          const name = `${prefix}.upstream${serial++}`;
          made.add(name);
          const connection = await open();
          const setup = await connection.createChannel();
          await setup.assertQueue(name, { durable: true });
          const body = (id: number) => Buffer.from(JSON.stringify({ id }));
          for (let id = 0; id < 5; id++) setup.sendToQueue(name, body(id));

          const channel = await connection.createChannel();
          const errors: Error[] = [];
          let closed = false;
          channel.on("error", (error: Error) => errors.push(error));
          channel.on("close", () => closed = true);
          await channel.prefetch(1);
          const handled: number[] = [];
          const secondAcks: unknown[] = [];
          // No handler ends before all 5 messages were delivered (each one
          // after the early ack of the one before), however slow the
          // machine: the first late ack then kills the channel.
          let arrived = 0;
          const allArrived = gate();
          await channel.consume(
            name,
            upstreamAckPattern(channel, async (message) => {
              if (++arrived === 5) allArrived.open();
              await allArrived.opened;
              handled.push((message as { id: number }).id);
            }, (error) => secondAcks.push(error)),
            { noAck: false },
          );
          try {
            await waitFor(
              () => arrived === 5,
              20_000,
              "all 5 messages to be delivered before any handler ends",
            );
          } finally {
            allArrived.open();
          }
          await waitFor(() => closed, 5000, "the channel to close");
          assert.equal(errors.length, 1);
          assert.match(
            errors[0].message,
            /406 \(PRECONDITION-FAILED\) with message "PRECONDITION_FAILED - unknown delivery tag 1"/,
          );
          await waitFor(() => secondAcks.length === 5, 5000, "every handler");
          // The acks that follow the fatal one were either written before
          // the close arrived (and discarded by the broker) or throw
          // `IllegalOperationError: Channel closed`: upstream leaves that
          // rejection unhandled.
          const thrown = secondAcks.filter((error) => error != null);
          for (const error of thrown) {
            assert.match(
              String(error),
              /IllegalOperationError: Channel closed/,
            );
          }
          // Messages sent afterwards are never delivered to this consumer.
          for (let id = 5; id < 10; id++) setup.sendToQueue(name, body(id));
          await sleep(500);
          assert.equal(handled.length, 5);
          assert.equal((await setup.checkQueue(name)).messageCount, 5);
          console.log(
            `upstream's pattern: ${errors[0].message}; handled ` +
              `${handled.length}, ${thrown.length} later ack(s) threw ` +
              `"Channel closed", then 5 later messages left in the queue`,
          );
          await setup.close();
        },
      );

      await t.step(
        "the stand-in on the same workload: exactly once",
        async () => {
          const queue = queueOn(main, `standin${serial++}`);
          await queue.enqueueMany(
            Array.from({ length: 5 }, (_, id) => ({ id })),
          );
          const a = record(queue, () => sleep(100));
          await waitFor(() => a.got.length === 5, 5000, "the first five");
          await queue.enqueueMany(
            Array.from({ length: 5 }, (_, id) => ({ id: id + 5 })),
          );
          await waitFor(() => a.got.length === 10, 5000, "the later five");
          await sleep(300);
          await a.stop();
          assert.deepEqual(
            a.got.map((m) => m.id).sort((x, y) => x - y),
            Array.from({ length: 10 }, (_, id) => id),
          );
          assert.equal((await queue.getDepth()).queued, 0);
        },
      );

      await t.step("the driver's cleanup leaves no queue behind", async () => {
        const runId = `fqb-test-${crypto.randomUUID()}`;
        const prepared = await amqpDriver.prepare!({
          runId,
          tempDir: "/nonexistent",
          serviceUrl: server.url,
        });
        const config = prepared.config as { queue: string };
        const names = [
          config.queue,
          `${config.queue}.delays`,
          `fqb.${runId}.delayed_30000`,
          `fqb.${runId}.delayed_40000`,
        ];
        try {
          const a = await amqpDriver.open!(prepared.config);
          const b = await amqpDriver.open!(prepared.config);
          await a.queue.enqueue({ n: 1 });
          const thirty = Temporal.Duration.from({ seconds: 30 });
          await a.queue.enqueue({ n: 2 }, { delay: thirty });
          await a.queue.enqueueMany!([{ n: 3 }], { delay: thirty });
          // Made by another process, found all the same.
          await b.queue.enqueue({ n: 4 }, {
            delay: Temporal.Duration.from({ seconds: 40 }),
          });
          await a.close();
          await b.close();
          for (const n of names) assert.ok(await queueExists(main, n), n);
        } finally {
          await prepared.cleanup();
        }
        for (const n of names) assert.ok(!await queueExists(main, n), n);
      });

      if (server.startedByBench) {
        await t.step(
          "a broker crash: listeners fail, queues survive",
          async () => {
            const name = `crash${serial++}`;
            // A queue that has outlived a crash of its own, so that the
            // crash below is judged on messages alone (see outliveCrash).
            server = await outliveCrash(
              services,
              rabbitmqService,
              async () => {
                await queueOn(await open(), name).enqueue({ setup: true });
              },
              async () => {
                const after = await open();
                if (!await queueExists(after, `${prefix}.${name}`)) {
                  return false;
                }
                const channel = await after.createChannel();
                await channel.purgeQueue(`${prefix}.${name}`);
                await channel.close();
                return true;
              },
            );
            const doomed = await open();
            const queue = queueOn(doomed, name);
            await queue.enqueueMany(
              Array.from({ length: 20 }, (_, id) => ({ id })),
            );
            // Unconfirmed, as upstream; a confirmed marker behind them means
            // the broker has written them all, once the queue holds them:
            // the marker goes on another channel, and RabbitMQ keeps no
            // order between channels, so a marker sent at once could be
            // written before the last of them.
            const inspect = await doomed.createChannel();
            let ready = 0;
            await waitFor(
              async () =>
                (ready = (await inspect.checkQueue(`${prefix}.${name}`))
                  .messageCount) === 20,
              5000,
              () => `20 ready messages before the marker (${ready} ready)`,
            );
            await inspect.close();
            const confirm = await doomed.createConfirmChannel();
            await new Promise<void>((resolve, reject) =>
              confirm.sendToQueue(
                `${prefix}.${name}`,
                Buffer.from(JSON.stringify({ id: 20 })),
                { persistent: true },
                (error: unknown) => error == null ? resolve() : reject(error),
              )
            );
            const release = gate();
            const a = record(queue, () => release.opened);
            await waitFor(() => a.got.length === 1, 5000, "a delivery");
            await services.crash(rabbitmqService);
            // The listener waits for its running handler, then fails.
            release.open();
            await assert.rejects(a.done, /AMQP listener on .* lost/);
            server = await services.acquire(rabbitmqService);
            const fresh = await open();
            const b = record(queueOn(fresh, name));
            let listener = "listening";
            b.done.then(
              () => listener = "ended",
              (error) => listener = `failed: ${errorMessage(error)}`,
            );
            let held = "unknown";
            let probedAt = 0;
            const ids = () =>
              b.got.map((m) => m.id).sort((x, y) => x - y).join(", ");
            await waitFor(
              async () => {
                if (b.got.length >= 21) return true;
                if (Date.now() - probedAt < 1000) return false;
                probedAt = Date.now();
                const probe = await fresh.createChannel().catch(() => null);
                if (probe != null) {
                  probe.on("error", () => {});
                  held = await probe.checkQueue(`${prefix}.${name}`).then(
                    (q) =>
                      `${q.messageCount} ready, ${q.consumerCount} consumers`,
                    (error) => `unknown (${errorMessage(error)})`,
                  );
                  await probe.close().catch(() => {});
                }
                return false;
              },
              15_000,
              () =>
                `all 21 messages after the restart (got [${ids()}]; the ` +
                `listener ${listener}; the queue: ${held}); the broker's ` +
                `log ends:\n${brokerLogTail(server.pid!)}`,
            );
            await sleep(300);
            await b.stop();
            // The one being handled was never acknowledged: it comes back.
            assert.deepEqual(
              b.got.map((m) => m.id).sort((x, y) => x - y),
              Array.from({ length: 21 }, (_, id) => id),
            );
          },
        );
      }

      // Leave nothing behind on a user-given broker either.
      const channel = await (await open()).createChannel();
      for (const name of made) await channel.deleteQueue(name);
      await channel.close();
    } finally {
      for (const connection of connections) {
        await connection.close().catch(() => {});
      }
      const helpers = server.pid == null ? [] : descendants(server.pid);
      const stoppingAt = performance.now();
      await services.stopAll();
      if (server.startedByBench) {
        console.log(
          `throwaway node stopped in ${
            (performance.now() - stoppingAt).toFixed(0)
          } ms`,
        );
        assert.ok(helpers.length > 0, "the node has helper processes");
        for (const pid of [server.pid!, ...helpers]) {
          assert.ok(!isAlive(pid), `process ${pid} outlived the node`);
        }
      }
    }
  },
});
