import assert from "node:assert/strict";
import {
  ABOVE_ACHIEVED,
  BELOW_ACHIEVED,
  GROWTH,
  MaxRateSearch,
  probeKeptUp,
  RESOLUTION,
  roundInside,
  roundRate,
} from "./max_rate.ts";
import type { RunResult } from "../results/mod.ts";

/**
 * Runs a search against a model queue that keeps up with rates up to
 * `capacity` and, pushed past it, achieves `achieved(rate)` (its capacity
 * by default).
 */
function search(
  capacity: number,
  options: {
    start?: number;
    ceiling?: number;
    achieved?: (rate: number) => number | null;
  } = {},
): { probes: number[]; search: MaxRateSearch } {
  const s = new MaxRateSearch({
    startRate: options.start ?? 2,
    ceiling: options.ceiling ?? Infinity,
  });
  const achieved = options.achieved ?? (() => capacity);
  const probes: number[] = [];
  for (let rate = s.next(); rate != null; rate = s.next()) {
    probes.push(rate);
    const keptUp = rate <= capacity;
    s.record(rate, keptUp, keptUp ? rate : achieved(rate));
    assert.ok(probes.length < 50, `no end: ${probes}`);
  }
  return { probes, search: s };
}

/** Asserts the search bracketed `capacity` within the resolution. */
function assertResolved(s: MaxRateSearch, capacity: number, probes: number[]) {
  assert.equal(s.stoppedBy(false), "bracketed", `${probes}`);
  assert.ok(s.best! <= capacity && s.lowestFailed! > capacity, `${probes}`);
  assert.ok(s.resolution! <= RESOLUTION, `${s.resolution}: ${probes}`);
  assert.ok(s.best! >= capacity / (1 + RESOLUTION), `${probes}`);
}

Deno.test("ramps up by four, then closes on what the failed probe achieved", () => {
  const { probes, search: s } = search(21);
  assert.deepEqual(probes.slice(0, 3), [2, 8, 32]);
  // 32 failed achieving 21: 4% above it (21.9) fails achieving 21 again,
  // 95% of it (20) keeps up.
  assert.deepEqual(probes.slice(3), [21.9, 20]);
  assertResolved(s, 21, probes);
  assert.equal(s.resolution, 0.095);
  assert.equal(GROWTH, 4);
  assert.ok(ABOVE_ACHIEVED / BELOW_ACHIEVED - 1 <= RESOLUTION);
});

Deno.test("resolves any capacity to within 10% from what probes achieve", () => {
  for (const capacity of [0.7, 3, 5, 17, 23, 34.6, 100, 450]) {
    const { probes, search: s } = search(capacity);
    assertResolved(s, capacity, probes);
    assert.ok(probes.length <= 7, `${capacity}: ${probes}`);
  }
});

Deno.test("resolves by bisection when a queue past capacity achieves little", () => {
  // Like a queue whose dequeue slows with its backlog: 1/s once overrun.
  for (const capacity of [3, 17, 23, 100]) {
    const { probes, search: s } = search(capacity, { achieved: () => 1 });
    assertResolved(s, capacity, probes);
    assert.ok(probes.length <= 10, `${capacity}: ${probes}`);
  }
  // and when it achieves nothing at all (nothing arrived in the probe).
  const { probes, search: s } = search(40, { achieved: () => null });
  assertResolved(s, 40, probes);
});

Deno.test("goes down from a failing first rate, to an eighth of it", () => {
  const { probes, search: s } = search(0.6, { start: 2 });
  assert.equal(probes[0], 2);
  assertResolved(s, 0.6, probes);
  const none = search(0.01, { achieved: () => 0 });
  assert.deepEqual(none.probes, [2, 1, 0.5, 0.25]);
  assert.equal(none.search.best, null);
  assert.equal(none.search.resolution, null);
  assert.equal(none.search.stoppedBy(false), "lowest-failed");
});

Deno.test("stops at the generator's ceiling, with no bracket", () => {
  const { probes, search: s } = search(1000, { ceiling: 50 });
  assert.deepEqual(probes, [2, 8, 32, 50]);
  assert.equal(s.best, 50);
  assert.equal(s.resolution, null);
  assert.equal(s.stoppedBy(false), "generator");
  assert.equal(s.stoppedBy(true), "time-box");
});

Deno.test("rates are rounded, as few digits as keep them inside a bracket", () => {
  assert.equal(roundRate(11.3137), 11);
  assert.equal(roundRate(0.35355), 0.35);
  assert.equal(roundRate(181.02), 180);
  assert.equal(roundInside(17.52, 16, 19), 18);
  assert.equal(roundInside(17.52, 17.4, 18), 17.5);
  assert.equal(roundInside(5, 5, 6), null);
  assert.equal(roundInside(19.09, 18, 21, "up"), 19.1);
  assert.equal(roundInside(19.091, 19.09, 19.1, "up"), 19.091);
});

Deno.test("a probe keeps up when it finished and kept up, whatever its latency", () => {
  const run = {
    status: "ok",
    missing: 0,
    latencyMs: { p50: 100, p90: 200, p99: 9000, p999: 9000, max: 9000 },
    load: { verdict: "kept-up" },
  } as unknown as RunResult;
  assert.ok(probeKeptUp(run));
  assert.ok(
    !probeKeptUp({ ...run, load: { ...run.load!, verdict: "fell-behind" } }),
  );
  assert.ok(!probeKeptUp({ ...run, status: "incomplete", missing: 3 }));
});
