import assert from "node:assert/strict";
import { HELP, parseDequeueCostArgs } from "./dequeue_cost.ts";
import { UsageError } from "../params/mod.ts";

Deno.test("dequeue-cost arguments: defaults, help and bad input", () => {
  const options = parseDequeueCostArgs([], {})!;
  assert.deepEqual(options, {
    drivers: ["redis", "redis-limit1", "postgres", "postgres-indexed"],
    backlogs: [1000, 5000, 20000, 50000],
    dequeues: 200,
    warmup: 20,
    messageBytes: 4096,
    stepTimeoutSeconds: 60,
    projectionBacklog: 50000,
    project: ["redis"],
    depthBacklogs: [0, 10000, 50000],
    delayed: 0,
    // Never the published results/ by default.
    outDir: "runs/dequeue-cost",
  });
  assert.equal(parseDequeueCostArgs(["--help"], {}), null);
  assert.equal(parseDequeueCostArgs(["-h"], {}), null);
  assert.deepEqual(
    parseDequeueCostArgs(["--backlogs", "2000,500,500"], {})!.backlogs,
    [500, 2000],
  );
  assert.equal(parseDequeueCostArgs(["--warmup", "0"], {})!.warmup, 0);
  for (
    const [args, pattern] of [
      [["--drivers", "nope"], /unknown driver "nope"; deno task bench --list/],
      [["--drivers", "none"], /"none" has no queue to measure; pick one/],
      [["--backlogs", "200"], /exceed --warmup \+ --dequeues \(220\)/],
      [["--dequeues", "x"], /--dequeues must be a whole number, got "x"/],
      [["--dequeues", "-1"], /--dequeues must be a whole number, got "-1"/],
      [["--message-bytes", "100"], /--message-bytes must be between 1024/],
      [["--bogus"], /run with --help for the options/],
    ] as const
  ) {
    assert.throws(() => parseDequeueCostArgs(args, {}), (e: Error) => {
      assert.ok(e instanceof UsageError, String(e));
      assert.match(e.message, pattern);
      return true;
    });
  }
});

Deno.test("dequeue-cost --help comes from its parameter table", () => {
  assert.match(HELP, /^Usage: deno task dequeue-cost \[options\]/);
  for (const flag of ["--drivers", "--backlogs", "--step-timeout", "--out"]) {
    assert.ok(HELP.includes(flag), flag);
  }
});
