import assert from "node:assert/strict";
import { measureCalibration } from "./calibrate.ts";

Deno.test({
  name: "measureCalibration: positive, finite rates with their spread",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const point = await measureCalibration({ slices: 3, sliceSeconds: 0.2 });
    assert.equal(point.slices, 3);
    assert.equal(point.sliceSeconds, 0.2);
    assert.ok(!isNaN(Date.parse(point.measuredAt)));
    for (
      const rate of ["rsaSignsPerSecond", "loopbackRequestsPerSecond"] as const
    ) {
      const value = point[rate];
      const { min, max } = point.spread[rate];
      assert.ok(Number.isFinite(value) && value > 0, `${rate} = ${value}`);
      assert.ok(min > 0 && min <= value && value <= max, `${rate} spread`);
      assert.ok(Number.isFinite(max), `${rate} max`);
    }
  },
});

Deno.test("measureCalibration: rejects nonsense sizes", async () => {
  await assert.rejects(measureCalibration({ slices: 0 }), /slices must be/);
  await assert.rejects(
    measureCalibration({ sliceSeconds: -1 }),
    /sliceSeconds must be positive/,
  );
});
