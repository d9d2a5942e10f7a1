/**
 * The one-change ablations: `redis-limit1` (Fedify's Redis queue reading one
 * ready message per dequeue) and `postgres-indexed` (Fedify's PostgreSQL
 * queue with 2.x's index on `created`).  Each delivers exactly once, makes
 * its one change for real (seen by Redis's `MONITOR`, or in `pg_indexes`),
 * and changes nothing else; likewise `amqp-confirm` (the AMQP queue on
 * publisher-confirm channels), `sqlite-poll1s` and `mysql-poll200ms` (the
 * SQLite and MySQL queues polling more often).
 */
import assert from "node:assert/strict";
import { serversMissing } from "../lib/testing/servers.ts";
import { Buffer } from "node:buffer";
import { Redis } from "ioredis";
import type { Driver } from "./driver.ts";
import { type ConfirmChannel, connect as connectAmqp } from "amqplib";
import { ServiceManager } from "../lib/services/mod.ts";
import { rabbitmqService } from "./amqp/mod.ts";
import { postgresService } from "./postgres/mod.ts";
import { redisService } from "./redis/mod.ts";
import { runSuite } from "../lib/run/suite.ts";
import {
  assertExactAccounting,
  roundTrip,
  smallSuiteParams,
  survivors,
} from "../lib/testing/mod.ts";
import { defaultSuite } from "./mod.ts";
import {
  connect as connectPostgres,
  postgres187Driver,
  postgresDriver,
} from "./postgres/postgres.ts";
import {
  createdIndexName,
  postgresIndexedDriver,
} from "./postgres/postgres_indexed.ts";
import { followsSource } from "./packages.ts";
import { connect as connectRedis, redisDriver } from "./redis/redis.ts";
import { LimitOneRedis, redisLimit1Driver } from "./redis/redis_limit1.ts";
import { sleep } from "../lib/system/sleep.ts";
import { amqpDriver } from "./amqp/amqp.ts";
import { amqpConfirmDriver, withConfirmChannels } from "./amqp/amqp_confirm.ts";
import { sqliteDriver } from "./sqlite/sqlite.ts";
import { sqlitePoll1sDriver } from "./sqlite/sqlite_poll1s.ts";
import { mysqlDriver } from "./mysql/mysql.ts";
import { mysqlPoll200msDriver } from "./mysql/mysql_poll200ms.ts";
import { mariadbService } from "./mysql/mod.ts";

const noRedis = serversMissing(redisService) != null;
const noPostgres = serversMissing(postgresService) != null;
const noRabbitmq = serversMissing(rabbitmqService) != null;

const params = smallSuiteParams();

/** Runs a driver at parallelism 1 and 2; asserts exact accounting. */
async function assertExactlyOnce(
  driver: Driver,
  services: ServiceManager,
): Promise<void> {
  const document = await runSuite({
    params,
    drivers: [driver],
    parallel: [1, 2],
    services,
  });
  assert.deepEqual(
    document.results.map((r) => r.id),
    [driver.name, `${driver.name}-x2`],
  );
  const pids: number[] = [];
  for (const r of document.results) {
    pids.push(...r.processes.map((p) => p.pid));
    assertExactAccounting(r, 4 * 6);
  }
  const server = new Set(services.startedPids());
  assert.deepEqual(
    await survivors(pids.filter((pid) => !server.has(pid))),
    [],
    "no process outlives the runs",
  );
}

/** One command as Redis's `MONITOR` reports it, name in lowercase. */
type Command = readonly string[];

/**
 * Watches every command the server at `url` runs, with `MONITOR`, until
 * the returned `stop()`; `commands` fills as they come, and `caughtUp()`
 * resolves once every command run before it was called is in.
 */
async function monitor(
  url: string,
): Promise<
  { commands: Command[]; caughtUp(): Promise<void>; stop(): void }
> {
  const client = new Redis(url, { lazyConnect: true });
  client.on("error", () => {});
  await client.connect();
  const watcher = await client.monitor();
  const commands: Command[] = [];
  watcher.on("monitor", (_time: string, args: string[]) => {
    commands.push([args[0].toLowerCase(), ...args.slice(1)]);
  });
  let marks = 0;
  return {
    commands,
    // MONITOR streams commands in the order the server ran them, a little
    // behind: once a marker sent now shows up, so has all that came before.
    async caughtUp() {
      const mark = `fqb-monitor-mark-${marks++}`;
      const marker = new Redis(url);
      marker.on("error", () => {});
      try {
        await marker.echo(mark);
      } finally {
        marker.disconnect();
      }
      const deadline = Date.now() + 30_000;
      while (!commands.some((c) => c[0] === "echo" && c[1] === mark)) {
        if (Date.now() > deadline) assert.fail("MONITOR never caught up");
        await sleep(10);
      }
    },
    stop() {
      watcher.disconnect();
      client.disconnect();
    },
  };
}

