/**
 * The three Redis persistence modes (`redis`, `redis-rdb`, `redis-aof`) end
 * to end on throwaway servers started in each mode, and the `CONFIG SET` /
 * restore path they take on a user's server (`REDIS_URL`).
 */
import assert from "node:assert/strict";
import { serversMissing } from "../../lib/testing/servers.ts";
import type { ConfigurationResult } from "../../lib/results/mod.ts";
import { freePort, ServiceManager } from "../../lib/services/mod.ts";
import { REDIS_PERSISTENCE, startRedis } from "./mod.ts";
import { runSuite } from "../../lib/run/suite.ts";
import {
  assertExactAccounting,
  smallSuiteParams,
  survivors,
  withEnv,
  withRedis,
} from "../../lib/testing/mod.ts";
import { redisAofDriver, redisDriver, redisRdbDriver } from "./redis.ts";

const drivers = [redisDriver, redisRdbDriver, redisAofDriver] as const;
const modes = ["none", "rdb", "aof"] as const;
const SETTINGS = ["save", "appendonly", "appendfsync"] as const;

const noRedis = serversMissing(redisDriver.service!) != null;
const userRedis = Deno.env.get("REDIS_URL") != null;

const params = smallSuiteParams();

/** The persistence settings of the server at `url`. */
function settings(url: string): Promise<Record<string, string>> {
  return withRedis(url, async (redis) => {
    const result: Record<string, string> = {};
    for (const name of SETTINGS) {
      const [, value] = await redis.config("GET", name) as string[];
      result[name] = value;
    }
    return result;
  });
}

/** Asserts exact accounting for the three drivers' results. */
function assertDelivered(results: readonly ConfigurationResult[]): void {
  assert.deepEqual(results.map((r) => r.id), drivers.map((d) => d.name));
  for (const r of results) assertExactAccounting(r, 4 * 6);
}

Deno.test("the three redis drivers say which persistence mode they use", () => {
  assert.deepEqual(drivers.map((d) => d.name), [
    "redis",
    "redis-rdb",
    "redis-aof",
  ]);
  assert.match(
    redisDriver.description,
    /no persistence on a throwaway server; a REDIS_URL server as configured \(save "", appendonly no\)$/,
  );
  assert.match(
    redisRdbDriver.description,
    /RDB snapshots \(save "1 1000 10 1", appendonly no\)$/,
  );
  assert.match(
    redisAofDriver.description,
    /AOF fsynced on every write \(save "", appendonly yes, appendfsync always\)$/,
  );
  assert.deepEqual(
    drivers.map((d) => [d.service?.name, d.service?.urlEnv]),
    [
      ["redis", "REDIS_URL"],
      ["redis-rdb", "REDIS_URL"],
      ["redis-aof", "REDIS_URL"],
    ],
  );
});

Deno.test({
  name: "redis, redis-rdb, redis-aof deliver exactly once on their own servers",
  ignore: noRedis || userRedis,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const services = new ServiceManager();
    const pids: number[] = [];
    try {
      const document = await runSuite({
        params,
        drivers,
        parallel: [1],
        services,
      });
      assertDelivered(document.results);
      const serverPids = new Set<number>();
      for (const [i, r] of document.results.entries()) {
        pids.push(...r.processes.map((p) => p.pid));
        assert.equal(r.server?.name, drivers[i].service?.name, r.id);
        assert.equal(r.server?.startedByBench, true, r.id);
        const server = r.processes.find((p) => p.role === "server");
        assert.ok(server != null, r.id);
        serverPids.add(server.pid);
      }
      assert.equal(serverPids.size, 3, "one throwaway server per mode");
      for (const [i, driver] of drivers.entries()) {
        const { url } = await services.acquire(driver.service!);
        // Started in its mode, so prepare() had nothing to change.
        assert.deepEqual(await settings(url), {
          appendfsync: "everysec",
          ...REDIS_PERSISTENCE[modes[i]],
        }, driver.name);
        assert.equal(
          await withRedis(url, (redis) => redis.dbsize()),
          0,
          `${driver.name}: no key left after cleanup`,
        );
      }
    } finally {
      await services.stopAll();
    }
    assert.deepEqual(await survivors(pids), [], "no process outlives it");
  },
});

