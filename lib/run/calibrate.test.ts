import assert from "node:assert/strict";
import {
  combineCalibrations,
  measureCalibration,
  measureRsaSignsOnThreads,
} from "./calibrate.ts";

Deno.test({
  name: "measureCalibration: positive, finite rates with their spread",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const point = await measureCalibration({ slices: 3, sliceSeconds: 0.2 });
    assert.equal(point.slices, 3);
    assert.equal(point.sliceSeconds, 0.2);
    assert.ok(!isNaN(Date.parse(point.measuredAt)));
    assert.equal(point.threads, navigator.hardwareConcurrency);
    for (
      const rate of [
        "rsaSignsPerSecond",
        "rsaSignsPerSecondAllCores",
        "loopbackRequestsPerSecond",
      ] as const
    ) {
      const value = point[rate]!;
      const { min, max } = point.spread[rate]!;
      assert.ok(Number.isFinite(value) && value > 0, `${rate} = ${value}`);
      assert.ok(min > 0 && min <= value && value <= max, `${rate} spread`);
      assert.ok(Number.isFinite(max), `${rate} max`);
    }
  },
});

Deno.test({
  name: "measureRsaSignsOnThreads: a rate per slice, no thread left behind",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const rates = await measureRsaSignsOnThreads(2, 2, 0.1);
    assert.equal(rates.length, 2);
    assert.ok(rates.every((r) => Number.isFinite(r) && r > 0), `${rates}`);
  },
});

Deno.test("combineCalibrations: median rates, the widest spread", () => {
  const point = (rsa: number, all: number, at: string) => ({
    measuredAt: at,
    slices: 3,
    sliceSeconds: 0.25,
    rsaSignsPerSecond: rsa,
    rsaSignsPerSecondAllCores: all,
    threads: 2,
    loopbackRequestsPerSecond: 1000,
    spread: {
      rsaSignsPerSecond: { min: rsa - 10, max: rsa + 10 },
      rsaSignsPerSecondAllCores: { min: all - 20, max: all + 20 },
      loopbackRequestsPerSecond: { min: 900, max: 1100 },
    },
  });
  const combined = combineCalibrations([
    point(500, 900, "a"),
    point(600, 1100, "b"),
    point(550, 1000, "c"),
  ]);
  assert.equal(combined.measuredAt, "a");
  assert.equal(combined.rsaSignsPerSecond, 550);
  assert.equal(combined.rsaSignsPerSecondAllCores, 1000);
  assert.deepEqual(combined.spread.rsaSignsPerSecond, { min: 490, max: 610 });
  assert.deepEqual(combined.spread.rsaSignsPerSecondAllCores, {
    min: 880,
    max: 1120,
  });
  assert.throws(() => combineCalibrations([]), /no calibrations/);
});

Deno.test("measureCalibration: rejects nonsense sizes", async () => {
  await assert.rejects(measureCalibration({ slices: 0 }), /slices must be/);
  await assert.rejects(
    measureCalibration({ sliceSeconds: -1 }),
    /sliceSeconds must be positive/,
  );
});
