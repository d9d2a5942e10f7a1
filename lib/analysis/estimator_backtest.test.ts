import assert from "node:assert/strict";
import type { ConfigurationResult, ResultsDocument } from "../results/mod.ts";
import {
  PARAMS,
  result,
  steadyRow as steady,
} from "../testing/chart_fixtures.ts";
import { REST_HIGH, REST_LOW } from "../measure/estimate.ts";
import { DEFAULT_TIMEOUT_SECONDS } from "../params/mod.ts";
import { builtinDrivers } from "../../drivers/mod.ts";
import {
  backTest,
  checkBounds,
  defaultLimitsOf,
  dequeueCostOf,
  filledAtAt,
  filledAtOf,
  overheadPerRow,
  projectionTest,
  RECORDED_BACKLOG_DRIVERS,
  recordedFanouts,
  simulateRow,
  simulateSuite,
} from "./estimator_backtest.ts";

Deno.test("a constant row back-tests exactly at every cut", () => {
  const row = steady("postgres", 100, 20_000);
  const cases = backTest("x.json", [row], {
    budgetSeconds: 120,
    timeoutSeconds: 600,
  });
  assert.deepEqual(cases.map((c) => c.cut), [0.25, 0.5, "judged", "stop"]);
  // Without a queue depth the recording cannot say whether the queue still
  // filled, which the live rule holds a row for: neither its first
  // judgement nor its stop is replayed.
  const blind = {
    ...row,
    timeline: { ...row.timeline!, queueDepth: [] },
  };
  assert.deepEqual(
    backTest("x.json", [blind], { budgetSeconds: 120, timeoutSeconds: 600 })
      .map((c) => c.cut),
    [0.25, 0.5],
  );
  // A recorded fill time says it, depth or none.
  assert.deepEqual(
    backTest("x.json", [{ ...blind, filledAtSeconds: 0 }], {
      budgetSeconds: 120,
      timeoutSeconds: 600,
    }).map((c) => c.cut),
    [0.25, 0.5, "judged", "stop"],
  );
  for (const c of cases) {
    assert.ok(Math.abs(c.error) < 0.01, `${c.cut}: ${c.error}`);
    assert.ok(c.withinBounds);
  }
  // The default could first judge it at the least watch, 30 s.
  assert.equal(cases[2].atSeconds, 30);
  // 200 s at 100/s: its fastest end passes 1.5 × 120 s only once
  // t + 0.45 × (200 − t) > 180, at t > 164 s, after the budget; at the
  // budget its estimate, 200 s, lies beyond 180 s, so it is stopped there.
  assert.equal(cases[3].atSeconds, 120);
});

Deno.test("a row cut off is projected to how far it got", () => {
  const row = steady("redis", 10, 50_000, 600);
  const [quarter, half] = projectionTest("x.json", [row]);
  assert.equal(quarter.target, 6_000);
  assert.equal(quarter.actualSeconds, 600);
  assert.ok(Math.abs(quarter.error) < 0.01);
  assert.equal(half.cut, 0.5);
});

Deno.test("the simulation stops hopeless rows early and keeps quick ones", () => {
  const limits = { budgetSeconds: 120, timeoutSeconds: 600 };
  const quick = simulateRow(steady("none", 500, 30_000), limits);
  assert.deepEqual(quick, {
    id: "none",
    seconds: 60,
    finished: true,
    reason: null,
  });
  const slow = simulateRow(steady("redis", 10, 50_000, 600), limits);
  assert.equal(slow.finished, false);
  // Judged once its window, the recent half of the run, holds the 400
  // deliveries a rate is judged over: at 79 s (790 − 390 at 10/s).
  assert.equal(slow.seconds, 79);
  assert.match(slow.reason!, /cannot finish within 1\.5× the budget/);
  // Without a budget the time limit binds.
  const untilDone = simulateRow(steady("redis", 10, 50_000, 600), {
    budgetSeconds: null,
    timeoutSeconds: 600,
  });
  assert.equal(untilDone.seconds, 79);
  assert.match(untilDone.reason!, /within the time limit of 600 s/);
});

Deno.test("a row the rule cannot judge before its recording ends carries the estimate from all it recorded", () => {
  // 150 deliveries in its window at 30 s, short of the 400 a rate is
  // judged over: the replay cannot stop it, and says what it estimates.
  const cut = simulateRow(steady("redis", 10, 50_000, 30), {
    budgetSeconds: null,
    timeoutSeconds: 600,
  });
  assert.equal(cut.finished, false);
  assert.equal(cut.reason, "cut where the recording ends");
  assert.ok(cut.atRecordedEnd != null);
  assert.equal(cut.atRecordedEnd.settled, true);
  assert.ok(cut.atRecordedEnd.totalSeconds > 600);
  assert.match(cut.atRecordedEnd.basis, /300 of 50,000 delivered in 30 s/);
});

