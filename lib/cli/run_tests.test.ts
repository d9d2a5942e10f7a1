import assert from "node:assert/strict";
import {
  addCounts,
  findTestFiles,
  formatDuration,
  formatSummary,
  NO_TESTS,
  parseSummary,
} from "./run_tests.ts";

Deno.test("parseSummary reads every form of deno test's summary line", () => {
  assert.deepEqual(
    parseSummary(
      "running 2 tests\nok | 2 passed (15 steps) | 0 failed (13s)\n",
    ),
    { passed: 2, passedSteps: 15, failed: 0, failedSteps: 0, ignored: 0 },
  );
  assert.deepEqual(
    parseSummary(
      "x\nFAILED | 1 passed (14 steps) | 1 failed (1 step) (1m27s)\n\nerror: Test failed\n",
    ),
    { passed: 1, passedSteps: 14, failed: 1, failedSteps: 1, ignored: 0 },
  );
  assert.deepEqual(
    parseSummary("ok | 458 passed (47 steps) | 0 failed | 6 ignored (8m12s)"),
    { passed: 458, passedSteps: 47, failed: 0, failedSteps: 0, ignored: 6 },
  );
  assert.deepEqual(parseSummary("ok | 3 passed | 0 failed (2ms)"), {
    ...NO_TESTS,
    passed: 3,
  });
  // A process that died before its summary.
  assert.equal(parseSummary("running 3 tests\nerror: Uncaught\n"), null);
  // A test's own output that merely mentions a result is not a summary.
  assert.equal(parseSummary("ok | something else"), null);
});

Deno.test("formatSummary writes the line CI reads, as deno test does", () => {
  const counts = addCounts(
    { passed: 2, passedSteps: 15, failed: 0, failedSteps: 0, ignored: 0 },
    { passed: 456, passedSteps: 32, failed: 0, failedSteps: 0, ignored: 6 },
  );
  const line = formatSummary(counts, 281_400, false);
  assert.equal(
    line,
    "ok | 458 passed (47 steps) | 0 failed | 6 ignored (4m41s)",
  );
  assert.deepEqual(parseSummary(line), counts);
  assert.equal(
    formatSummary(
      { ...NO_TESTS, passed: 1, failed: 1, failedSteps: 1 },
      13_000,
      true,
    ),
    "FAILED | 1 passed | 1 failed (1 step) (13s)",
  );
  assert.equal(formatDuration(450), "450ms");
  assert.equal(formatDuration(59_400), "59s");
  assert.equal(formatDuration(60_000), "1m0s");
});

Deno.test("findTestFiles: every *.test.ts, largest first, none from the top-level results and runs, node_modules or hidden folders", async () => {
  const root = await Deno.makeTempDir({ prefix: "fqb-run-tests-" });
  try {
    const write = async (path: string, size: number) => {
      await Deno.mkdir(`${root}/${path}`.replace(/\/[^/]+$/, ""), {
        recursive: true,
      });
      await Deno.writeTextFile(`${root}/${path}`, "x".repeat(size));
    };
    await write("a.test.ts", 10);
    await write("lib/b.test.ts", 30);
    await write("lib/deep/c.test.ts", 20);
    await write("lib/helper.ts", 99);
    // Only the top-level results/ and runs/ are skipped.
    await write("lib/results/e.test.ts", 25);
    for (const skipped of ["results", "runs", "node_modules", ".git"]) {
      await write(`${skipped}/d.test.ts`, 50);
    }
    assert.deepEqual(findTestFiles(root), [
      "lib/b.test.ts",
      "lib/results/e.test.ts",
      "lib/deep/c.test.ts",
      "a.test.ts",
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
