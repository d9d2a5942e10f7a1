import assert from "node:assert/strict";
import type { Percentiles, RunResult, Timeline } from "../results/mod.ts";
import {
  aggregateRuns,
  findOutliers,
  median,
  nearestRank,
  roundTo,
  spreadOf,
} from "./stats.ts";

function latency(p99: number): Percentiles {
  return { p50: p99 / 4, p90: p99 / 2, p99, p999: p99 * 2, max: p99 * 3 };
}

function timeline(tag: number): Timeline {
  return {
    bucketSeconds: 1,
    deliveries: [[0, tag]],
    cumulative: [[1, tag]],
    queueDepth: [],
  };
}

/** An ok run of 100 deliveries taking `total` seconds. */
function okRun(total: number, overrides: Partial<RunResult> = {}): RunResult {
  return {
    status: "ok",
    reason: null,
    expected: 100,
    delivered: 100,
    duplicates: 0,
    missing: 0,
    unexpected: 0,
    sendSeconds: total / 4,
    receiveSeconds: total - 0.5,
    totalSeconds: total,
    deliveriesPerSecond: 100 / total,
    elapsedSeconds: total + 1,
    sendErrors: 0,
    workers: 1,
    stallTimeoutSeconds: 120,
    timeoutSeconds: 600,
    server: { name: "redis", version: "7.0.0", startedByBench: true },
    processes: [{ role: "sender", pid: 1000 + total }],
    latencyMs: latency(total * 100),
    sendCallMs: latency(total),
    cpuMsPerDelivery: total / 10,
    timeline: timeline(total),
    ...overrides,
  };
}

Deno.test("median: odd, even, unsorted; empty throws", () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(median([7]), 7);
  const input = [5, 1, 4];
  median(input);
  assert.deepEqual(input, [5, 1, 4], "input is not sorted in place");
  assert.throws(() => median([]), RangeError);
});

Deno.test("nearestRank: a value of the sample, never a mean of two", () => {
  const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  assert.equal(nearestRank(sorted, 0.5), 5);
  assert.equal(nearestRank(sorted, 0.9), 9);
  assert.equal(nearestRank(sorted, 0.91), 10);
  assert.equal(nearestRank(sorted, 1), 10);
  assert.equal(nearestRank(sorted, 0), 1);
  assert.equal(nearestRank([7], 0.5), 7);
  assert.throws(() => nearestRank([], 0.5), RangeError);
});

Deno.test("spreadOf: min and max; empty throws", () => {
  assert.deepEqual(spreadOf([3, -1, 2]), { min: -1, max: 3 });
  assert.deepEqual(spreadOf([4]), { min: 4, max: 4 });
  assert.throws(() => spreadOf([]), RangeError);
});

Deno.test("findOutliers: modified Z-score", () => {
  assert.deepEqual(findOutliers([]), []);
  assert.deepEqual(findOutliers([1, 100]), [], "fewer than 3 values");
  assert.deepEqual(findOutliers([10, 11, 10.5, 10.2, 30]), [4]);
  assert.deepEqual(findOutliers([10, 11, 10.5, 10.2, 10.8]), []);
  assert.deepEqual(findOutliers([1, 50, 52, 51, 49]), [0]);
  // Modified Z of 12 vs median 10, MAD 0.5: 0.6745 * 2 / 0.5 = 2.7, not > 3.5.
  assert.deepEqual(findOutliers([9.5, 10, 10.5, 12]), []);
});

Deno.test("findOutliers: zero MAD uses 25% relative deviation", () => {
  assert.deepEqual(findOutliers([10, 10, 10]), []);
  assert.deepEqual(findOutliers([10, 10, 10, 12]), [], "20% is not enough");
  assert.deepEqual(findOutliers([10, 10, 10, 13]), [3]);
  assert.deepEqual(findOutliers([10, 7, 10, 10]), [1]);
  assert.deepEqual(findOutliers([0, 0, 0, 1]), [3], "median 0");
});

Deno.test("aggregateRuns: no runs throws", () => {
  assert.throws(() => aggregateRuns("x", "x", 1, []), RangeError);
});

Deno.test("aggregateRuns: a single run is itself", () => {
  const run = okRun(10);
  assert.deepEqual(aggregateRuns("redis-x4", "redis", 4, [run]), {
    id: "redis-x4",
    driver: "redis",
    parallelism: 4,
    ...run,
    runs: [run],
    spread: {},
    outliers: [],
  });
  const failed: RunResult = {
    ...okRun(10),
    status: "failed",
    reason: "worker crashed",
    receiveSeconds: null,
    totalSeconds: null,
  };
  const result = aggregateRuns("x", "x", 1, [failed]);
  assert.equal(result.reason, "worker crashed", "no run prefix");
  assert.equal(result.status, "failed");
});

