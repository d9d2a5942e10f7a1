/**
 * `AmqpMessageQueue` against one RabbitMQ node for the whole file: a
 * throwaway node (or `AMQP_URL` when set), stopped at the end with none of
 * its processes left behind.
 */
import assert from "node:assert/strict";
import { type ChannelModel, connect } from "amqplib";
import { isAlive } from "../../lib/testing.ts";
import {
  probeRabbitmq,
  rabbitmqService,
  ServiceManager,
} from "../../lib/services/mod.ts";
import { AmqpMessageQueue, delayBucket } from "./amqp.ts";

/** Polls `condition` every 10 ms; fails after `ms`. */
async function waitFor(
  condition: () => boolean,
  ms: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A promise and the function that resolves it. */
function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => open = resolve);
  return { opened, open };
}

/** A listener that records what it handles. */
interface Recorder {
  // deno-lint-ignore no-explicit-any
  readonly got: any[];
  readonly done: Promise<void>;
  stop(): Promise<void>;
}

function record(
  queue: AmqpMessageQueue,
  // deno-lint-ignore no-explicit-any
  onMessage?: (message: any, got: any[]) => Promise<void> | void,
): Recorder {
  // deno-lint-ignore no-explicit-any
  const got: any[] = [];
  const controller = new AbortController();
  const done = queue.listen(async (message) => {
    got.push(message);
    await onMessage?.(message, got);
  }, { signal: controller.signal });
  done.catch(() => {});
  return {
    got,
    done,
    async stop() {
      controller.abort();
      await done;
    },
  };
}

/** Every live descendant of `root` (the node's helper processes). */
function descendants(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(Number(entry.name), ppid);
    } catch {
      // Exited meanwhile.
    }
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const [pid, ppid] of parents) {
      if (ppid === parent) {
        found.push(pid);
        queue.push(pid);
      }
    }
  }
  return found;
}

/** Whether a queue exists (a missing one closes the channel it is asked on). */
async function queueExists(
  connection: ChannelModel,
  name: string,
): Promise<boolean> {
  const channel = await connection.createChannel();
  channel.on("error", () => {});
  try {
    await channel.checkQueue(name);
    return true;
  } catch (error) {
    assert.equal((error as { code?: number }).code, 404);
    return false;
  } finally {
    await channel.close().catch(() => {});
  }
}

Deno.test("delayBucket() rounds up to two significant digits", () => {
  assert.equal(delayBucket(0.2), 1);
  assert.equal(delayBucket(7), 7);
  assert.equal(delayBucket(99), 99);
  assert.equal(delayBucket(100), 100);
  assert.equal(delayBucket(1000), 1000);
  assert.equal(delayBucket(1001), 1100);
  assert.equal(delayBucket(1234.5), 1300);
  assert.equal(delayBucket(59_999), 60_000);
  assert.equal(delayBucket(3_600_000), 3_600_000);
});