Deno.test({
  name: "on a REDIS_URL server, prepare() sets the mode and cleanup() restores",
  ignore: noRedis,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "fqb-test-" });
    const original = {
      save: "900 7 30 5",
      appendonly: "yes",
      appendfsync: "everysec",
    };
    const server = await startRedis({
      dir,
      port: freePort(),
      extraArgs: Object.entries(original).flatMap(([k, v]) => [`--${k}`, v]),
    });
    try {
      assert.deepEqual(await settings(server.url), original);
      await withEnv({ REDIS_URL: server.url }, async () => {
        // One prepare() at a time: the mode is set while the run lasts.
        for (const [i, driver] of drivers.entries()) {
          const prepared = await driver.prepare!({
            runId: `t${i}`,
            tempDir: dir,
            serviceUrl: server.url,
          });
          // Plain `redis` uses a user's server as configured; the others
          // switch it to their mode.
          assert.deepEqual(
            await settings(server.url),
            driver === redisDriver
              ? original
              : { ...original, ...REDIS_PERSISTENCE[modes[i]] },
            driver.name,
          );
          await withRedis(server.url, (redis) => redis.set(`fqb:t${i}:x`, 1));
          await prepared.cleanup();
          assert.deepEqual(await settings(server.url), original, driver.name);
        }

        // The whole round trip, on the user's server.
        const services = new ServiceManager();
        const pids: number[] = [];
        try {
          const document = await runSuite({
            params,
            drivers,
            parallel: [1],
            services,
          });
          assertDelivered(document.results);
          for (const r of document.results) {
            pids.push(...r.processes.map((p) => p.pid));
            assert.equal(r.server?.startedByBench, false, r.id);
            assert.ok(!r.processes.some((p) => p.role === "server"), r.id);
          }
          assert.deepEqual(services.startedPids(), [], "none started");
        } finally {
          await services.stopAll();
        }
        assert.deepEqual(await survivors(pids), []);
      });
      assert.deepEqual(await settings(server.url), original);
      assert.equal(await withRedis(server.url, (r) => r.dbsize()), 0);
    } finally {
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "prepare() fails clearly when the server does not allow CONFIG",
  ignore: noRedis,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "fqb-test-" });
    const server = await startRedis({ dir, port: freePort() });
    try {
      const before = await settings(server.url);
      await withRedis(server.url, async (redis) => {
        await redis.call(
          "ACL",
          "SETUSER",
          "bench",
          "on",
          ">s3cret-pw",
          "~*",
          "&*",
          "+@all",
          "-config",
        );
      });
      const url = server.url.replace("redis://", "redis://bench:s3cret-pw@");
      // Plain `redis` never needs CONFIG on a user's server.
      const plain = await redisDriver.prepare!({
        runId: "plain",
        tempDir: dir,
        serviceUrl: url,
      });
      await plain.cleanup();
      for (const driver of [redisRdbDriver, redisAofDriver]) {
        const error = await driver.prepare!({
          runId: "denied",
          tempDir: dir,
          serviceUrl: url,
        }).then(() => assert.fail("expected a rejection"), (e: Error) => e);
        assert.match(
          error.message,
          new RegExp(
            `^${driver.name}: cannot read the persistence settings of Redis ` +
              "at redis://bench:\\*\\*\\*@127\\.0\\.0\\.1:\\d+: " +
              "CONFIG GET failed \\(NOPERM",
          ),
        );
        assert.match(error.message, /does not allow CONFIG/);
        assert.match(error.message, /unset REDIS_URL/);
        assert.ok(!error.message.includes("s3cret-pw"));
      }
      assert.deepEqual(await settings(server.url), before);
    } finally {
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
