/**
 * Stopped rows against finishes of the same configuration in other files:
 * matched by configuration, each estimate's error and bounds against the
 * finish's total.
 */
import assert from "node:assert/strict";
import type { ResultsDocument } from "../results/types.ts";
import { PARAMS, steadyRow } from "../testing/chart_fixtures.ts";
import { stoppedAgainstFinishes } from "./finishes.ts";

function document(
  rows: ResultsDocument["results"],
  total = 500,
): ResultsDocument {
  return {
    schemaVersion: 1,
    startedAt: "2026-01-01T00:00:00.000Z",
    finishedAt: null,
    params: { ...PARAMS, total, recipients: 100 },
    results: rows,
  };
}

// 10 deliveries a second, 50,000 in 5,000 s: stopped at 600 s with the
// estimate its run recorded, and a run of the same row to its end.
const stopped = {
  ...steadyRow("redis", 10, 50_000, 600),
  estimate: {
    totalSeconds: 4_000,
    lowSeconds: 3_000,
    highSeconds: 6_000,
    deliveriesPerSecond: 10,
    settled: true,
    halfRates: [10, 10] as [number, number],
    stoppedBy: "time limit" as const,
    basis: "made up for the test",
  },
};
const finished = steadyRow("redis", 10, 50_000);

Deno.test("a stopped row is checked against a finish of the same row in another file", () => {
  const [check, ...rest] = stoppedAgainstFinishes([
    { path: "stopped.json", document: document([stopped]) },
    { path: "finish.json", document: document([finished]) },
  ]);
  assert.equal(rest.length, 0);
  assert.equal(check.file, "stopped.json");
  assert.equal(check.id, "redis");
  assert.equal(check.delivered, 6_000);
  assert.equal(check.finishFile, "finish.json");
  assert.equal(check.actualSeconds, 5_000);
  // As recorded: 4,000 s, 20 % short, the finish within its bounds.
  assert.ok(check.recorded != null);
  assert.equal(check.recorded.atSeconds, 600);
  assert.ok(Math.abs(check.recorded.error + 0.2) < 1e-9);
  assert.equal(check.recorded.withinBounds, true);
  // Now: the default's rule stops the recording once its rate has settled
  // (at 79 s, as the back-test's replay does), on the true rate.
  assert.ok(check.now != null);
  assert.equal(check.now.atSeconds, 79);
  assert.ok(Math.abs(check.now.error) < 0.02, `${check.now.error}`);
  assert.equal(check.now.withinBounds, true);
});

Deno.test("a finish of another size, or in the same file, is not the same configuration's", () => {
  assert.deepEqual(
    stoppedAgainstFinishes([
      { path: "stopped.json", document: document([stopped]) },
      { path: "finish.json", document: document([finished], 200) },
    ]),
    [],
  );
  assert.deepEqual(
    stoppedAgainstFinishes([
      { path: "both.json", document: document([stopped, finished]) },
    ]),
    [],
  );
});