Deno.test("aggregateRuns: all ok takes medians", () => {
  const runs = [
    okRun(12, { delivered: 100, duplicates: 1 }),
    okRun(10, { delivered: 100, duplicates: 2 }),
    okRun(11, { delivered: 100, duplicates: 4, cpuMsPerDelivery: null }),
  ];
  const r = aggregateRuns("redis", "redis", 1, runs);
  assert.equal(r.status, "ok");
  assert.equal(r.reason, null);
  assert.equal(r.totalSeconds, 11);
  assert.equal(r.sendSeconds, 11 / 4);
  assert.equal(r.receiveSeconds, 10.5);
  assert.equal(r.deliveriesPerSecond, 100 / 11);
  assert.equal(r.elapsedSeconds, 12);
  assert.equal(r.cpuMsPerDelivery, 1.1, "median over the runs that have it");
  assert.equal(r.duplicates, 2);
  assert.deepEqual(r.latencyMs, latency(1100));
  assert.deepEqual(r.sendCallMs, latency(11));
  // The median run by totalSeconds provides the per-run records.
  assert.deepEqual(r.timeline, timeline(11));
  assert.deepEqual(r.processes, [{ role: "sender", pid: 1011 }]);
  assert.deepEqual(r.runs, runs);
  assert.notEqual(r.runs, runs, "runs copied");
  assert.deepEqual(r.spread, {
    sendSeconds: { min: 2.5, max: 3 },
    receiveSeconds: { min: 9.5, max: 11.5 },
    totalSeconds: { min: 10, max: 12 },
    deliveriesPerSecond: { min: 100 / 12, max: 10 },
    elapsedSeconds: { min: 11, max: 13 },
    cpuMsPerDelivery: { min: 1, max: 1.2 },
    latencyP99Ms: { min: 1000, max: 1200 },
  });
  assert.deepEqual(r.outliers, []);
});

Deno.test("aggregateRuns: several runs keep the app's runtime and the median run's sign rate", () => {
  const runtime = { name: "node", version: "26.10.0" } as const;
  const sign = (rate: number) => ({
    runtime,
    rsaSignsPerSecond: rate,
    spread: { min: rate, max: rate },
    slices: 3,
  });
  const runs = [
    okRun(12, { runtime, appSignRate: sign(2500) }),
    okRun(10, { runtime, appSignRate: sign(2600) }),
    okRun(11, { runtime, appSignRate: sign(2700) }),
  ];
  const r = aggregateRuns("redis-node", "redis", 1, runs);
  assert.deepEqual(r.runtime, runtime, "the label's 'on node' needs it");
  assert.deepEqual(r.appSignRate, sign(2700), "the median run's, by total");
});

Deno.test("aggregateRuns: even count rounds median counts", () => {
  const r = aggregateRuns("x", "x", 1, [
    okRun(10, { duplicates: 1 }),
    okRun(20, { duplicates: 2 }),
  ]);
  assert.equal(r.duplicates, 2, "median 1.5 rounds to 2");
  assert.equal(r.totalSeconds, 15);
  // Lower median run by totalSeconds.
  assert.deepEqual(r.timeline, timeline(10));
});

Deno.test("aggregateRuns: per-key latency medians skip runs without", () => {
  const r = aggregateRuns("x", "x", 1, [
    okRun(10, { latencyMs: null }),
    okRun(11, { latencyMs: undefined }),
    okRun(12),
  ]);
  assert.deepEqual(r.latencyMs, latency(1200));
  assert.equal(r.spread?.latencyP99Ms, undefined, "only one run has it");
  const none = aggregateRuns("x", "x", 1, [
    okRun(10, { sendCallMs: null }),
    okRun(11, { sendCallMs: null }),
  ]);
  assert.equal(none.sendCallMs, null);
});

Deno.test("aggregateRuns: a failed run makes the result failed", () => {
  const failed = okRun(30, {
    status: "failed",
    reason: "sender crashed",
    delivered: 40,
    missing: 60,
    sendSeconds: null,
    receiveSeconds: null,
    totalSeconds: null,
    deliveriesPerSecond: null,
    elapsedSeconds: 30,
    workers: 2,
  });
  const incomplete = okRun(20, {
    status: "incomplete",
    reason: "timed out",
    delivered: 80,
    missing: 20,
    receiveSeconds: null,
    totalSeconds: null,
    deliveriesPerSecond: 4,
  });
  const runs = [okRun(10), incomplete, failed];
  const r = aggregateRuns("x", "x", 1, runs);
  assert.equal(r.status, "failed");
  assert.equal(r.reason, "run 2: timed out", "first non-null reason");
  assert.equal(r.delivered, 40, "counts of the worst run");
  assert.equal(r.missing, 60);
  assert.equal(r.receiveSeconds, null);
  assert.equal(r.totalSeconds, null);
  assert.equal(r.deliveriesPerSecond, null);
  assert.equal(r.elapsedSeconds, 30);
  assert.equal(r.sendSeconds, null);
  assert.equal(r.workers, 2, "records of the worst run");
  assert.deepEqual(r.timeline, timeline(30));
  assert.deepEqual(r.spread, {}, "one ok run has no spread");
  assert.deepEqual(r.outliers, []);
});

