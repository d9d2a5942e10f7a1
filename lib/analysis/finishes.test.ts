/**
 * Stopped rows against finishes of the same configuration in other files:
 * matched by configuration, each estimate's error and bounds against the
 * finish's total.
 */
import assert from "node:assert/strict";
import type { ResultsDocument } from "../results/mod.ts";
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

Deno.test("without a finish, a stopped row is checked against the run that got furthest, at a count it made", () => {
  // Cut off at 3,000 s with 30,000 delivered; the last point of its
  // timeline before its end: 29,990 by 2,999 s.
  const further = steadyRow("redis", 10, 50_000, 3_000);
  const shorter = steadyRow("redis", 10, 50_000, 1_000);
  const [check, ...rest] = stoppedAgainstFinishes([
    { path: "stopped.json", document: document([stopped]) },
    { path: "shorter.json", document: document([shorter]) },
    { path: "further.json", document: document([further]) },
  ]);
  assert.equal(check.file, "stopped.json");
  assert.equal(check.finished, false);
  assert.equal(check.finishFile, "further.json");
  assert.equal(check.target, 29_990);
  assert.equal(check.actualSeconds, 2_999);
  // The recorded estimate is of the whole run: not against a count.
  assert.equal(check.recorded, null);
  assert.ok(check.now != null);
  assert.ok(Math.abs(check.now.error) < 0.02, `${check.now.error}`);
  assert.equal(check.now.withinBounds, true);
  // The shorter run is checked against the further one too.
  assert.deepEqual(
    rest.map((r) => [r.file, r.finishFile]),
    [["shorter.json", "further.json"]],
  );
});
