/**
 * Crashing throwaway servers: `kill()` (SIGKILL to the whole process tree,
 * as a power cut would) and `restart()` on the same data folder, through
 * `ServiceManager.crash()`, against real Redis (three persistence modes),
 * PostgreSQL, MariaDB and RabbitMQ; what each kept; and that no process or
 * folder outlives the manager.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { connect as amqpConnect } from "amqplib";
import mysql from "mysql2/promise";
import postgres from "postgres";
import {
  descendants,
  exists,
  isAlive,
  outliveCrash,
  queueExists,
  survivors,
  withRedis,
} from "../testing/mod.ts";
import { freePort, type ServiceDefinition, ServiceManager } from "./mod.ts";
import { rabbitmqService } from "../../drivers/amqp/mod.ts";
import { mariadbService } from "../../drivers/mysql/mod.ts";
import { postgresService } from "../../drivers/postgres/mod.ts";
import {
  redisAofService,
  redisRdbService,
  redisService,
  startRedis,
} from "../../drivers/redis/mod.ts";
import { sleep } from "../system/sleep.ts";

/** Whether a throwaway server of this kind can be started here. */
function canStart(def: ServiceDefinition): boolean {
  return Deno.env.get(def.urlEnv) == null &&
    new ServiceManager().availability(def).available;
}

/**
 * Starts a throwaway server through a manager, lets `write` put data in,
 * crashes it, checks the new process and the old tree, lets `check` say what
 * survived, then stops everything and checks that nothing is left.
 */
async function crashAndCheck(
  label: string,
  def: ServiceDefinition,
  write: (url: string, manager: ServiceManager) => Promise<void>,
  check: (url: string, dir: string) => Promise<void>,
): Promise<void> {
  const manager = new ServiceManager();
  try {
    const first = await manager.acquire(def);
    assert.ok(first.pid != null && isAlive(first.pid));
    await write(first.url, manager);
    // `write` may have crashed it already, to set up (outliveCrash).
    const { url, pid } = await manager.acquire(def);
    assert.equal(url, first.url);
    assert.ok(pid != null && isAlive(pid));
    const oldTree = [pid, ...descendants(pid)];
    const started = performance.now();
    const { restartedPid } = await manager.crash(def);
    const ms = performance.now() - started;
    console.log(`${label}: kill+restart took ${ms.toFixed(0)} ms`);

    assert.notEqual(restartedPid, pid);
    assert.deepEqual(await survivors(oldTree, 0), [], "old tree gone at once");
    assert.ok(isAlive(restartedPid));
    const again = await manager.acquire(def);
    assert.equal(again.pid, restartedPid, "acquire() returns the new pid");
    assert.equal(again.url, url, "same port");
    assert.deepEqual(manager.startedPids(), [restartedPid]);

    const dirs = manager.tempDirs();
    assert.equal(dirs.length, 1);
    await check(url, dirs[0]);

    const newTree = [restartedPid, ...descendants(restartedPid)];
    await manager.stopAll();
    assert.deepEqual(await survivors(newTree), [], "no process outlives it");
    for (const dir of dirs) assert.ok(!(await exists(dir)), dir);
    assert.deepEqual(manager.startedPids(), []);
  } finally {
    await manager.stopAll();
  }
}

Deno.test({
  name: "crash(): Redis without persistence comes back empty",
  ignore: !canStart(redisService),
  async fn() {
    await crashAndCheck("redis (none)", redisService, async (url) => {
      await withRedis(url, (redis) => redis.set("fqb:key", "value"));
    }, async (url) => {
      await withRedis(url, async (redis) => {
        assert.equal(await redis.get("fqb:key"), null);
        assert.equal(await redis.dbsize(), 0);
      });
    });
  },
});

Deno.test({
  name: "crash(): Redis AOF (fsync always) keeps every acknowledged write",
  ignore: !canStart(redisAofService),
  async fn() {
    await crashAndCheck("redis-aof", redisAofService, async (url) => {
      await withRedis(url, async (redis) => {
        assert.deepEqual(await redis.config("GET", "appendfsync"), [
          "appendfsync",
          "always",
        ]);
        await redis.set("fqb:key", "value");
        // Acknowledged just before the kill.  (A SIGKILL, unlike a power
        // cut, spares what reached the kernel, so this shows that Redis
        // wrote the AOF before replying; it cannot tell fsync policies
        // apart.)
        await redis.set("fqb:last", "written just before the crash");
      });
    }, async (url, dir) => {
      const log = await Deno.readTextFile(`${dir}/redis.log`);
      assert.match(log, /DB loaded from append only file/);
      await withRedis(url, async (redis) => {
        assert.equal(await redis.get("fqb:key"), "value");
        assert.equal(
          await redis.get("fqb:last"),
          "written just before the crash",
        );
      });
    });
  },
});