Deno.test("aggregateRuns: incomplete wins over ok and skipped", () => {
  const incomplete = okRun(20, {
    status: "incomplete",
    reason: "stalled",
    delivered: 80,
    missing: 20,
    receiveSeconds: null,
    totalSeconds: null,
    deliveriesPerSecond: 4,
    elapsedSeconds: 20,
  });
  const r = aggregateRuns("x", "x", 1, [okRun(10), okRun(11), incomplete]);
  assert.equal(r.status, "incomplete");
  assert.equal(r.reason, "run 3: stalled");
  assert.equal(r.delivered, 80);
  assert.equal(r.receiveSeconds, null, "never a time when not all ok");
  assert.equal(r.totalSeconds, null);
  assert.equal(r.deliveriesPerSecond, 4, "the rate so far of the worst run");
  assert.equal(r.elapsedSeconds, 20);
  assert.deepEqual(r.spread?.totalSeconds, { min: 10, max: 11 });
  const skipped = okRun(0, { status: "skipped", reason: "no server" });
  const s = aggregateRuns("x", "x", 1, [okRun(10), skipped]);
  assert.equal(s.status, "skipped");
  assert.equal(s.reason, "run 2: no server");
});

Deno.test("aggregateRuns: outliers among the ok runs", () => {
  const runs = [
    okRun(10),
    okRun(10.2),
    okRun(9.9),
    okRun(10.1),
    okRun(25),
  ];
  const r = aggregateRuns("x", "x", 1, runs);
  assert.equal(r.totalSeconds, 10.1);
  assert.deepEqual(
    r.outliers?.map((o) => [o.run, o.metric, o.value, o.median]),
    [
      [4, "totalSeconds", 25, 10.1],
      [4, "sendSeconds", 6.25, 10.1 / 4],
      [4, "deliveriesPerSecond", 4, 100 / 10.1],
    ],
  );
});

Deno.test("roundTo rounds to the given decimal places", () => {
  assert.equal(roundTo(0.30000000000000004, 2), 0.3);
  assert.equal(roundTo(1.23456, 3), 1.235);
});

Deno.test("aggregateRuns: order violations are the median count over the runs", () => {
  const ordering = (violations: number | null) => ({
    key: "none" as const,
    supported: false,
    note: "ignores keys",
    violations,
  });
  const runs = [
    okRun(12, { ordering: ordering(5) }),
    okRun(10, { ordering: ordering(1) }),
    okRun(11, { ordering: ordering(9) }),
  ];
  assert.deepEqual(aggregateRuns("x", "x", 1, runs).ordering, ordering(5));
  runs[1] = okRun(10, { ordering: ordering(null) });
  assert.equal(aggregateRuns("x", "x", 1, runs).ordering?.violations, null);
  assert.equal(
    aggregateRuns("x", "x", 1, [okRun(1), okRun(2)]).ordering,
    undefined,
  );
});

Deno.test("aggregateRuns: depth and delayed come from the median run", () => {
  const depth = (max: number) => ({
    supported: true,
    samples: 10,
    maxAbsError: max,
    meanAbsError: 0,
    peakTrueDepth: 5,
  });
  const delayed = (peak: number) => ({
    inboxDeadRate: 0.1,
    deadRecipients: 1,
    deadAttempts: 5,
    peakDelayedBacklog: peak,
    meanDelayedBacklog: 1,
    delayedSource: "bench" as const,
    peakDelayedBacklogBench: peak,
    healthyDeliveriesPerSecond: 1,
    healthyLatencyMs: null,
    series: [],
  });
  const r = aggregateRuns("x", "x", 1, [
    okRun(30, { depth: depth(3), delayed: delayed(30) }),
    okRun(10, { depth: depth(1), delayed: delayed(10) }),
    okRun(20, { depth: depth(2), delayed: delayed(20) }),
  ]);
  assert.equal(r.depth?.maxAbsError, 2);
  assert.equal(r.delayed?.peakDelayedBacklog, 20);
});
