import assert from "node:assert/strict";
import {
  driftOf,
  formatRatio,
  readCalibration,
  renderCalibration,
  shiftBetween,
  shiftOf,
  suiteRate,
} from "./calibration.ts";
import { renderEnvironment } from "./environment.ts";
import type { Calibration } from "../results/types.ts";
import { calibration, ENVIRONMENT } from "../testing/comparison_fixtures.ts";

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
  assert.equal(formatRatio(up.ratio), "+20.0%");
  assert.equal(formatRatio(0.75), "-25.0%");
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

Deno.test("renderCalibration: start, end, and a warning on drift", () => {
  const steady = renderCalibration(calibration(600, 9000));
  assert.match(
    steady,
    /^- \*\*Calibration\*\* \(median of 3 slices of 0\.5 s, min–max in parentheses/,
  );
  assert.match(
    steady,
    / {2}- start \(2026-01-01T00:00:00\.000Z\): RSA-2048 signatures 600\/s \(588–612\); loopback POSTs 9,000\/s \(8,820–9,180\)/,
  );
  assert.doesNotMatch(steady, /Warning/);
  const running = renderCalibration({ ...calibration(600, 9000), end: null });
  assert.match(running, / {2}- end: not measured/);
  const drifted = renderCalibration({
    start: calibration(600, 9000).start,
    end: calibration(450, 9000).start,
  });
  assert.match(
    drifted,
    /> \*\*Warning\*\*: the machine's speed changed during the suite .*\(RSA-2048 signatures 600\/s \(588–612\) → 450\/s \(441–459\), -25\.0%\)/,
  );
});

Deno.test("renderEnvironment shows the calibration in the Machine section", () => {
  const env = ENVIRONMENT;
  assert.doesNotMatch(renderEnvironment(env), /Calibration/);
  const text = renderEnvironment({
    ...env,
    calibration: calibration(600, 9000),
  });
  assert.match(text, /Architecture\*\*: x86_64\n- \*\*Calibration\*\*/);
  assert.match(text, /loopback POSTs 9,000\/s \(8,820–9,180\)\n\n### Software/);
});
