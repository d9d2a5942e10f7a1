import assert from "node:assert/strict";
import { MaxRateSearch, probePassed, roundRate } from "./max_rate.ts";
import type { RunResult } from "../results/types.ts";

/** Runs a search against a configuration that sustains up to `capacity`. */
function search(
  capacity: number,
  start = 2,
  ceiling = Infinity,
  maxProbes = 50,
): { probes: number[]; search: MaxRateSearch } {
  const s = new MaxRateSearch({ startRate: start, ceiling });
  const probes: number[] = [];
  for (let rate = s.next(); rate != null; rate = s.next()) {
    probes.push(rate);
    s.record(rate, rate <= capacity);
    if (probes.length >= maxProbes) break;
  }
  return { probes, search: s };
}

Deno.test("doubles while probes pass, then bisects to within 20%", () => {
  const { probes, search: s } = search(21);
  assert.deepEqual(probes.slice(0, 5), [2, 4, 8, 16, 32]);
  assert.ok(s.best! <= 21 && s.lowestFailed! > 21);
  assert.ok(s.lowestFailed! <= s.best! * 1.2, `${probes}`);
  assert.ok(s.best! >= 21 / 1.2);
  assert.equal(s.stoppedBy(false), "bracketed");
  assert.ok(probes.length <= 9, `${probes}`);
});

Deno.test("halves when the first probe fails, down to an eighth", () => {
  const { probes, search: s } = search(0.6);
  assert.deepEqual(probes.slice(0, 3), [2, 1, 0.5]);
  assert.ok(s.best! >= 0.5 && s.best! <= 0.6);
  const none = search(0.01);
  assert.deepEqual(none.probes, [2, 1, 0.5, 0.25]);
  assert.equal(none.search.best, null);
  assert.equal(none.search.stoppedBy(false), "lowest-failed");
});

Deno.test("stops at the generator's ceiling", () => {
  const { probes, search: s } = search(1000, 2, 50);
  assert.deepEqual(probes, [2, 4, 8, 16, 32, 50]);
  assert.equal(s.best, 50);
  assert.equal(s.stoppedBy(false), "generator");
  assert.equal(s.stoppedBy(true), "time-box");
});

Deno.test("rates are rounded to two significant digits", () => {
  assert.equal(roundRate(11.3137), 11);
  assert.equal(roundRate(0.35355), 0.35);
  assert.equal(roundRate(2.6), 2.6);
  assert.equal(roundRate(181.02), 180);
});

Deno.test("a probe passes only if it finished, kept up and met the bound", () => {
  const run = {
    status: "ok",
    missing: 0,
    latencyMs: { p50: 100, p90: 200, p99: 900, p999: 1000, max: 1000 },
    load: { verdict: "kept-up" },
  } as unknown as RunResult;
  assert.ok(probePassed(run, 1000));
  assert.ok(!probePassed(run, 800));
  assert.ok(
    !probePassed(
      { ...run, load: { ...run.load!, verdict: "fell-behind" } },
      1000,
    ),
  );
  assert.ok(!probePassed({ ...run, status: "incomplete", missing: 3 }, 1000));
});