Deno.test("probeRabbitmq() fails fast and without secrets", async () => {
  const started = performance.now();
  const error = await probeRabbitmq("amqp://u:secret@127.0.0.1:1", 2000)
    .then(() => assert.fail("expected a rejection"), (e: Error) => e);
  assert.ok(performance.now() - started < 2500);
  assert.match(
    error.message,
    /^cannot reach RabbitMQ at amqp:\/\/u:\*\*\*@127\.0\.0\.1:1 \(.*ECONNREFUSED/,
  );
  assert.ok(!error.message.includes("secret"));

  // A server that accepts and never answers.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  const conns: Deno.Conn[] = [];
  const accepting = (async () => {
    try {
      for await (const conn of listener) conns.push(conn);
    } catch {
      // Closed.
    }
  })();
  try {
    const silent = performance.now();
    const timeout = await probeRabbitmq(`amqp://127.0.0.1:${port}`, 700)
      .then(() => assert.fail("expected a rejection"), (e: Error) => e);
    assert.ok(performance.now() - silent < 1500);
    assert.match(timeout.message, /^cannot reach RabbitMQ/);
  } finally {
    listener.close();
    await accepting;
    for (const conn of conns) {
      try {
        conn.close();
      } catch {
        // Closed by the client.
      }
    }
  }
});

const services = new ServiceManager();

Deno.test({
  name: "AmqpMessageQueue on RabbitMQ",
  ignore: !services.availability(rabbitmqService).available,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const startedAt = performance.now();
    const server = await services.acquire(rabbitmqService);
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
    const made = new Set<string>();
    const queueOn = (
      connection: ChannelModel,
      name: string,
      options: { nativeRetrial?: boolean; prefetch?: number } = {},
    ): AmqpMessageQueue => {
      const queue = new AmqpMessageQueue(connection, {
        queue: `${prefix}.${name}`,
        ...options,
      });
      made.add(name);
      return queue;
    };
    try {
      const main = await open();
      const other = await open();

      await t.step("round trip, and listen() resolves on abort", async () => {
        const queue = queueOn(main, `rt${serial++}`);
        const message = { type: "outbox", nested: { list: [1, "two"] } };
        await queue.enqueue(message);
        const listener = record(queue);
        await waitFor(() => listener.got.length === 1, 5000, "the message");
        assert.deepEqual(listener.got, [message]);
        const aborted = performance.now();
        await listener.stop();
        assert.ok(performance.now() - aborted < 1000, "prompt resolution");
        // An already aborted signal: resolves at once.
        await queue.listen(() => {}, { signal: AbortSignal.abort() });
      });

      await t.step("enqueueMany() delivers exactly once", async () => {
        const sender = queueOn(main, `many${serial}`);
        const receiver = queueOn(other, `many${serial++}`);
        const count = 500;
        await sender.enqueueMany(
          Array.from({ length: count }, (_, id) => ({ id })),
        );
        assert.deepEqual(await sender.getDepth(), {
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

      await t.step("delays are honoured", async () => {
        const queue = queueOn(main, `delay${serial++}`);
        const delayMs = 1500;
        const enqueuedAt = Date.now();
        await queue.enqueue({ n: "late" }, {
          delay: Temporal.Duration.from({ milliseconds: delayMs }),
        });
        await queue.enqueueMany([{ n: "now" }], {
          delay: Temporal.Duration.from({ milliseconds: 0 }),
        });
        assert.deepEqual(await queue.getDepth(), {
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
        assert.ok(arrivals.get("now")! < 1000, `now: ${arrivals.get("now")}`);
        const late = arrivals.get("late")!;
        assert.ok(late >= delayMs && late < delayMs + 2000, `late: ${late}`);
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
        // The other nine were prefetched and go back; the first was acked.
        const b = record(queue);
        await waitFor(() => b.got.length === 9, 5000, "the rest");
        await sleep(200);
        await b.stop();
        const ids = [...a.got, ...b.got].map((m) => m.id).sort((x, y) => x - y);
        assert.deepEqual(ids, Array.from({ length: 10 }, (_, id) => id));
      });

      await t.step("a failing handler: Fedify retries by default", async () => {
        const queue = queueOn(main, `fail${serial++}`);
        assert.equal(queue.nativeRetrial, false);
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

      await t.step(
        "messages with one ordering key keep their order",
        async () => {
          const sender = queueOn(main, `order${serial}`);
          const receiver = queueOn(other, `order${serial++}`);
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

      await t.step("drop() leaves no queue behind", async () => {
        const queue = queueOn(main, `drop${serial++}`);
        await queue.initialize();
        await queue.enqueue({ n: 1 });
        await queue.enqueue({ n: 2 }, {
          delay: Temporal.Duration.from({ seconds: 30 }),
        });
        await queue.enqueue({ n: 3 }, {
          delay: Temporal.Duration.from({ seconds: 30 }),
          orderingKey: "k",
        });
        // A delay queue made by another process is found, too.
        await queueOn(other, `drop${serial - 1}`).enqueue({ n: 4 }, {
          delay: Temporal.Duration.from({ seconds: 40 }),
        });
        const name = `${prefix}.drop${serial - 1}`;
        const names = [
          name,
          `${name}.delays`,
          `${name}.ordering.0`,
          `${name}.ordering.3`,
          `${name}.delay.30000`,
          `${name}.delay.40000`,
        ];
        const partitioned = Array.from(
          { length: 4 },
          (_, i) => `${name}.delay.30000.ordering.${i}`,
        );
        const existing = async (list: string[]) => {
          const found: string[] = [];
          for (const n of list) if (await queueExists(main, n)) found.push(n);
          return found;
        };
        assert.deepEqual(await existing(names), names);
        assert.equal((await existing(partitioned)).length, 1);
        await queue.drop();
        assert.deepEqual(await existing([...names, ...partitioned]), []);
      });

      // Leave nothing behind on a user-given broker either.
      for (const name of made) {
        await new AmqpMessageQueue(main, { queue: `${prefix}.${name}` }).drop();
      }
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
