import assert from "node:assert/strict";
import { bucketWidthMs, buildTimeline, MAX_BUCKETS } from "./timeline.ts";

const START = 1_700_000_000_000;

Deno.test("buildTimeline: nothing arrived is null", () => {
  assert.equal(buildTimeline([], START, []), null);
  assert.equal(buildTimeline([null, null], START, [[START + 5, 3]]), null);
});

Deno.test("bucketWidthMs: nice widths, at most 120 buckets", () => {
  assert.equal(bucketWidthMs(0), 100);
  assert.equal(bucketWidthMs(12_000), 100);
  assert.equal(bucketWidthMs(12_001), 200);
  assert.equal(bucketWidthMs(60_000), 500);
  assert.equal(bucketWidthMs(100_000), 1_000);
  assert.equal(bucketWidthMs(1_500_000), 15_000);
  assert.equal(bucketWidthMs(3_600_000), 30_000);
  assert.equal(bucketWidthMs(10 * 3_600_000), 300_000);
  assert.equal(bucketWidthMs(200 * 86_400_000), 2 * 86_400_000);
  for (let span = 1; span < 1e9; span = Math.ceil(span * 1.37)) {
    const width = bucketWidthMs(span);
    assert.ok(Math.ceil(span / width) <= MAX_BUCKETS, `span ${span}`);
  }
});

Deno.test("buildTimeline: rates, cumulative counts and the last edge", () => {
  const t = buildTimeline(
    [START, START + 50, null, START + 520, START + 1_500],
    START,
    [],
  );
  assert.ok(t != null);
  assert.equal(t.bucketSeconds, 0.1);
  assert.equal(t.deliveries.length, 15);
  assert.deepEqual(t.deliveries[0], [0, 20]);
  assert.deepEqual(t.deliveries[5], [0.5, 10]);
  assert.deepEqual(t.deliveries[14], [1.4, 10], "the last arrival counts");
  assert.deepEqual(t.cumulative[0], [0.1, 2]);
  assert.deepEqual(t.cumulative[4], [0.5, 2]);
  assert.deepEqual(t.cumulative[5], [0.6, 3]);
  assert.deepEqual(t.cumulative[14], [1.5, 4]);
  assert.deepEqual(t.queueDepth, []);
});

Deno.test("buildTimeline: a single arrival at the start", () => {
  const t = buildTimeline([START], START, []);
  assert.deepEqual(t, {
    bucketSeconds: 0.1,
    deliveries: [[0, 10]],
    cumulative: [[0.1, 1]],
    queueDepth: [],
  });
});

Deno.test("buildTimeline: gaps show as empty buckets", () => {
  const arrivals = [
    ...Array.from({ length: 100 }, (_, i) => START + i),
    ...Array.from({ length: 100 }, (_, i) => START + 60_000 + i),
  ];
  const t = buildTimeline(arrivals, START, []);
  assert.ok(t != null);
  assert.equal(t.bucketSeconds, 1);
  assert.equal(t.deliveries.length, 61);
  assert.deepEqual(t.deliveries[0], [0, 100]);
  for (let i = 1; i < 60; i++) assert.deepEqual(t.deliveries[i], [i, 0]);
  assert.deepEqual(t.deliveries[60], [60, 100]);
  assert.deepEqual(t.cumulative[59], [60, 100]);
  assert.deepEqual(t.cumulative[60], [61, 200]);
});

Deno.test("buildTimeline: depth samples after the last arrival extend it", () => {
  const t = buildTimeline(
    [START + 200, START + 900],
    START,
    [[START, 0], [START + 10_000, 5], [START + 30_000, 5]],
  );
  assert.ok(t != null);
  assert.equal(t.bucketSeconds, 0.5);
  assert.equal(t.deliveries.length, 60);
  assert.deepEqual(t.deliveries[0], [0, 2]);
  assert.deepEqual(t.deliveries[1], [0.5, 2]);
  assert.deepEqual(t.deliveries[59], [29.5, 0], "the stall is visible");
  assert.deepEqual(t.cumulative[59], [30, 2]);
  assert.deepEqual(t.queueDepth, [[0, 0], [10, 5], [30, 5]]);
});

Deno.test("buildTimeline: arrivals before the start count at 0", () => {
  const t = buildTimeline([START - 5, START + 100], START, [
    [START - 20, 1],
  ]);
  assert.ok(t != null);
  assert.deepEqual(t.deliveries, [[0, 20]]);
  assert.deepEqual(t.cumulative, [[0.1, 2]]);
  assert.deepEqual(t.queueDepth, [[-0.02, 1]]);
});

Deno.test("buildTimeline: no floating-point noise in times or rates", () => {
  const arrivals = Array.from({ length: 300 }, (_, i) => START + i * 70);
  const t = buildTimeline(arrivals, START, []);
  assert.ok(t != null);
  assert.equal(t.bucketSeconds, 0.2);
  for (const [at, rate] of t.deliveries) {
    assert.equal(at, Math.round(at * 1000) / 1000);
    assert.equal(rate, Math.round(rate * 1000) / 1000);
  }
  assert.deepEqual(t.deliveries[3], [0.6, 15]);
  assert.equal(t.cumulative.at(-1)?.[1], 300);
});

Deno.test("buildTimeline: 5 million arrivals over an hour, in no quadratic time", () => {
  const n = 5_000_000;
  const arrivals: (number | null)[] = new Array(n);
  for (let i = 0; i < n; i++) {
    arrivals[i] = i % 1000 === 0 ? null : START + (i * 7919) % 3_600_000;
  }
  const started = performance.now();
  const t = buildTimeline(arrivals, START, []);
  const took = performance.now() - started;
  assert.ok(t != null);
  assert.equal(t.bucketSeconds, 30);
  assert.equal(t.deliveries.length, 120);
  assert.equal(t.cumulative.at(-1)?.[1], n - n / 1000);
  // A guard against a step quadratic in the arrivals (hours at this size),
  // not a speed claim: a busy machine must not fail it.
  assert.ok(took < 60_000, `took ${took.toFixed(0)} ms`);
});
