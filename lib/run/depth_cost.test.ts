/**
 * `getDepth()`'s call time at given backlogs, on Fedify's in-process queue
 * (no server), and a driver without `getDepth()` said to have none; and
 * `--delayed`, whose delayed messages wait beside the timed ready ones.
 */
import assert from "node:assert/strict";
import { inProcessDriver } from "../../drivers/in_process/in_process.ts";
import { redis187Driver } from "../../drivers/redis/redis.ts";
import { ServiceManager } from "../services/mod.ts";
import { measureDepthCost } from "./depth_cost.ts";
import { measurePoint } from "./dequeue_point.ts";
import { loadDrivers } from "../../drivers/mod.ts";

const known = new URL("../testing/depth_drivers.ts", import.meta.url).href;

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
    // A driver without getDepth() (@fedify/redis 1.8.7) needs no server
    // and no queue.
    assert.deepEqual(
      await measureDepthCost(redis187Driver, [0], 1024, services, signal),
      { driver: "redis-1.8.7", supported: false },
    );
  } finally {
    await services.stopAll();
  }
});

Deno.test("--delayed: a delayed backlog stays in the queue while ready ones are timed", async () => {
  const exact = (await loadDrivers([known])).find((d) =>
    d.name === "test-depth-exact"
  )!;
  const services = new ServiceManager();
  const signal = new AbortController().signal;
  const params = {
    drivers: [exact.name],
    backlogs: [50],
    dequeues: 20,
    warmup: 2,
    messageBytes: 1024,
    stepTimeoutSeconds: 10,
    projectionBacklog: 1000,
    project: [],
    delayed: 30,
  };
  try {
    const point = await measurePoint(exact, 50, params, services, signal);
    assert.equal(point.status, "ok", String(point.reason));
    assert.equal(point.dequeued, 20);
    const cost = await measureDepthCost(
      exact,
      [0, 10],
      1024,
      services,
      signal,
      30,
    );
    assert.deepEqual(Object.keys(cost.callMs!).sort(), ["0", "10"]);
  } finally {
    await services.stopAll();
  }
});
