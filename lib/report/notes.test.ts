/**
 * The report's notes on a row's deployment: what the delay proxies added
 * and their round trips per delivery, a flag that does not apply, and a
 * user's server left where it runs.
 */
import assert from "node:assert/strict";
import type { ProxyTraffic } from "../results/mod.ts";
import { result } from "../testing/chart_fixtures.ts";
import { configurationLabel } from "./label.ts";
import { deploymentNotes, rowNotes } from "./notes.ts";

const traffic = (median: number, p99: number): ProxyTraffic => ({
  connections: 2,
  turns: 40,
  chunks: 90,
  bytesUp: 1_000,
  bytesDown: 2_000,
  addedDelayMs: { median, p99 },
  busiestChunksPerSecond: 1_250,
});

Deno.test("a --queue-rtt row's note says what each proxy added and the round trips per delivery", () => {
  const row = result("redis", 4, "ok", {
    id: "redis-x4-rtt5",
    deployment: { cpus: 1, queueRttMs: 5, workerHosts: null },
    proxy: {
      oneWayMs: 2.5,
      sender: traffic(2.504, 2.9),
      workers: traffic(2.51, 3.456),
    },
    roundTripsPerDelivery: { enqueue: 0.333, dequeue: 2.1 },
  });
  assert.deepEqual(deploymentNotes(row), [
    "- **redis ×4 1 cpu rtt 5 ms**: the delay proxies added, one way, for " +
    "2.5 ms asked: sender 2.5 ms (p99 2.9 ms, busiest 1,250 chunks/s); " +
    "workers 2.51 ms (p99 3.46 ms, busiest 1,250 chunks/s); round trips " +
    "per delivery: enqueue 0.33, dequeue 2.1",
  ]);
  assert.ok(rowNotes(row).includes(deploymentNotes(row)[0]));
});

Deno.test("a row the flag does not apply to says why; a user's server left unpinned says so", () => {
  const sqlite = result("sqlite", 1, "ok", {
    deployment: {
      cpus: null,
      queueRttMs: null,
      workerHosts: null,
      notApplied: { queueRttMs: "sqlite has no queue server" },
    },
  });
  assert.deepEqual(deploymentNotes(sqlite), [
    "- **sqlite**: --queue-rtt does not apply: sqlite has no queue server",
  ]);
  const inProcess = result("in-process", 1, "ok", {
    deployment: {
      cpus: null,
      queueRttMs: null,
      workerHosts: null,
      notApplied: { workerHosts: "its queue is not shared" },
    },
  });
  assert.deepEqual(deploymentNotes(inProcess), [
    "- **in-process**: --worker-hosts does not apply: its queue is not shared",
  ]);
  const hosts = result("redis", 1, "ok", {
    deployment: { cpus: null, queueRttMs: 2, workerHosts: 2 },
  });
  assert.equal(configurationLabel(hosts), "redis rtt 2 ms 2 hosts");
  assert.deepEqual(deploymentNotes(hosts), []);
  const fewer = result("redis", 1, "ok", {
    deployment: {
      cpus: null,
      queueRttMs: null,
      workerHosts: 3,
      hostAddresses: ["10.231.0.2"],
    },
  });
  assert.deepEqual(deploymentNotes(fewer), [
    "- **redis 3 hosts**: --worker-hosts 3: 1 host made, one per worker " +
    "process",
  ]);
  const userServer = result("redis", 1, "ok", {
    server: { name: "redis", version: "7.0.15", startedByBench: false },
    deployment: {
      cpus: 1,
      queueRttMs: null,
      workerHosts: null,
      pinning: {
        app: "0",
        others: "1",
        server: null,
        serverNote: "the user's own server ($REDIS_URL) is left where it runs",
      },
    },
  });
  assert.deepEqual(deploymentNotes(userServer), [
    "- **redis 1 cpu**: --cpus: the user's own server ($REDIS_URL) is left " +
    "where it runs",
  ]);
  assert.deepEqual(deploymentNotes(result("redis", 1, "ok")), []);
});
