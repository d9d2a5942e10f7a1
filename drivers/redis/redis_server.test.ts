/**
 * Redis's throwaway server and its probe: a user-given URL that cannot be
 * reached, a start on a taken port, extra arguments (the persistence
 * modes), crashes in the three persistence modes and what each kept,
 * `kill()`, `restart()` and `stop()` in any order, and the crashes the
 * manager refuses.
 */
import assert from "node:assert/strict";
import { Redis } from "ioredis";
import {
  freePort,
  type ServiceDefinition,
  ServiceManager,
} from "../../lib/services/mod.ts";
import {
  redisAofService,
  redisRdbService,
  redisService,
  startRedis,
} from "./mod.ts";
import {
  isAlive,
  rejectsWithin,
  serversMissing,
  survivors,
  withEnv,
  withRedis,
} from "../../lib/testing/mod.ts";
import { canStart, crashAndCheck } from "../../lib/testing/crash_fixtures.ts";
import { sleep } from "../../lib/system/sleep.ts";

Deno.test("acquire() reports an unusable user-given URL", async () => {
  await withEnv({ REDIS_URL: "redis://:hunter22@127.0.0.1:1" }, async () => {
    const manager = new ServiceManager();
    const error = await rejectsWithin(manager.acquire(redisService), 11_000);
    assert.match(
      error.message,
      /^\$REDIS_URL is not usable: cannot reach Redis at redis:\/\/:\*\*\*@127/,
    );
    assert.match(error.message, /ECONNREFUSED/);
    assert.ok(!error.message.includes("hunter22"));
    assert.deepEqual(manager.startedPids(), []);
    await manager.stopAll();
  });
});

Deno.test({
  name: "startRedis() fails cleanly when the port is taken",
  ignore: serversMissing(redisService) != null,
  async fn() {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    const dir = await Deno.makeTempDir({ prefix: "fqb-test-" });
    try {
      const error = await rejectsWithin(startRedis({ dir, port }), 11_000);
      assert.match(error.message, /^redis-server failed to start: exited/);
      assert.match(error.message, /redis\.log/);
    } finally {
      listener.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "startRedis() passes extra arguments (persistence modes)",
  ignore: serversMissing(redisService) != null,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "fqb-test-" });
    try {
      const server = await startRedis({
        dir,
        port: freePort(),
        extraArgs: ["--appendonly", "yes", "--appendfsync", "always"],
      });
      try {
        const client = new Redis(server.url, { lazyConnect: true });
        try {
          await client.connect();
          assert.deepEqual(await client.config("GET", "appendfsync"), [
            "appendfsync",
            "always",
          ]);
          assert.deepEqual(await client.config("GET", "save"), ["save", ""]);
        } finally {
          await client.quit();
        }
      } finally {
        await server.stop();
        await server.stop(); // Idempotent.
      }
      assert.ok(!isAlive(server.pid));
      assert.match(await Deno.readTextFile(`${dir}/redis.log`), /Ready/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

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
