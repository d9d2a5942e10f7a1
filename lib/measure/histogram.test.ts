import assert from "node:assert/strict";
import { LatencyHistogram, percentiles } from "./histogram.ts";

/** Nearest-rank percentile of sorted values. */
function exact(sorted: readonly number[], percentile: number): number {
  const rank = Math.max(1, Math.ceil(percentile / 100 * sorted.length - 1e-9));
  return sorted[rank - 1];
}

function assertClose(actual: number, expected: number, relative: number) {
  assert.ok(
    Math.abs(actual - expected) <= relative * Math.abs(expected) + 0.001,
    `${actual} is not within ${relative * 100}% of ${expected}`,
  );
}

Deno.test("percentiles: no values is null", () => {
  assert.equal(percentiles([]), null);
  assert.equal(percentiles((function* () {})()), null);
  assert.equal(new LatencyHistogram().percentiles(), null);
  assert.equal(new LatencyHistogram().count, 0);
});

Deno.test("percentiles: a single value is every percentile, max exact", () => {
  const p = percentiles([12.3456789]);
  assert.deepEqual(p, {
    p50: 12.3456789,
    p90: 12.3456789,
    p99: 12.3456789,
    p999: 12.3456789,
    max: 12.3456789,
  });
});

Deno.test("percentiles: negative values count as 0", () => {
  assert.deepEqual(percentiles([-5, -0.001]), {
    p50: 0,
    p90: 0,
    p99: 0,
    p999: 0,
    max: 0,
  });
  const p = percentiles([-3, 10, 10, 10]);
  assert.equal(p?.max, 10);
  assert.equal(p?.p50, 10);
});

Deno.test("percentiles: non-finite values are rejected", () => {
  assert.throws(() => percentiles([1, NaN]), RangeError);
  assert.throws(() => percentiles([Infinity]), RangeError);
});

Deno.test("percentiles: within 0.1% of the exact ones", () => {
  // mulberry32, for reproducible data.
  let seed = 42;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  // A long-tailed mix: milliseconds to tens of minutes.
  const values = Array.from(
    { length: 100_000 },
    () => Math.exp(random() * 14) * (0.5 + random()),
  );
  const p = percentiles(values);
  assert.ok(p != null);
  const sorted = [...values].sort((a, b) => a - b);
  assertClose(p.p50, exact(sorted, 50), 0.001);
  assertClose(p.p90, exact(sorted, 90), 0.001);
  assertClose(p.p99, exact(sorted, 99), 0.001);
  assertClose(p.p999, exact(sorted, 99.9), 0.001);
  assert.equal(p.max, sorted[sorted.length - 1]);
  assert.ok(p.p50 <= p.p90 && p.p90 <= p.p99 && p.p99 <= p.p999);
  assert.ok(p.p999 <= p.max);
});

Deno.test("percentiles: uniform 1..10000 ms", () => {
  const values = Array.from({ length: 10_000 }, (_, i) => i + 1);
  const p = percentiles(values);
  assert.ok(p != null);
  assertClose(p.p50, 5000, 0.001);
  assertClose(p.p90, 9000, 0.001);
  assertClose(p.p99, 9900, 0.001);
  assertClose(p.p999, 9990, 0.001);
  assert.equal(p.max, 10_000);
});

Deno.test("percentiles: sub-millisecond values keep microseconds", () => {
  const p = percentiles([0.001, 0.002, 0.25, 0.5]);
  assert.ok(p != null);
  assert.equal(p.p50, 0.002);
  assert.equal(p.max, 0.5);
});

Deno.test("percentiles: hours-long values", () => {
  const p = percentiles([1, 3_600_000, 7_200_000.5]);
  assert.ok(p != null);
  assert.equal(p.max, 7_200_000.5);
  assertClose(p.p50, 3_600_000, 0.001);
});

Deno.test("LatencyHistogram: add merges, record counts", () => {
  const a = new LatencyHistogram();
  const b = new LatencyHistogram();
  const all = new LatencyHistogram();
  for (let i = 1; i <= 1000; i++) {
    (i % 2 === 0 ? a : b).record(i);
    all.record(i);
  }
  assert.equal(a.count, 500);
  a.add(b);
  a.add(new LatencyHistogram());
  assert.equal(a.count, 1000);
  assert.deepEqual(a.percentiles(), all.percentiles());
  assert.equal(a.percentiles()?.max, 1000);
  const empty = new LatencyHistogram();
  empty.add(all);
  assert.deepEqual(empty.percentiles(), all.percentiles());
});

Deno.test("percentiles: 5 million values in no quadratic time", () => {
  const values = new Float64Array(5_000_000);
  for (let i = 0; i < values.length; i++) {
    values[i] = (i * 7919) % 600_000 / 10;
  }
  const started = performance.now();
  const p = percentiles(values);
  const took = performance.now() - started;
  assert.ok(p != null);
  assert.equal(p.max, 59_999.9);
  // A guard against a step quadratic in the values (hours at this size),
  // not a speed claim: a busy machine must not fail it.
  assert.ok(took < 60_000, `took ${took.toFixed(0)} ms`);
});