Deno.test({
  name: "crash(): Redis RDB keeps the last snapshot, loses later writes",
  ignore: !canStart(redisRdbService),
  async fn() {
    const keys = 1500;
    await crashAndCheck("redis-rdb", redisRdbService, async (url) => {
      await withRedis(url, async (redis) => {
        assert.deepEqual(await redis.config("GET", "save"), [
          "save",
          "1 1000 10 1",
        ]);
        const pipeline = redis.pipeline();
        for (let i = 0; i < keys; i++) pipeline.set(`fqb:key:${i}`, i);
        await pipeline.exec();
        // "1 1000": a snapshot about a second after 1,000 writes; wait for
        // it to finish (a loaded machine forks and writes more slowly).
        let info = "";
        const deadline = Date.now() + 20_000;
        do {
          await sleep(200);
          info = await redis.info("persistence");
        } while (
          !/rdb_changes_since_last_save:0\r?\n/.test(info) &&
          Date.now() < deadline
        );
        assert.match(info, /rdb_changes_since_last_save:0\r?\n/);
        assert.match(info, /rdb_bgsave_in_progress:0/);
        assert.match(info, /rdb_last_bgsave_status:ok/);
        // Written after the snapshot, and fewer than 10 s before the kill.
        await redis.set("fqb:late", "after the snapshot");
      });
    }, async (url, dir) => {
      const log = await Deno.readTextFile(`${dir}/redis.log`);
      assert.match(log, /DB loaded from disk/);
      await withRedis(url, async (redis) => {
        assert.equal(await redis.dbsize(), keys);
        assert.equal(await redis.get(`fqb:key:${keys - 1}`), `${keys - 1}`);
        assert.equal(await redis.get("fqb:late"), null);
      });
    });
  },
});

Deno.test({
  name: "crash(): PostgreSQL keeps committed rows, drops uncommitted ones",
  ignore: !canStart(postgresService),
  async fn() {
    let open: postgres.Sql | undefined;
    try {
      await crashAndCheck("postgres", postgresService, async (url) => {
        const sql = postgres(url, { max: 1, onnotice: () => {} });
        try {
          await sql`create table t (id int primary key, body text)`;
          await sql`insert into t values (1, 'committed')`;
        } finally {
          await sql.end();
        }
        // A transaction left open across the crash.
        open = postgres(url, { max: 1, onnotice: () => {} });
        const reserved = await open.reserve();
        await reserved`begin`;
        await reserved`insert into t values (2, 'uncommitted')`;
      }, async (url, dir) => {
        const log = await Deno.readTextFile(`${dir}/postgres.log`);
        assert.match(log, /not properly shut down; automatic recovery/);
        const sql = postgres(url, { max: 1, onnotice: () => {} });
        try {
          const rows = await sql`select id, body from t order by id`;
          assert.deepEqual(rows.map((r) => [r.id, r.body]), [
            [1, "committed"],
          ]);
        } finally {
          await sql.end();
        }
      });
    } finally {
      await open?.end({ timeout: 0 }).catch(() => {});
    }
  },
});

Deno.test({
  name: "crash(): MariaDB keeps committed rows, drops uncommitted ones",
  ignore: !canStart(mariadbService),
  async fn() {
    let open: mysql.Connection | undefined;
    try {
      await crashAndCheck("mariadb", mariadbService, async (url) => {
        const connection = await mysql.createConnection(url);
        try {
          await connection.query(
            "CREATE TABLE t (id INT PRIMARY KEY, body TEXT) ENGINE=InnoDB",
          );
          await connection.query("INSERT INTO t VALUES (1, 'committed')");
        } finally {
          await connection.end();
        }
        // A transaction left open across the crash.
        open = await mysql.createConnection(url);
        open.on("error", () => {});
        await open.beginTransaction();
        await open.query("INSERT INTO t VALUES (2, 'uncommitted')");
      }, async (url) => {
        const connection = await mysql.createConnection(url);
        try {
          const [rows] = await connection.query(
            "SELECT id, body FROM t ORDER BY id",
          );
          assert.deepEqual(
            (rows as { id: number; body: string }[]).map((r) => [r.id, r.body]),
            [[1, "committed"]],
          );
        } finally {
          await connection.end();
        }
      });
    } finally {
      open?.destroy();
    }
  },
});

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

Deno.test({
  name: "stop() works after kill() alone and after kill() + restart()",
  ignore: !canStart(redisService),
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "fqb-test-" });
    try {
      const server = await startRedis({ dir, port: freePort() });
      const first = server.pid;
      await server.kill!();
      assert.ok(!isAlive(first));
      await server.kill!(); // Nothing left to kill.
      await server.restart!();
      const second = server.pid;
      assert.notEqual(second, first);
      assert.ok(isAlive(second));
      await server.restart!(); // Running: stopped gracefully, started again.
      assert.ok(!isAlive(second));
      const third = server.pid;
      await server.kill!();
      await server.stop(); // After a kill without restart.
      await server.stop();
      assert.ok(!isAlive(third));
      await assert.rejects(server.restart!(), /was stopped; it cannot restart/);

      const other = await startRedis({ dir, port: freePort() });
      await other.kill!();
      await other.restart!();
      const restarted = other.pid;
      await other.stop(); // After a kill and a restart.
      assert.deepEqual(await survivors([restarted], 0), []);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("crash() refuses user-given servers and servers it cannot crash", async () => {
  const saved = Deno.env.get("REDIS_URL");
  Deno.env.set("REDIS_URL", "redis://127.0.0.1:1");
  try {
    await assert.rejects(
      new ServiceManager().crash(redisService),
      {
        message: "--crash-server-at needs a server the bench starts itself; " +
          "unset $REDIS_URL",
      },
    );
  } finally {
    if (saved == null) Deno.env.delete("REDIS_URL");
    else Deno.env.set("REDIS_URL", saved);
  }
  if (!canStart(redisService)) return;
  const manager = new ServiceManager();
  try {
    await assert.rejects(
      manager.crash(redisService),
      /no throwaway redis server to crash; acquire it first/,
    );
    const unkillable: ServiceDefinition = {
      ...redisService,
      name: "unkillable",
      start: async (options) => {
        const { url, pid, stop } = await redisService.start(options);
        return { url, pid, stop };
      },
    };
    await manager.acquire(unkillable);
    await assert.rejects(
      manager.crash(unkillable),
      /the unkillable server cannot be crashed/,
    );
  } finally {
    await manager.stopAll();
  }
});
