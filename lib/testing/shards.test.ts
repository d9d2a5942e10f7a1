import assert from "node:assert/strict";
import { runDeno } from "./commands.ts";
import { brokenBecause, parseSummary } from "../cli/run_tests.ts";

/**
 * A test file of seven tests, all registered through shardedTest, then
 * four of two groups (g1, g2) with one alone between them.
 */
function fixture(): string {
  const shards = new URL("./shards.ts", import.meta.url).href;
  return `import { shardedTest } from ${JSON.stringify(shards)};\n` +
    `for (let i = 0; i < 7; i++) {\n` +
    `  shardedTest({ name: "t" + i, fn() {} });\n` +
    `}\n` +
    `for (const [name, group] of [["g1a", "g1"], ["g2a", "g2"], ` +
    `["t7", undefined], ["g1b", "g1"], ["g2b", "g2"]]) {\n` +
    `  shardedTest({ name, fn() {} }, group);\n` +
    `}\n`;
}

/** The names of the tests that passed, in `deno test`'s output. */
const passed = (stdout: string) =>
  [...stdout.matchAll(/^(t\d|g\d[ab]) \.\.\. ok/gm)].map((m) => m[1]);

Deno.test("shardedTest: the shards of a file run each of its tests once, a group's tests in one shard, and unshared it runs them all", async () => {
  const dir = await Deno.makeTempDir({ prefix: "fqb-shards-" });
  try {
    const file = `${dir}/seven.test.ts`;
    await Deno.writeTextFile(file, fixture());
    const run = (shard?: string) =>
      runDeno(
        ["test", "--allow-all", "--no-check", file],
        shard == null ? {} : { env: { TEST_SHARD: shard } },
      );
    const whole = await run();
    assert.equal(whole.code, 0, whole.stderr);
    assert.deepEqual(passed(whole.stdout), [
      "t0",
      "t1",
      "t2",
      "t3",
      "t4",
      "t5",
      "t6",
      "g1a",
      "g2a",
      "t7",
      "g1b",
      "g2b",
    ]);
    assert.doesNotMatch(whole.stdout, /TEST_SHARD/);
    const parts = await Promise.all(["0/3", "1/3", "2/3"].map(run));
    // Dealt in turn; a group's tests go where its first went.
    assert.deepEqual(parts.map((p) => passed(p.stdout)), [
      ["t0", "t3", "t6", "t7"],
      ["t1", "t4", "g1a", "g1b"],
      ["t2", "t5", "g2a", "g2b"],
    ]);
    // Each says it is a shard, so the runner takes it as one.
    parts.forEach((part, index) => {
      assert.equal(part.code, 0, part.stderr);
      const output = part.stdout + part.stderr;
      assert.equal(
        brokenBecause({ path: file, shard: { index, count: 3 } }, {
          output,
          counts: parseSummary(output),
          code: part.code,
        }),
        undefined,
      );
    });
    const bad = await run("3/3");
    assert.notEqual(bad.code, 0);
    assert.match(bad.stdout + bad.stderr, /TEST_SHARD=3\/3: expected k\/n/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
