import assert from "node:assert/strict";
import {
  addCounts,
  brokenBecause,
  describeFiles,
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

Deno.test("brokenBecause: a failed test, an exit code, no summary, or a shard that ran its file's tests unshared", () => {
  const ok = { output: "ok | 2 passed | 0 failed (1s)", code: 0 };
  const passed = { ...NO_TESTS, passed: 2 };
  const file = { path: "a.test.ts" };
  const shard = { path: "a.test.ts", shard: { index: 1, count: 3 } };
  assert.equal(brokenBecause(file, { ...ok, counts: passed }), undefined);
  assert.equal(
    brokenBecause(file, { ...ok, counts: { ...passed, failed: 1 }, code: 1 }),
    "a.test.ts: 1 failed",
  );
  assert.equal(
    brokenBecause(file, { ...ok, counts: passed, code: 1 }),
    "a.test.ts: 0 failed",
  );
  assert.equal(
    brokenBecause(file, { output: "error: Uncaught", counts: null, code: 1 }),
    "a.test.ts: ended with exit code 1 and no summary",
  );
  // A shard must say it is one, or it ran every test of the file.
  assert.match(
    brokenBecause(shard, { ...ok, counts: passed }) ?? "",
    /^a\.test\.ts \(shard 2\/3\): ran its tests unshared .*shardedTest/,
  );
  assert.equal(
    brokenBecause(shard, {
      ...ok,
      output: `TEST_SHARD=1/3: this process runs share 2 of 3 of the ` +
        `file's tests\n${ok.output}`,
      counts: passed,
    }),
    undefined,
  );
  // A shard that the file's tests left empty ran nothing twice.
  assert.equal(
    brokenBecause(shard, {
      output: "ok | 0 passed | 0 failed (0ms)",
      code: 0,
      counts: NO_TESTS,
    }),
    undefined,
  );
});

Deno.test("describeFiles tells a file that shares its tests through shardedTest", async () => {
  const root = await Deno.makeTempDir({ prefix: "fqb-run-tests-" });
  try {
    await Deno.writeTextFile(`${root}/a.test.ts`, "Deno.test({});\n");
    await Deno.writeTextFile(
      `${root}/b.test.ts`,
      'import { shardedTest } from "./shards.ts";\n',
    );
    assert.deepEqual(
      describeFiles([`${root}/a.test.ts`, `${root}/b.test.ts`]),
      [
        { path: `${root}/a.test.ts`, size: 15, sharded: false },
        { path: `${root}/b.test.ts`, size: 43, sharded: true },
      ],
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
  // The driver round trips do, today, wherever their file is.
  const root2 = new URL("../../", import.meta.url).pathname;
  const sharded = describeFiles(
    findTestFiles(root2).map((p) => `${root2}${p}`),
  ).filter((f) => f.sharded);
  assert.ok(sharded.length > 0, "no test file shares its tests");
});
