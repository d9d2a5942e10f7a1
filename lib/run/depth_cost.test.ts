/**
 * `getDepth()`'s call time at given backlogs, on Fedify's in-process queue
 * (no server), and a driver without `getDepth()` said to have none.
 */
import assert from "node:assert/strict";
import { inProcessDriver } from "../../drivers/in_process.ts";
import { redisDriver } from "../../drivers/redis.ts";
import { ServiceManager } from "../services/mod.ts";
import { measureDepthCost } from "./depth_cost.ts";

Deno.test("getDepth() is timed at each backlog, or said to be missing", async () => {
  const services = new ServiceManager();
  const signal = new AbortController().signal;
  try {
    const cost = await measureDepthCost(
      inProcessDriver,
      [1000, 0, 100],
      1024,
      services,
      signal,
    );
    assert.equal(cost.driver, "in-process");
    assert.equal(cost.supported, true);
    assert.equal(cost.reason, undefined);
    assert.deepEqual(Object.keys(cost.callMs!).sort(), ["0", "100", "1000"]);
    for (const ms of Object.values(cost.callMs!)) assert.ok(ms >= 0);
    // A driver without getDepth() needs no server and no queue.
    assert.deepEqual(
      await measureDepthCost(redisDriver, [0], 1024, services, signal),
      { driver: "redis", supported: false },
    );
  } finally {
    await services.stopAll();
  }
});