/** The commands on keys under `prefix` (first argument), by name. */
function onPrefix(
  commands: readonly Command[],
  prefix: string,
  name?: string,
): Command[] {
  return commands.filter((c) =>
    c[1]?.startsWith(prefix) && (name == null || c[0] === name)
  );
}

Deno.test("the ablations are listed but not in the default suite", () => {
  assert.ok(!defaultSuite.includes("redis-limit1"));
  assert.ok(!defaultSuite.includes("postgres-indexed"));
  assert.ok(!defaultSuite.includes("amqp-confirm"));
  assert.ok(!defaultSuite.includes("sqlite-poll1s"));
  assert.ok(!defaultSuite.includes("mysql-poll200ms"));
  assert.ok(
    defaultSuite.includes("redis") && defaultSuite.includes("postgres"),
  );
  for (
    const [ablation, base] of [
      [redisLimit1Driver, redisDriver],
      [postgresIndexedDriver, postgres187Driver],
      [amqpConfirmDriver, amqpDriver],
      [sqlitePoll1sDriver, sqliteDriver],
      [mysqlPoll200msDriver, mysqlDriver],
    ] as const
  ) {
    assert.equal(ablation.service, base.service, ablation.name);
    assert.deepEqual(ablation.packages, base.packages, ablation.name);
    assert.equal(ablation.crossProcess, base.crossProcess, ablation.name);
    assert.match(ablation.description, /an ablation/, ablation.name);
  }
});

Deno.test("LimitOneRedis overrides zrangebyscoreBuffer and nothing else", () => {
  assert.equal(Object.getPrototypeOf(LimitOneRedis.prototype), Redis.prototype);
  assert.deepEqual(
    Object.getOwnPropertyNames(LimitOneRedis.prototype).sort(),
    ["constructor", "zrangebyscoreBuffer"],
  );
  assert.deepEqual(Object.getOwnPropertySymbols(LimitOneRedis.prototype), []);
  assert.deepEqual(Object.getOwnPropertyNames(LimitOneRedis).sort(), [
    "length",
    "name",
    "prototype",
  ]);
});

Deno.test({
  name: "LimitOneRedis answers every other call as ioredis does",
  ignore: noRedis,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const services = new ServiceManager();
    try {
      const { url } = await services.acquire(redisService);
      const plain = connectRedis(url);
      const limited = connectRedis(url, LimitOneRedis);
      const listener = connectRedis(url, LimitOneRedis);
      try {
        assert.ok(limited instanceof LimitOneRedis && limited instanceof Redis);
        /** The same calls on either client, each under its own prefix. */
        const script = async (redis: Redis, p: string) => {
          const out: unknown[] = [];
          out.push(await redis.set(`${p}s`, "v", "EX", 60, "NX"));
          out.push(await redis.set(`${p}s`, "w", "EX", 60, "NX"));
          out.push(await redis.get(`${p}s`), await redis.incr(`${p}n`));
          for (const [score, member] of [[0, "b"], [0, "a"], [5, "c"]]) {
            out.push(await redis.zadd(`${p}z`, score, member));
          }
          out.push(await redis.zrangebyscore(`${p}z`, 0, 10));
          out.push(
            await redis.zrangebyscoreBuffer(`${p}z`, 0, 10, "LIMIT", 1, 2),
          );
          out.push(
            await redis.zrangebyscoreBuffer(`${p}z`, 0, 10, "WITHSCORES"),
          );
          out.push(
            await redis.zrange(`${p}z`, 0, -1),
            await redis.zcard(`${p}z`),
          );
          out.push(await redis.zrem(`${p}z`, Buffer.from("a")));
          const multi = redis.multi();
          multi.zadd(`${p}m`, 0, "x").zadd(`${p}m`, 0, "y").zcard(`${p}m`);
          out.push(await multi.exec());
          out.push(await redis.pipeline().get(`${p}s`).incr(`${p}n`).exec());
          out.push(await redis.exists(`${p}s`, `${p}none`));
          out.push(await redis.del(`${p}s`, `${p}n`, `${p}z`, `${p}m`));
          return out;
        };
        assert.deepEqual(
          await script(limited, "fqb:limited:"),
          await script(plain, "fqb:plain:"),
        );

        // Pub/sub, as RedisMessageQueue's listener uses it.
        const received = new Promise<string>((resolve) => {
          listener.on("message", (_channel: string, message: string) => {
            resolve(message);
          });
        });
        await listener.subscribe("fqb:limited:channel");
        assert.equal(await limited.publish("fqb:limited:channel", "hi"), 1);
        assert.equal(await received, "hi");

        // The one change: (key, min, max) reads the first match only.
        for (const member of ["m3", "m1", "m2"]) {
          await plain.zadd("fqb:ready", 0, member);
        }
        const all = await plain.zrangebyscoreBuffer("fqb:ready", 0, 10);
        const one = await limited.zrangebyscoreBuffer("fqb:ready", 0, 10);
        assert.deepEqual(all.map(String), ["m1", "m2", "m3"]);
        assert.deepEqual(one.map(String), ["m1"]);
        await plain.del("fqb:ready");
      } finally {
        plain.disconnect();
        limited.disconnect();
        listener.disconnect();
      }
    } finally {
      await services.stopAll();
    }
  },
});

