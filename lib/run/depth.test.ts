/**
 * `--sample-depth` end to end: small runs through real Fedify whose
 * `getDepth()` error is known: 0 for Fedify's in-process queue and for an
 * exact test queue, at most 5 (and above 0) for a queue that says 5 more,
 * and `supported: false` for a queue without `getDepth()`.
 */
import assert from "node:assert/strict";
import { inProcessDriver } from "../../drivers/in_process/in_process.ts";
import { loadDrivers } from "../../drivers/mod.ts";
import { runSuite } from "./suite.ts";
import { assertExactAccounting, smallSuiteParams } from "../testing/runs.ts";

const known = new URL("../testing/depth_drivers.ts", import.meta.url).href;

Deno.test({
  name: "--sample-depth reports getDepth()'s error against the bench's count",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const tests = await loadDrivers([known]);
    const pick = (name: string) => tests.find((d) => d.name === name)!;
    const { params, results } = await runSuite({
      params: smallSuiteParams({ total: 6, sampleDepth: true }),
      drivers: [
        inProcessDriver,
        pick("test-depth-exact"),
        pick("test-depth-plus5"),
        pick("test-depth-none"),
      ],
      parallel: [1],
      driverModules: [known],
    });
    assert.equal(params.sampleDepth, true);
    const [inProcess, exact, plusFive, none] = results;
    for (const r of results) assertExactAccounting(r, 36);
    for (const r of [inProcess, exact]) {
      assert.equal(r.depth?.supported, true, r.id);
      assert.ok((r.depth?.samples ?? 0) > 0, `${r.id}: no samples`);
      assert.equal(r.depth?.maxAbsError, 0, r.id);
      assert.equal(r.depth?.meanAbsError, 0, r.id);
    }
    const d = plusFive.depth!;
    assert.equal(d.supported, true);
    assert.ok(d.samples! > 0);
    // 5 wherever the truth was one number; less while it moved.
    assert.ok(d.maxAbsError! <= 5 && d.maxAbsError! > 0, `${d.maxAbsError}`);
    assert.ok(d.meanAbsError! > 0 && d.meanAbsError! <= 5);
    assert.deepEqual(none.depth, { supported: false });
  },
});
