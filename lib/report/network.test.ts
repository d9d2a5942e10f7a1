/**
 * The "Queue server across the network" section: the prediction from a
 * configuration at 0 ms, and the table beside what was measured.
 */
import assert from "node:assert/strict";
import type { ConfigurationResult } from "../results/mod.ts";
import { result } from "../testing/chart_fixtures.ts";
import { doc } from "../testing/comparison_fixtures.ts";
import { networkSection, predictRates } from "./network.ts";

function row(
  parallelism: number,
  rttMs: number,
  deliveriesPerSecond: number,
  dequeue: number,
): ConfigurationResult {
  const id = `redis${parallelism > 1 ? `-x${parallelism}` : ""}-rtt${rttMs}`;
  const traffic = {
    connections: 2,
    turns: 100,
    chunks: 400,
    bytesUp: 1000,
    bytesDown: 1000,
    addedDelayMs: { median: rttMs / 2 + 0.1, p99: rttMs / 2 + 0.4 },
    busiestChunksPerSecond: 900,
  };
  return {
    ...result("redis", parallelism, "ok"),
    id,
    deliveriesPerSecond,
    deployment: { cpus: null, queueRttMs: rttMs, workerHosts: null },
    proxy: { oneWayMs: rttMs / 2, sender: traffic, workers: traffic },
    roundTripsPerDelivery: { enqueue: 0.05, dequeue },
  };
}

Deno.test("predictRates: each round trip added to a delivery's time, in series or per slot", () => {
  // 100/s is 10 ms a delivery; 2 round trips of 5 ms add 10 ms.
  const x1 = predictRates(row(1, 0, 100, 2), 5)!;
  assert.equal(x1.serial, 50);
  assert.equal(x1.overlapped, 50, "one slot: nothing to overlap");
  const x4 = predictRates(row(4, 0, 100, 2), 5)!;
  assert.equal(x4.serial, 50);
  assert.equal(x4.overlapped, 1 / (0.01 + 0.01 / 4));
  assert.equal(
    predictRates({ ...row(1, 0, 100, 2), roundTripsPerDelivery: undefined }, 5),
    null,
    "no round trips counted, no prediction",
  );
});

Deno.test("networkSection: every proxied row with its round trips, and the prediction from its 0 ms row", () => {
  const text = networkSection(doc([
    row(1, 0, 100, 2),
    row(1, 5, 55, 2.1),
    row(4, 0, 200, 2),
    row(4, 5, 180, 2),
    { ...result("in-process", 1, "ok"), id: "in-process" },
  ]));
  assert.match(text, /^## Queue server across the network/);
  const lines = text.split("\n").filter((l) => l.startsWith("| redis"));
  assert.equal(lines.length, 4, "the in-process row went through no proxy");
  assert.match(
    lines[0],
    /\| 0\.05 \| 2\.00 \| 0\.10 \/ 0\.40 ms \| 900 \| 100\.0\/s \| — \| — \| — \| — \|$/,
  );
  assert.match(
    lines[1],
    /\| 55\.0\/s \| 50\.0\/s \| 50\.0\/s \| 1\.10× \| 1\.10× \|$/,
  );
  assert.match(
    lines[3],
    /\| 180\.0\/s \| 66\.7\/s \| 133\.3\/s \| 2\.70× \| 1\.35× \|$/,
  );
  assert.equal(networkSection(doc([result("redis", 1, "ok")])), "");
});