Deno.test("a suite's simulated time adds each row's overhead", () => {
  const rows = [steady("none", 500, 30_000), steady("redis", 10, 50_000, 600)];
  const document: ResultsDocument = {
    schemaVersion: 1,
    startedAt: "2025-01-01T00:00:00.000Z",
    // 660 s measured, 700 s in all: 20 s per row besides.
    finishedAt: "2025-01-01T00:11:40.000Z",
    params: PARAMS,
    results: rows,
  };
  assert.equal(overheadPerRow(document), 20);
  const suite = simulateSuite(document, {
    budgetSeconds: 120,
    timeoutSeconds: 600,
  });
  assert.equal(suite.totalSeconds, 60 + 79 + 2 * 20);
  assert.equal(
    simulateSuite(document, { budgetSeconds: 120, timeoutSeconds: 600 }, [
      "redis",
    ]).totalSeconds,
    80,
  );
});

Deno.test("the bounds are checked against their targets: coverage, median error and width, rows and queues", () => {
  const rows = Array.from({ length: 15 }, (_, i) => ({
    ...steady(
      ["redis", "postgres", "amqp", "sqlite", "mysql"][i % 5],
      100,
      20_000,
    ),
    id: `row-${i}`,
  }));
  const cases = rows.flatMap((row) =>
    backTest("x.json", [row], { budgetSeconds: 120, timeoutSeconds: 600 })
      .filter((c) => c.cut === "stop")
      .map((c) => ({ ...c, driver: row.driver }))
  );
  const check = checkBounds(cases);
  assert.equal(check.cases, 15);
  assert.equal(check.rows, 15);
  assert.equal(check.queues, 5);
  // Constant rates: every estimate exact and within its bounds.
  assert.equal(check.coverage, 1);
  assert.ok(check.medianAbsError < 0.01);
  // Stopped at 120 s of 200 s: bounds 120 + 80 × REST_LOW to 120 + 80 ×
  // REST_HIGH, over 200.
  assert.ok(
    Math.abs(check.maxWidth - 80 * (REST_HIGH - REST_LOW) / 200) < 0.01,
  );
  assert.ok(check.restRatios.every((r) => Math.abs(r - 1) < 0.01));
  assert.equal(check.met, true);
  // Too few rows or queues is not met, whatever the figures.
  assert.equal(checkBounds(cases.slice(0, 4)).met, false);
});

Deno.test("which recorded rows read their backlog: the row's own cost, else the driver and the version that ran", () => {
  const row = (driver: string, extra: Partial<ConfigurationResult> = {}) => ({
    ...result(driver, 1, "ok"),
    ...extra,
  });
  const ran = (version: string) => ({
    implementation: {
      specifier: "@fedify/x",
      resolved: "packages/x/src/mod.ts",
      official: true,
      version,
    },
  });
  assert.equal(dequeueCostOf(row("redis", ran("2.3.5"))), 0.004764);
  assert.equal(
    dequeueCostOf(row("redis"), { "@fedify/redis": "1.8.7" }),
    0.005643,
  );
  assert.equal(dequeueCostOf(row("redis-aof", ran("2.3.5"))), 0.004764);
  assert.equal(dequeueCostOf(row("redis-1.8.7")), 0.005643);
  assert.equal(dequeueCostOf(row("redis-limit1", ran("2.3.5"))), undefined);
  assert.equal(dequeueCostOf(row("amqp", { dequeueMsPerQueued: 0.5 })), 0.5);
  // PostgreSQL: only 1.8.7, by the row's implementation or the file's packages.
  assert.equal(
    dequeueCostOf(row("postgres"), { "@fedify/postgres": "1.8.7" }),
    0.0001049,
  );
  assert.equal(
    dequeueCostOf(row("postgres", ran("2.3.5")), {
      "@fedify/postgres": "1.8.7",
    }),
    undefined,
  );
  assert.equal(dequeueCostOf(row("postgres-1.8.7")), 0.0001049);
  assert.equal(
    dequeueCostOf(row("postgres-indexed"), { "@fedify/postgres": "1.8.7" }),
    undefined,
  );
});

/** A redis row that recorded only its queue depth. */
function depthRow(
  queueDepth: [number, number][],
  status: "ok" | "incomplete" = "ok",
): ConfigurationResult {
  return result("redis", 1, status, {
    timeline: { bucketSeconds: 1, deliveries: [], cumulative: [], queueDepth },
  });
}

