import assert from "node:assert/strict";
import {
  driftOf,
  readCalibration,
  shiftBetween,
  shiftOf,
  suiteRate,
} from "./calibration.ts";
import type { Calibration } from "./types.ts";
import { calibration } from "../testing/comparison_fixtures.ts";

Deno.test("shiftOf: beyond noise only when the ranges do not overlap", () => {
  const a = { value: 100, min: 95, max: 105 };
  assert.equal(
    shiftOf("rsaSignsPerSecond", a, { value: 110, min: 105, max: 112 })
      .beyondNoise,
    false,
  );
  const up = shiftOf("rsaSignsPerSecond", a, {
    value: 120,
    min: 110,
    max: 130,
  });
  assert.equal(up.beyondNoise, true);
  assert.equal(up.ratio, 1.2);
});

Deno.test("suiteRate: the mean of start and end, over both ranges", () => {
  const c: Calibration = {
    start: calibration(600, 9000).start,
    end: calibration(500, 10000).start,
  };
  assert.deepEqual(suiteRate(c, "rsaSignsPerSecond"), {
    value: 550,
    min: 490,
    max: 612,
  });
  assert.deepEqual(
    suiteRate({ ...c, end: null }, "loopbackRequestsPerSecond"),
    { value: 9000, min: 8820, max: 9180 },
  );
  const [rsa, loopback] = driftOf(c)!;
  assert.equal(rsa.beyondNoise, true);
  assert.equal(loopback.beyondNoise, true);
  assert.equal(driftOf({ ...c, end: null }), null);
  const between = shiftBetween(calibration(600, 9000), c);
  assert.equal(between[0].beyondNoise, false, "the drift widened the range");
});

Deno.test("readCalibration: malformed or absent is unknown", () => {
  const good = calibration(600, 9000);
  assert.deepEqual(readCalibration({ calibration: good }), good);
  assert.deepEqual(
    readCalibration({ calibration: { start: good.start } }),
    { start: good.start, end: null },
  );
  assert.equal(readCalibration(undefined), null);
  assert.equal(readCalibration({}), null);
  assert.equal(
    readCalibration({
      calibration: { start: { ...good.start, rsaSignsPerSecond: 0 } },
    }),
    null,
  );
  assert.equal(
    readCalibration({
      calibration: { start: good.start, end: { spread: {} } },
    }),
    null,
  );
});
