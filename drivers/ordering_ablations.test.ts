/**
 * The ordering ablations on the queues themselves, without Fedify: each
 * test enqueues several messages of one ordering key the way that exposes
 * the mechanism the ablation changes, records the order their handlers
 * finish in (and how many of a key run at once), and checks the official
 * queue against its ablation.  Counts and orders, never speed: the first
 * message's handler is made the slowest, so a queue that lets a key's
 * messages run together finishes them out of order on any machine.
 *
 * - `sqlite-lock-in-dequeue`: two `enqueue()` calls in one tick start two
 *   poll loops; the second dequeues before the first has taken the key's
 *   lock (which the package takes after an `await`).
 * - `deno-kv(-single)-fifo`: Deno KV hands every message to the queue at
 *   once; blocked ones poll the lock, and the first to look wins.  And
 *   Deno KV itself hands a backlog out by (ready time, random id), so
 *   messages enqueued in one millisecond come in no set order.
 * - `amqp-ordered`: the AMQP queue's `ordering` option, its partition
 *   queues, and their clean-up.
 */
import assert from "node:assert/strict";
import { serversMissing } from "../lib/testing/servers.ts";
import { connect as connectAmqp } from "amqplib";
import type { Driver, Json } from "./driver.ts";
import { sqliteDriver } from "./sqlite/sqlite.ts";
import {
  lockInDequeueDatabase,
  sqliteLockInDequeueDriver,
} from "./sqlite/sqlite_lock_in_dequeue.ts";
import { denoKvSingleDriver } from "./deno_kv/deno_kv.ts";
import {
  denoKvFifoDriver,
  denoKvSingleFifoDriver,
} from "./deno_kv/deno_kv_fifo.ts";
import { amqpDriver } from "./amqp/amqp.ts";
import { amqpOrderedDriver, PARTITIONS } from "./amqp/amqp_ordered.ts";
import { defaultSuite } from "./mod.ts";
import { ServiceManager } from "../lib/services/mod.ts";
import { rabbitmqService } from "./amqp/mod.ts";
import { sleep } from "../lib/system/sleep.ts";
import { DatabaseSync, StatementSync } from "node:sqlite";

/** What a keyed run saw: finishing order per key, and the most at once. */
interface Seen {
  /** Per key, the message numbers in the order their handlers finished. */
  readonly finished: Record<string, number[]>;
  /** The most handlers of one key that ever ran at the same time. */
  readonly maxConcurrent: number;
}

/** A message of the runs below. */
interface Numbered {
  readonly key: string;
  readonly n: number;
}

/**
 * Opens `driver`'s queue on `config`, enqueues `perKey` messages for each of
 * `keys` (all in one tick when `sameTick`, else one `await` after another),
 * each in a millisecond of its own when `distinctMs`, and waits (at most
 * `timeoutMs`) until every handler has finished.  The
 * handler of message 0 of a key takes `slowMs`, the others none.
 */