Deno.test("a recorded row's queue filled when its depth peaked, unless it ends there", () => {
  const row = depthRow;
  assert.equal(filledAtOf(row([[0, 0], [10, 500], [20, 900], [30, 400]])), 20);
  assert.equal(filledAtOf(row([[0, 0], [10, 500], [20, 900]])), undefined);
  // Cut off while filling: the depth wavers near its peak.
  assert.equal(
    filledAtOf(row([[0, 0], [10, 500], [20, 900], [30, 880]])),
    undefined,
  );
  assert.equal(filledAtOf(row([])), undefined);
});

Deno.test("a recorded row still filled while its depth later rose well above its depth then", () => {
  const row = (queueDepth: [number, number][]) =>
    depthRow(queueDepth, "incomplete");
  const drained = row([[0, 0], [10, 500], [20, 900], [30, 400]]);
  assert.equal(filledAtAt(drained, 15), null);
  assert.equal(filledAtAt(drained, 25), 20);
  // Cut off while filling: the depth rose after 10 s, so it filled then;
  // at its flat top the recording cannot say.
  const cut = row([[0, 0], [10, 500], [20, 900], [30, 880]]);
  assert.equal(filledAtAt(cut, 10), null);
  assert.equal(filledAtAt(cut, 25), undefined);
  // A rise within a tenth of the peak (a retry, a sampling wobble) is not.
  assert.equal(filledAtAt(row([[0, 0], [10, 900], [20, 950]]), 15), undefined);
  assert.equal(filledAtAt(row([]), 10), undefined);
  // A recorded fill time, from the live fanout count, wins over the depth.
  const recorded = { ...drained, filledAtSeconds: 12 };
  assert.equal(filledAtAt(recorded, 11), null);
  assert.equal(filledAtAt(recorded, 15), 12);
  const never = { ...row([]), filledAtSeconds: null };
  assert.equal(filledAtAt(never, 100), null);
});

Deno.test("the default's limits: no budget and the default time limit, whatever the file's", () => {
  const document: ResultsDocument = {
    schemaVersion: 1,
    startedAt: "2025-01-01T00:00:00.000Z",
    finishedAt: null,
    params: { ...PARAMS, budgetSeconds: 48, timeoutSeconds: 300 },
    results: [steady("none", 500, 30_000)],
  };
  assert.deepEqual(defaultLimitsOf(document), {
    budgetSeconds: null,
    timeoutSeconds: DEFAULT_TIMEOUT_SECONDS,
  });
});

Deno.test("a recorded row's fanout messages handled come from its queue depth and deliveries", () => {
  // 10 activities of 100 outbox messages each: with F handled and D
  // delivered, (10 − F) + 100 × F − D wait.
  const depth = (fanned: number, delivered: number) =>
    10 - fanned + 100 * fanned - delivered;
  const row = result("redis", 1, "incomplete", {
    expected: 1_000,
    delivered: 300,
    sendSeconds: 1,
    timeline: {
      bucketSeconds: 1,
      deliveries: [],
      cumulative: [[1, 0], [2, 100], [3, 200], [4, 300]],
      queueDepth: [
        [0.5, 10],
        [1.5, depth(2, 0)],
        [2.5, depth(5, 100)],
        [3.5, depth(5, 200)],
        [4.5, depth(9, 300)],
      ],
    },
  });
  const fanouts = recordedFanouts(row, 10);
  assert.deepEqual(fanouts, {
    points: [[1.5, 2], [2.5, 5], [4.5, 9]],
    total: 10,
    perFanout: 100,
  });
  assert.equal(recordedFanouts(row, undefined), undefined);
});

Deno.test({
  name:
    "the drivers the back-test takes as reading their backlog are the registry's that declare a dequeue cost, with their queue package",
  // A driver that follows a Fedify tree (FEDIFY_SOURCE) declares what that
  // tree's code does, not what the registry's packages do.
  ignore: Deno.env.get("FEDIFY_SOURCE") != null,
  fn() {
    const declared = builtinDrivers
      .filter((d) => d.dequeueMsPerQueued != null)
      .map((d) => [d.name, d.queueSpecifier?.replace(/^@fedify\//, "")]);
    assert.deepEqual(
      declared,
      [...RECORDED_BACKLOG_DRIVERS].map(([name, { queue }]) => [name, queue]),
      "a built-in driver whose dequeue reads its backlog belongs in " +
        "RECORDED_BACKLOG_DRIVERS (lib/analysis/estimator_backtest.ts)",
    );
  },
});
