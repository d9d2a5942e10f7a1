/** The Markdown report. */
import assert from "node:assert/strict";
import {
  freshResultsDocument,
  TEST_OUTPUT,
} from "../testing/fresh_fixtures.ts";
import { summariseResults } from "./bench_results.ts";
import { type FreshCheckReport, renderMarkdown } from "./check_report.ts";
import { parseTestOutput } from "./test_output.ts";

Deno.test("the Markdown report shows rows, failures and ignored tests", () => {
  const sizes = {
    ".npm": 1e6,
    ".cache/deno": 0,
    ".cache/fedify-queue-bench": 0,
  };
  const command = {
    code: 0,
    timedOut: false,
    interrupted: false,
    seconds: 61,
    cacheBefore: sizes,
    cacheAfter: sizes,
  };
  const report: FreshCheckReport = {
    startedAt: "2026-12-01T00:00:00Z",
    finishedAt: "2026-12-01T00:20:00Z",
    ok: false,
    clone: {
      commit: "0123456789abcdef",
      subject: "a commit",
      uncommitted: ["lib/x.ts"],
      gitDir: true,
    },
    image: {
      name: "img:1",
      id: "sha256:1",
      how: "reused",
      rootfs: "/cache/rootfs-bookworm",
      nodeVersion: "v20.20.2",
      npmVersion: "9.2.0",
      seconds: 0.1,
    },
    dockerVersion: "20.10.24",
    cache: { dir: "/cache", cleaned: false },
    user: { uid: 1000, gid: 1000 },
    bench: {
      ...command,
      command: "TOTAL=20 RECIPIENTS=10 npx --yes deno@2.9.6 task bench",
      log: "bench.log",
      results: summariseResults(freshResultsDocument(), "runs/x/latest.json"),
      fetched: [],
    },
    test: {
      ...command,
      code: 1,
      command: "npx --yes deno@2.9.6 task test",
      log: "test.log",
      report: {
        ...parseTestOutput(TEST_OUTPUT),
        ignored: [{
          name: "redis only",
          file: "./a.test.ts",
          condition: "noRedis",
        }],
      },
    },
  };
  const md = renderMarkdown(report);
  assert.match(md, /^# Fresh check\n\nFAILED: the README's two commands/);
  assert.match(
    md,
    /\| redis \| skipped \| 0 of 200 \| — \| null \| redis-server not found \|/,
  );
  assert.match(md, /"startedByBench":true/);
  assert.match(md, /Servers fetched by this run: none \(each server came/);
  assert.match(
    md,
    /npx --yes deno@2.9.6 task test`: \*\*FAILED\*\* \(exit code 1/,
  );
  assert.match(
    md,
    /- \*\*fails here\*\* \(\.\/lib\/a\.test\.ts:2:6\)\n\n {2}```\n {2}error: Error: boom/,
  );
  assert.match(md, /\| redis only \| \.\/a\.test\.ts \| `noRedis` \|/);
  assert.match(md, /- redis: the tests that need it are skipped/);
  assert.match(
    md,
    /- tests on node are skipped: .*\n\n {2}```\n {2}npm error node: error while loading shared libraries: libatomic\.so\.1\n {2}```/,
  );
  assert.match(
    md,
    /Not checked: 1 uncommitted change of the working tree \(lib\/x\.ts\)/,
  );
});