async function runKeyed(
  driver: Driver,
  config: Json,
  { keys, perKey, sameTick, distinctMs, slowMs, timeoutMs }: {
    keys: readonly string[];
    perKey: number;
    sameTick: boolean;
    distinctMs?: boolean;
    slowMs: number;
    timeoutMs: number;
  },
): Promise<Seen> {
  const opened = await driver.open!(config);
  const finished: Record<string, number[]> = {};
  const running = new Map<string, number>();
  let maxConcurrent = 0;
  let done = 0;
  const total = keys.length * perKey;
  let allDone!: () => void;
  const finishedAll = new Promise<void>((resolve) => allDone = resolve);
  const controller = new AbortController();
  const listening = opened.queue.listen(async (message: Numbered) => {
    const now = (running.get(message.key) ?? 0) + 1;
    running.set(message.key, now);
    maxConcurrent = Math.max(maxConcurrent, now);
    if (message.n === 0) await sleep(slowMs);
    else await Promise.resolve();
    running.set(message.key, running.get(message.key)! - 1);
    (finished[message.key] ??= []).push(message.n);
    if (++done >= total) allDone();
  }, { signal: controller.signal });
  try {
    const sends: Promise<void>[] = [];
    for (let n = 0; n < perKey; n++) {
      for (const key of keys) {
        if (distinctMs) {
          const start = Date.now();
          while (Date.now() === start) await sleep(1);
        }
        const sending = opened.queue.enqueue({ key, n }, { orderingKey: key });
        if (sameTick) sends.push(sending);
        else await sending;
      }
    }
    await Promise.all(sends);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${driver.name}: ${done}/${total} handled`)),
        timeoutMs,
      );
    });
    try {
      await Promise.race([finishedAll, timedOut]);
    } finally {
      clearTimeout(timer);
    }
    // A queue releases a key's lock after the handler settles: let the
    // last release happen before the abort closes the database under it.
    await sleep(100);
  } finally {
    controller.abort();
    await listening.catch(() => {});
    await opened.close();
  }
  return { finished, maxConcurrent };
}

/** Every key's messages, finished in enqueue order. */
function inOrder(keys: readonly string[], perKey: number) {
  return Object.fromEntries(
    keys.map((key) => [key, Array.from({ length: perKey }, (_, i) => i)]),
  );
}

Deno.test("the ordering ablations are listed, and declared as their bases", async () => {
  for (
    const name of [
      "sqlite-lock-in-dequeue",
      "deno-kv-fifo",
      "deno-kv-single-fifo",
      "amqp-ordered",
    ]
  ) {
    assert.ok(!defaultSuite.includes(name), name);
  }
  for (
    const [ablation, base] of [
      [sqliteLockInDequeueDriver, sqliteDriver],
      [denoKvSingleFifoDriver, denoKvSingleDriver],
    ] as const
  ) {
    // Made by the same factory: the same prepare, closed over the same code.
    assert.equal(String(ablation.prepare), String(base.prepare), ablation.name);
    assert.deepEqual(ablation.ordering, base.ordering, ablation.name);
    assert.equal(ablation.crossProcess, base.crossProcess, ablation.name);
    assert.match(ablation.description, /an ablation/, ablation.name);
  }
  assert.equal(denoKvFifoDriver.crossProcess, true);
  // The SQLite ablation overrides `prepare` and nothing else.
  const LockInDequeueDatabase = await lockInDequeueDatabase();
  assert.equal(
    Object.getPrototypeOf(LockInDequeueDatabase.prototype),
    DatabaseSync.prototype,
  );
  assert.deepEqual(
    Object.getOwnPropertyNames(LockInDequeueDatabase.prototype).sort(),
    ["constructor", "prepare"],
  );
  const db = new LockInDequeueDatabase(":memory:");
  try {
    assert.ok(db.prepare("SELECT 1 AS one") instanceof StatementSync);
    assert.deepEqual({ ...db.prepare("SELECT 1 AS one").get() }, { one: 1 });
  } finally {
    db.close();
  }
  assert.equal(amqpDriver.ordering?.supported, false);
  assert.equal(amqpOrderedDriver.ordering?.supported, true);
});

Deno.test({
  name: "sqlite: two enqueues in one tick let a key's messages run at once; " +
    "sqlite-lock-in-dequeue keeps them in order",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const tempDir = await Deno.makeTempDir({ prefix: "fqb-test-" });
    const keys = ["a", "b"];
    const options = {
      keys,
      perKey: 3,
      sameTick: true,
      slowMs: 300,
      timeoutMs: 20_000,
    };
    try {
      const seen = new Map<Driver, Seen>();
      for (const driver of [sqliteDriver, sqliteLockInDequeueDriver]) {
        const prepared = await driver.prepare!({
          runId: driver.name.replace(/\W/g, ""),
          tempDir,
        });
        try {
          seen.set(driver, await runKeyed(driver, prepared.config, options));
        } finally {
          await prepared.cleanup();
        }
      }
      const plain = seen.get(sqliteDriver)!;
      assert.ok(plain.maxConcurrent > 1, JSON.stringify(plain));
      assert.notDeepEqual(plain.finished, inOrder(keys, 3));
      assert.deepEqual(seen.get(sqliteLockInDequeueDriver), {
        finished: inOrder(keys, 3),
        maxConcurrent: 1,
      });
    } finally {
      await Deno.remove(tempDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "deno-kv-single-fifo hands a key's messages over in enqueue order " +
    "when each was enqueued in a millisecond of its own",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const tempDir = await Deno.makeTempDir({ prefix: "fqb-test-" });
    const keys = ["a", "b"];
    const perKey = 5;
    try {
      const prepared = await denoKvSingleFifoDriver.prepare!({
        runId: "fifo",
        tempDir,
      });
      try {
        assert.deepEqual(
          await runKeyed(denoKvSingleFifoDriver, prepared.config, {
            keys,
            perKey,
            sameTick: false,
            distinctMs: true,
            slowMs: 300,
            timeoutMs: 20_000,
          }),
          { finished: inOrder(keys, perKey), maxConcurrent: 1 },
        );
      } finally {
        await prepared.cleanup();
      }
    } finally {
      await Deno.remove(tempDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "Deno KV hands out a backlog by (ready time, random id): messages " +
    "of one millisecond come in no set order",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const tempDir = await Deno.makeTempDir({ prefix: "fqb-test-" });
    const path = `${tempDir}/order.sqlite3`;
    const count = 40;
    try {
      const kv = await Deno.openKv(path);
      try {
        for (let i = 0; i < count; i++) await kv.enqueue(`fqb-msg-${i}-end`);
        // The queue's table, in its key's order: (ready time, id).
        const db = new DatabaseSync(path);
        let table: { ts: number; id: string; n: number }[];
        try {
          table = (db.prepare("SELECT ts, id, data FROM queue ORDER BY ts, id")
            .all() as { ts: number; id: string; data: Uint8Array }[])
            .map(({ ts, id, data }) => ({
              ts,
              id,
              n: Number(
                /fqb-msg-(\d+)-end/.exec(new TextDecoder().decode(data))![1],
              ),
            }));
        } finally {
          db.close();
        }
        assert.equal(table.length, count);
        // Ids are random UUIDs, not a sequence.
        for (const { id } of table) {
          assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-/);
        }
        const delivered: number[] = [];
        let allDelivered!: () => void;
        const done = new Promise<void>((resolve) => allDelivered = resolve);
        const listening = kv.listenQueue((message: string) => {
          delivered.push(Number(/fqb-msg-(\d+)-end/.exec(message)![1]));
          if (delivered.length === count) allDelivered();
        });
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          done,
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error("timed out")), 20_000);
          }),
        ]).finally(() => clearTimeout(timer));
        kv.close();
        await listening.catch(() => {});
        // Delivered in the table's order, which is enqueue order only
        // across milliseconds.
        assert.deepEqual(delivered, table.map((row) => row.n));
        for (let i = 1; i < count; i++) {
          if (table[i].ts !== table[i - 1].ts) {
            assert.ok(table[i].n > table[i - 1].n);
          }
        }
      } finally {
        try {
          kv.close();
        } catch { /* closed above */ }
      }
    } finally {
      await Deno.remove(tempDir, { recursive: true });
    }
  },
});

const noRabbitmq = serversMissing(rabbitmqService) != null;

Deno.test({
  name: "amqp-ordered keeps a key's order in its partitions and deletes them",
  ignore: noRabbitmq,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const services = new ServiceManager();
    const tempDir = await Deno.makeTempDir({ prefix: "fqb-test-" });
    try {
      const { url } = await services.acquire(rabbitmqService);
      const prepared = await amqpOrderedDriver.prepare!({
        runId: "orderedprobe",
        tempDir,
        serviceUrl: url,
      });
      const partitions = Array.from(
        { length: PARTITIONS },
        (_, i) => `fqb.orderedprobe.ordering_${i}`,
      );
      const keys = ["a", "b", "c"];
      try {
        assert.deepEqual(
          await runKeyed(amqpOrderedDriver, prepared.config, {
            keys,
            perKey: 4,
            sameTick: false,
            slowMs: 200,
            timeoutMs: 20_000,
          }),
          { finished: inOrder(keys, 4), maxConcurrent: 1 },
        );
        // The keyed messages went through the partitions, now empty.
        const connection = await connectAmqp(url);
        try {
          const channel = await connection.createChannel();
          for (const name of partitions) {
            assert.equal((await channel.checkQueue(name)).messageCount, 0);
          }
          await channel.close();
        } finally {
          await connection.close().catch(() => {});
        }
      } finally {
        await prepared.cleanup();
      }
      const connection = await connectAmqp(url);
      try {
        for (const name of partitions) {
          const channel = await connection.createChannel();
          channel.on("error", () => {});
          await assert.rejects(channel.checkQueue(name), /404|NOT_FOUND/);
        }
      } finally {
        await connection.close().catch(() => {});
      }
    } finally {
      await services.stopAll();
      await Deno.remove(tempDir, { recursive: true });
    }
  },
});
