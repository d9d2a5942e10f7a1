/**
 * What `deno task test` printed: its summary, failures with their errors,
 * ignored tests, servers, notes and broken files.
 */
import assert from "node:assert/strict";
import { TEST_OUTPUT } from "../testing/fresh_fixtures.ts";
import { ERROR_LINES, errorExcerpt, parseTestOutput } from "./test_output.ts";

Deno.test("the test output gives the summary, failures with errors, ignored tests", () => {
  const report = parseTestOutput(TEST_OUTPUT);
  assert.equal(
    report.summary,
    "FAILED | 1 passed (1 step) | 4 failed (1 step) | 2 ignored (1m2s)",
  );
  assert.equal(report.files, 2);
  assert.deepEqual(report.failed, [
    {
      name: "fails here",
      file: "./lib/a.test.ts",
      location: "./lib/a.test.ts:2:6",
      error: [
        "error: Error: boom",
        "second line",
        'Deno.test("fails here", () => { throw new Error("boom"); });',
        "                                      ^",
      ],
    },
    {
      name: "with steps ... inner bad",
      file: "./lib/a.test.ts",
      location: "./lib/a.test.ts:6:11",
      error: ["error: AssertionError: step boom"],
    },
    {
      name: "(uncaught error)",
      file: "./c.test.ts",
      location: "uncaught error",
      error: ["error: (in promise) Error: gone"],
    },
  ]);
  assert.deepEqual(report.ignored, [
    { name: "redis only", file: "./lib/a.test.ts", condition: null },
    {
      name: "b on runtime node: skipped, with its reason",
      file: "./b.test.ts",
      condition: null,
    },
  ]);
  assert.deepEqual(report.servers, [
    "postgres: starts a throwaway postgres fetched into /cache/servers/pg",
    "redis: the tests that need it are skipped: redis-server not found",
  ]);
  assert.deepEqual(report.notes, [
    "tests on node are skipped: npm install in /cache/node-1713.tmp failed " +
    "(exit 127)\nnpm error node: error while loading shared libraries: " +
    "libatomic.so.1",
    "skipping the tests that need mariadb: not found",
  ]);
  assert.deepEqual(report.brokenFiles, [
    "lib/a.test.ts: 2 failed",
    "c.test.ts: ended with exit code 1 and no summary",
  ]);
});

Deno.test("a long error keeps its first and last lines, blank runs collapsed", () => {
  const lines = [
    "error: AssertionError: a long message",
    ...Array.from({ length: 20 }, (_, i) => `stderr line ${i}`),
    "",
    "",
    "0 !== 130",
    "",
    "      assert.equal(status.code, 130, stderr);",
    "             ^",
    "    at fn (file:///src/bench.test.ts:376:14)",
  ];
  assert.deepEqual(errorExcerpt(lines), [
    "error: AssertionError: a long message",
    "stderr line 0",
    "stderr line 1",
    "stderr line 2",
    "stderr line 3",
    "…",
    "0 !== 130",
    "",
    "      assert.equal(status.code, 130, stderr);",
    "             ^",
  ]);
  assert.equal(errorExcerpt(lines.slice(0, 3)).length, 3);
  assert.ok(ERROR_LINES >= 8, "room for a message and an assertion");
});

Deno.test("output that ends before any summary has none", () => {
  const report = parseTestOutput("Check a.test.ts\nerror: TS2304 …\n");
  assert.equal(report.summary, null);
  assert.deepEqual(report.failed, []);
});

Deno.test("a file run as shards counts once, and a shard's line is no note", () => {
  const shard = (k: number) =>
    [
      "------- pre-test output -------",
      `TEST_SHARD=${k}/2: this process runs share ${k + 1} of 2 of the ` +
      "file's tests",
      "skipping the tests that need mariadb: not found",
      "----- pre-test output end -----",
      "running 1 test from ./drivers/drivers.test.ts",
      `t${k} ... ok (1s)`,
      "",
      "ok | 1 passed | 0 failed (1s)",
    ].join("\n");
  const report = parseTestOutput(
    [
      "running 2 test files in 3 processes, 2 at a time, longest first",
      shard(0),
      shard(1),
      "running 1 test from ./a.test.ts",
      "a ... ok (1ms)",
      "",
      "ok | 1 passed | 0 failed (1ms)",
      "",
      "ok | 3 passed | 0 failed (2s)",
    ].join("\n"),
  );
  assert.equal(report.files, 2);
  assert.deepEqual(report.notes, [
    "skipping the tests that need mariadb: not found",
  ]);
  assert.equal(report.summary, "ok | 3 passed | 0 failed (2s)");
});
