/**
 * The pure parts of `deno task dequeue-cost`: arguments, messages, timing,
 * the fit and the drain projection.
 */
import assert from "node:assert/strict";
import {
  type DequeueCostPoint,
  fitCost,
  outboxMessages,
  parseDequeueCostArgs,
  projectDrain,
  summariseArrivals,
  UsageError,
} from "./dequeue_cost.ts";

Deno.test("dequeue-cost arguments: defaults, help and bad input", () => {
  const params = parseDequeueCostArgs([])!;
  assert.deepEqual(params.drivers, [
    "redis",
    "redis-limit1",
    "postgres",
    "postgres-indexed",
  ]);
  assert.deepEqual(params.backlogs, [1000, 5000, 20000, 50000]);
  assert.equal(params.dequeues, 200);
  assert.deepEqual(params.project, ["redis"]);
  assert.equal(parseDequeueCostArgs(["--help"]), null);
  assert.deepEqual(
    parseDequeueCostArgs(["--backlogs", "2000,500,500"])!.backlogs,
    [500, 2000],
  );
  for (
    const [args, pattern] of [
      [["--drivers", "nope"], /unknown driver "nope"; deno task bench --list/],
      [["--drivers", "none"], /"none" has no queue/],
      [["--backlogs", "200"], /exceed --warmup \+ --dequeues \(220\)/],
      [["--dequeues", "x"], /--dequeues must be a positive integer/],
      [["--bogus"], /see --help/],
    ] as const
  ) {
    assert.throws(() => parseDequeueCostArgs(args), (e: Error) => {
      assert.ok(e instanceof UsageError);
      assert.match(e.message, pattern);
      return true;
    });
  }
});

Deno.test("outbox messages are about the asked size and all distinct", () => {
  const message = outboxMessages(4096);
  const texts = Array.from(
    { length: 300 },
    (_, i) => JSON.stringify(message(i)),
  );
  for (const text of texts) {
    assert.ok(Math.abs(text.length - 4096) < 64, `${text.length} bytes`);
  }
  assert.equal(new Set(texts).size, texts.length);
  assert.equal((message(0) as { type: string }).type, "outbox");
});

Deno.test("timing, fit and projection", () => {
  assert.deepEqual(summariseArrivals([5]), {
    dequeued: 0,
    msPerDequeue: null,
    gapMs: null,
  });
  assert.deepEqual(summariseArrivals([0, 1, 3, 6]), {
    dequeued: 3,
    msPerDequeue: 2,
    gapMs: { p50: 2, p90: 3, max: 3 },
  });
  const point = (backlog: number, ms: number): DequeueCostPoint => ({
    driver: "redis",
    backlog,
    status: "ok",
    fillSeconds: 1,
    dequeued: 200,
    msPerDequeue: ms,
    gapMs: null,
  });
  // ms = 1 + 0.005 × backlog, exactly.
  const fit = fitCost("redis", [
    point(1000, 6),
    point(5000, 26),
    point(20000, 101),
  ])!;
  assert.ok(Math.abs(fit.interceptMs - 1) < 1e-9);
  assert.ok(Math.abs(fit.slopeMs - 0.005) < 1e-12);
  assert.ok(Math.abs(fit.r2! - 1) < 1e-12);
  assert.equal(fitCost("redis", [point(1000, 6)]), null);
  // Σ_{b=1..1000} (1 + 0.005 b) ms = 1000 + 0.005 × 500500 = 3502.5 ms.
  const projection = projectDrain(fit, 1000);
  assert.ok(Math.abs(projection.seconds - 3.5025) < 1e-9);
  assert.equal(projection.dequeuesIn600Seconds, 1000);
});
