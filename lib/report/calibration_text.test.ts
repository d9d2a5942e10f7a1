import assert from "node:assert/strict";
import { formatRatio, renderCalibration } from "./calibration_text.ts";
import { calibration } from "../testing/comparison_fixtures.ts";

Deno.test("formatRatio: a signed percentage change", () => {
  assert.equal(formatRatio(1.2), "+20.0%");
  assert.equal(formatRatio(0.75), "-25.0%");
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
  // A drift is not proof of a neighbour: a virtual host's speed moves too.
  assert.match(
    drifted,
    /Either something else was using this host or its own speed changed .*check what else ran \(`ps`\)/,
  );
  assert.doesNotMatch(drifted, /Something else was using this host/);
});

Deno.test("renderCalibration: the all-cores rate when recorded", () => {
  const { start } = calibration(600, 9000);
  const point = {
    ...start,
    rsaSignsPerSecondAllCores: 1100,
    threads: 2,
    spread: {
      ...start.spread,
      rsaSignsPerSecondAllCores: { min: 1050, max: 1150 },
    },
  };
  assert.match(
    renderCalibration({ start: point, end: null }),
    /; RSA-2048 signatures on 2 threads 1,100\/s \(1,050–1,150\)/,
  );
});
