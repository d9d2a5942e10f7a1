/**
 * Redis fetched without a system install, from the distribution's
 * packages, downloaded for real into a cache folder of the test's own,
 * checked, started, and reused; and a fetch that fails.
 */
import assert from "node:assert/strict";
import { type ServerFetcher, ServiceManager } from "../../lib/services/mod.ts";
import { redisService } from "./mod.ts";
import {
  assertFetchedOnce,
  cannotFetch,
  offPath,
  withEmptyCache,
} from "../../lib/testing/fetch_fixtures.ts";

Deno.test({
  name: `${redisService.name} missing from PATH is fetched into the cache ` +
    "once, checked, started from there, and reused by the next bench",
  ignore: cannotFetch(redisService) != null,
  fn: () =>
    assertFetchedOnce(
      redisService,
      /^\d+\.\d+\.\d+$/,
      /^fetched: the distribution's packages .*redis-server /,
    ),
});

Deno.test("a fetch that fails makes its server unavailable with what was tried, and leaves nothing in the cache", async () => {
  await withEmptyCache(async (cache) => {
    const failing: ServerFetcher = {
      what: "a server from nowhere",
      plan: () => ({ folder: "nowhere-1" }),
      fill: () => Promise.reject(new Error("the mirror did not answer")),
      layout: (dir) => ({ binDir: dir }),
      version: ["server", "--version"],
    };
    const def = { ...offPath(redisService), fetcher: failing };
    const manager = new ServiceManager({ onFetch: () => {} });
    const availability = await manager.provision(def);
    assert.equal(availability.available, false);
    if (availability.available) return;
    assert.match(
      availability.reason,
      /^redis-server-fqb-absent not found, and fetching a server from nowhere failed: the mirror did not answer; install it \(apt-get install redis-server\) or set REDIS_URL$/,
    );
    assert.deepEqual([...Deno.readDirSync(`${cache}/servers`)], []);
    await assert.rejects(manager.acquire(def), /the mirror did not answer/);
    await manager.stopAll();
  });
});
