/**
 * Two backends' throwaway servers side by side, in the tests that take
 * both at once: Redis's and PostgreSQL's probes of unreachable and silent
 * servers, and one manager starting, sharing and stopping a Redis and a
 * PostgreSQL (each backend's own tests are in its folder).
 */
import assert from "node:assert/strict";
import { Redis } from "ioredis";
import postgres from "postgres";
import { ServiceManager } from "../lib/services/mod.ts";
import { postgresService, probePostgres } from "./postgres/mod.ts";
import { probeRedis, redisService } from "./redis/mod.ts";
import {
  descendants,
  exists,
  isAlive,
  rejectsWithin,
  serversMissing,
  SERVICE_ENVS,
  withEnv,
  withSilentServer,
} from "../lib/testing/mod.ts";

Deno.test("probes of unreachable servers fail fast without secrets", async () => {
  const redisError = await rejectsWithin(
    probeRedis("redis://:secret@127.0.0.1:1", 2000),
    2500,
  );
  assert.match(redisError.message, /^cannot reach Redis at redis:\/\/:\*\*\*@/);
  assert.match(redisError.message, /ECONNREFUSED/);
  assert.ok(!redisError.message.includes("secret"));

  const pgError = await rejectsWithin(
    probePostgres("postgres://u:secret@127.0.0.1:1/x", 2000),
    2500,
  );
  assert.match(
    pgError.message,
    /^cannot reach PostgreSQL at postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/x/,
  );
  assert.match(pgError.message, /ECONNREFUSED/);
  assert.ok(!pgError.message.includes("secret"));
});

Deno.test("probes of silent servers give up at the timeout", async () => {
  // Accepts connections and never answers.
  await withSilentServer(async (port) => {
    const redisError = await rejectsWithin(
      probeRedis(`redis://:secret@127.0.0.1:${port}`, 700),
      1500,
    );
    assert.match(redisError.message, /^cannot reach Redis/);
    assert.ok(!redisError.message.includes("secret"));
    const pgError = await rejectsWithin(
      probePostgres(`postgres://u:secret@127.0.0.1:${port}/x`, 700),
      1500,
    );
    assert.match(pgError.message, /^cannot reach PostgreSQL/);
    assert.ok(!pgError.message.includes("secret"));
  });
});

Deno.test({
  name: "ServiceManager starts, shares and stops throwaway servers",
  ignore: serversMissing(redisService) != null ||
    serversMissing(postgresService) != null,
  async fn() {
    await withEnv(SERVICE_ENVS, async () => {
      const manager = new ServiceManager();
      try {
        const availability = manager.availability(redisService);
        assert.ok(availability.available);
        assert.match(availability.note ?? "", /throwaway redis-server/);
        const [redis, redisAgain, pg] = await Promise.all([
          manager.acquire(redisService),
          manager.acquire(redisService),
          manager.acquire(postgresService),
        ]);
        assert.equal(redisAgain, redis, "concurrent acquires share a server");
        assert.equal(await manager.acquire(redisService), redis);
        for (const service of [redis, pg]) {
          assert.ok(service.startedByBench);
          assert.ok(service.version.length > 0);
          assert.ok(service.pid != null && isAlive(service.pid));
        }
        assert.match(redis.url, /^redis:\/\/127\.0\.0\.1:\d+$/);
        assert.match(
          pg.url,
          /^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/,
        );
        assert.match(pg.version, /^\d+/);
        assert.deepEqual(
          manager.startedPids().sort(),
          [redis.pid!, pg.pid!].sort(),
        );
        const dirs = manager.tempDirs();
        assert.equal(dirs.length, 2);
        for (const dir of dirs) assert.ok(await exists(dir));

        const client = new Redis(redis.url, { lazyConnect: true });
        try {
          await client.connect();
          await client.set("fqb:test", "hello");
          assert.equal(await client.get("fqb:test"), "hello");
        } finally {
          await client.quit();
        }

        const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
        try {
          await sql`create table t (id int primary key, body text)`;
          await sql`insert into t values (1, 'hello'), (2, 'world')`;
          const rows = await sql`select body from t order by id`;
          assert.deepEqual(rows.map((row) => row.body), ["hello", "world"]);
        } finally {
          await sql.end();
        }

        const postmasterChildren = descendants(pg.pid!);
        assert.ok(postmasterChildren.length > 0);

        await manager.stopAll();
        for (const pid of [redis.pid!, pg.pid!, ...postmasterChildren]) {
          assert.ok(!isAlive(pid), `process ${pid} is still alive`);
          assert.throws(() => Deno.kill(pid, "SIGCONT"));
        }
        for (const dir of dirs) assert.ok(!(await exists(dir)), dir);
        assert.deepEqual(manager.startedPids(), []);
        assert.deepEqual(manager.tempDirs(), []);
        await manager.stopAll(); // Idempotent.
      } finally {
        await manager.stopAll();
      }
    });
  },
});
