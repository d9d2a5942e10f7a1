import assert from "node:assert/strict";
import {
  driftOf,
  readCalibration,
  rowDrift,
  shiftBetween,
  shiftOf,
  suiteRate,
} from "./calibration_drift.ts";

import type { Calibration } from "./environment_record.ts";
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

Deno.test("rowDrift: each rate against the rows' median; rows beyond 10% named", () => {
  const point = (one: number, all?: number) => ({
    measuredAt: "2026-01-01T00:00:00.000Z",
    slices: 3,
    sliceSeconds: 0.25,
    rsaSignsPerSecond: one,
    ...(all == null ? {} : { rsaSignsPerSecondAllCores: all, threads: 4 }),
    loopbackRequestsPerSecond: 8000,
    spread: {
      rsaSignsPerSecond: { min: one, max: one },
      loopbackRequestsPerSecond: { min: 8000, max: 8000 },
    },
  });
  const drifts = rowDrift([
    { id: "a", calibration: point(500, 2000) },
    { id: "b", calibration: point(600, 2000) },
    { id: "c", calibration: point(610, 1000) },
    { id: "d", calibration: point(620) },
    { id: "resumed" },
  ]);
  const [one, all] = drifts;
  assert.equal(one.rate, "rsaSignsPerSecond");
  assert.equal(one.threads, 1);
  assert.equal(one.median, 605);
  assert.equal(one.rows.length, 4);
  assert.ok(Math.abs(one.range - 120 / 605) < 1e-9);
  assert.deepEqual(one.affected.map((r) => r.id), ["a"]);
  // The all-cores rate covers the rows that have it.
  assert.equal(all.rate, "rsaSignsPerSecondAllCores");
  assert.equal(all.threads, 4);
  assert.equal(all.median, 2000);
  assert.deepEqual(all.affected.map((r) => [r.id, r.ratio]), [["c", 0.5]]);
  assert.deepEqual(rowDrift([{ id: "a", calibration: point(500) }]), []);
});