Deno.test({
  name: "redis and redis-limit1 differ only in LIMIT 0 1 on the ready-set read",
  ignore: noRedis,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const services = new ServiceManager();
    const tempDir = await Deno.makeTempDir({ prefix: "fqb-test-" });
    try {
      const { url } = await services.acquire(redisService);
      const watch = await monitor(url);
      const reads = new Map<Driver, Command[]>();
      const others = new Map<Driver, Set<string>>();
      try {
        for (const driver of [redisDriver, redisLimit1Driver]) {
          const runId = driver.name.replace(/\W/g, "");
          const prepared = await driver.prepare!({
            runId,
            tempDir,
            serviceUrl: url,
          });
          try {
            assert.deepEqual(await roundTrip(driver, prepared.config), [
              { hello: "world" },
            ]);
          } finally {
            await prepared.cleanup();
          }
          await watch.caughtUp();
          const mine = onPrefix(watch.commands, `fqb:${runId}:`);
          reads.set(driver, onPrefix(mine, `fqb:${runId}:`, "zrangebyscore"));
          others.set(
            driver,
            new Set(
              mine.filter((c) => c[0] !== "zrangebyscore").map((c) => c[0]),
            ),
          );
        }
      } finally {
        watch.stop();
      }
      const plainReads = reads.get(redisDriver)!;
      const limitedReads = reads.get(redisLimit1Driver)!;
      assert.ok(plainReads.length > 0 && limitedReads.length > 0);
      for (const c of plainReads) {
        assert.deepEqual(c.slice(0, 3), [
          "zrangebyscore",
          "fqb:redis:queue",
          "0",
        ]);
        assert.equal(c.length, 4, c.join(" "));
      }
      for (const c of limitedReads) {
        assert.deepEqual(
          [...c.slice(0, 3), ...c.slice(4)],
          ["zrangebyscore", "fqb:redislimit1:queue", "0", "LIMIT", "0", "1"],
        );
      }
      assert.deepEqual(
        [...others.get(redisLimit1Driver)!].sort(),
        [...others.get(redisDriver)!].sort(),
      );
    } finally {
      await services.stopAll();
      await Deno.remove(tempDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "redis-limit1 delivers exactly once, every read asking for one message",
  ignore: noRedis,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const services = new ServiceManager();
    try {
      const { url } = await services.acquire(redisService);
      const watch = await monitor(url);
      try {
        await assertExactlyOnce(redisLimit1Driver, services);
      } finally {
        watch.stop();
      }
      const reads = onPrefix(watch.commands, "fqb:", "zrangebyscore");
      // The fanout messages and the 24 outbox messages, at least.
      assert.ok(reads.length >= 4 + 4 * 6, `${reads.length} reads`);
      for (const c of reads) {
        assert.deepEqual(c.slice(4), ["LIMIT", "0", "1"], c.join(" "));
      }
    } finally {
      await services.stopAll();
    }
  },
});

Deno.test({
  name:
    "postgres-indexed adds to 1.8.7's table the index on created that 2.x makes, and delivers once",
  ignore: noPostgres,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const services = new ServiceManager();
    const tempDir = await Deno.makeTempDir({ prefix: "fqb-test-" });
    try {
      const { url } = await services.acquire(postgresService);
      const sql = connectPostgres(url);
      const indexes = async (table: string) =>
        (await sql<{ indexname: string; indexdef: string }[]>`
          SELECT indexname, indexdef FROM pg_indexes
          WHERE tablename = ${table} ORDER BY indexname
        `).map((row) => ({ ...row }));
      try {
        const plain = await postgres187Driver.prepare!({
          runId: "plain",
          tempDir,
          serviceUrl: url,
        });
        const indexed = await postgresIndexedDriver.prepare!({
          runId: "indexed",
          tempDir,
          serviceUrl: url,
        });
        try {
          assert.deepEqual(await indexes("fqb_plain"), [{
            indexname: "fqb_plain_pkey",
            indexdef:
              "CREATE UNIQUE INDEX fqb_plain_pkey ON public.fqb_plain " +
              "USING btree (id)",
          }]);
          const name = createdIndexName("fqb_indexed");
          assert.match(name, /^idx_fedify_mq_created_[0-9a-f]{8}$/);
          assert.deepEqual(
            await indexes("fqb_indexed"),
            [
              {
                indexname: "fqb_indexed_pkey",
                indexdef: "CREATE UNIQUE INDEX fqb_indexed_pkey ON " +
                  "public.fqb_indexed USING btree (id)",
              },
              {
                indexname: name,
                indexdef: `CREATE INDEX ${name} ON public.fqb_indexed ` +
                  "USING btree (created)",
              },
            ].sort((a, b) => a.indexname < b.indexname ? -1 : 1),
          );
          assert.deepEqual(
            await roundTrip(postgresIndexedDriver, indexed.config),
            [{ hello: "world" }],
          );
          if (followsSource("follow-source")) {
            // The real 2.x package, from the Fedify source tree, makes the
            // very index the ablation adds by hand.
            const real = await postgresDriver.prepare!({
              runId: "real",
              tempDir,
              serviceUrl: url,
            });
            try {
              const name = createdIndexName("fqb_real");
              assert.ok(
                (await indexes("fqb_real")).some((i) =>
                  i.indexname === name &&
                  i.indexdef === `CREATE INDEX ${name} ON public.fqb_real ` +
                      "USING btree (created)"
                ),
              );
            } finally {
              await real.cleanup();
            }
          }
        } finally {
          await plain.cleanup();
          await indexed.cleanup();
        }
        assert.deepEqual(await indexes("fqb_indexed"), [], "dropped");
      } finally {
        await sql.end();
      }
      await assertExactlyOnce(postgresIndexedDriver, services);
    } finally {
      await services.stopAll();
      await Deno.remove(tempDir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "amqp-confirm gives the queue confirm channels and delivers exactly once",
  ignore: noRabbitmq,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const services = new ServiceManager();
    const tempDir = await Deno.makeTempDir({ prefix: "fqb-test-" });
    try {
      const { url } = await services.acquire(rabbitmqService);
      const connection = await connectAmqp(url);
      try {
        const plain = await connection.createChannel();
        const confirming = await withConfirmChannels(connection)
          .createChannel() as ConfirmChannel;
        // Only a confirm channel can wait for the broker's confirms.
        assert.equal(
          typeof (plain as unknown as Record<string, unknown>)
            .waitForConfirms,
          "undefined",
        );
        assert.equal(typeof confirming.waitForConfirms, "function");
        confirming.sendToQueue("fqb-confirm-probe", Buffer.from("x"));
        await confirming.waitForConfirms();
        await plain.close();
        await confirming.close();
      } finally {
        await connection.close();
      }
      const prepared = await amqpConfirmDriver.prepare!({
        runId: "confirmprobe",
        tempDir,
        serviceUrl: url,
      });
      try {
        assert.deepEqual(
          await roundTrip(amqpConfirmDriver, prepared.config),
          [{ hello: "world" }],
        );
      } finally {
        await prepared.cleanup();
      }
      await assertExactlyOnce(amqpConfirmDriver, services);
    } finally {
      await services.stopAll();
      await Deno.remove(tempDir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "sqlite-poll1s: the same prepared queue as sqlite, delivered exactly once",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // Made by the same factory: the same prepare, closed over the same code.
    assert.equal(
      String(sqlitePoll1sDriver.prepare),
      String(sqliteDriver.prepare),
    );
    assert.equal(sqlitePoll1sDriver.quietPeriodSeconds, 1);
    const services = new ServiceManager();
    try {
      await assertExactlyOnce(sqlitePoll1sDriver, services);
    } finally {
      await services.stopAll();
    }
  },
});

const noMariadb = serversMissing(mariadbService) != null;

Deno.test({
  name:
    "mysql-poll200ms: the same prepared queue as mysql, delivered exactly once",
  ignore: noMariadb,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    assert.equal(mysqlPoll200msDriver.prepare, mysqlDriver.prepare);
    const services = new ServiceManager();
    try {
      await assertExactlyOnce(mysqlPoll200msDriver, services);
    } finally {
      await services.stopAll();
    }
  },
});
