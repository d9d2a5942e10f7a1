import assert from "node:assert/strict";
import { basename, join } from "node:path";
import { makeRunDir, pointLatest } from "./paths.ts";
import type { Spread } from "../results/mod.ts";
import { calibration, config, doc } from "../testing/comparison_fixtures.ts";
import { runDeno } from "../testing/mod.ts";

/** Runs `deno task compare` (read permission only) with `args`. */
function cli(...args: string[]) {
  return cliIn(undefined, ...args);
}

/** Runs `deno task compare` with `args` in the folder `cwd`. */
function cliIn(cwd: string | undefined, ...args: string[]) {
  return runDeno([
    "run",
    "--allow-read",
    new URL("./compare.ts", import.meta.url).pathname,
    ...args,
  ], { cwd });
}

/** Writes each document into a fresh folder and passes their paths. */
async function withFiles(
  documents: Record<string, unknown>,
  fn: (path: (name: string) => string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "compare-test-" });
  try {
    for (const [name, document] of Object.entries(documents)) {
      await Deno.writeTextFile(
        join(dir, name),
        typeof document === "string" ? document : JSON.stringify(document),
      );
    }
    await fn((name) => join(dir, name));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const SPREAD: Record<string, Spread> = {
  receiveSeconds: { min: 9.5, max: 10.5 },
  deliveriesPerSecond: { min: 95, max: 105 },
  latencyP99Ms: { min: 45, max: 55 },
};

Deno.test("compare CLI: by default the latest run of runs/ against the published results/", async () => {
  const dir = await Deno.makeTempDir({ prefix: "compare-test-" });
  try {
    const none = await cliIn(dir);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no run in runs\/ to compare.*deno task bench/);
    await Deno.mkdir(join(dir, "results"));
    await Deno.writeTextFile(
      join(dir, "results", "latest.json"),
      JSON.stringify(doc([config("redis", 10, 100, 50)])),
    );
    const run = await makeRunDir(join(dir, "runs"));
    // A run written now (schema version 2) against older published results
    // (version 1): both are read.
    await Deno.writeTextFile(
      join(run, "latest.json"),
      JSON.stringify({
        ...doc([config("redis", 20, 50, 50)]),
        schemaVersion: 2,
        suiteSeconds: 1,
      }),
    );
    await pointLatest(run, join(dir, "runs"));
    const both = await cliIn(dir);
    assert.equal(both.code, 0, both.stderr);
    assert.match(
      both.stderr,
      new RegExp(
        `^Comparing results/latest\\.json \\(old\\) with ${
          join("runs", basename(run), "latest.json").replaceAll(".", "\\.")
        } \\(new\\)`,
      ),
    );
    assert.match(both.stdout, /redis/);
    // One file: the published results against it.
    const one = await cliIn(dir, join(run, "latest.json"));
    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stderr, /^Comparing results\/latest\.json \(old\)/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("compare CLI: bad usage and unreadable files exit 2", async () => {
  await withFiles({
    "old.json": doc([config("redis", 10, 100, 50)]),
    "bad.json": "{ not json",
    "v3.json": { ...doc([]), schemaVersion: 3 },
  }, async (path) => {
    const missing = await cli(path("old.json"), path("nope.json"));
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /nope\.json: cannot read \(no such file\)/);

    const invalid = await cli(path("bad.json"), path("old.json"));
    assert.equal(invalid.code, 2);
    assert.match(invalid.stderr, /bad\.json: invalid JSON/);

    const version = await cli(path("old.json"), path("v3.json"));
    assert.equal(version.code, 2);
    assert.match(version.stderr, /v3\.json: unsupported schemaVersion 3/);

    const usage = await cli(path("old.json"), path("old.json"), "x.json");
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /expected at most two results files, got 3/);
    assert.match(usage.stderr, /Usage: deno task compare \[\[OLD\] NEW\]/);

    for (const bad of ["ten", "-5%", "10%%", ""]) {
      const threshold = await cli(
        path("old.json"),
        path("old.json"),
        `--fail-on-regression=${bad}`,
      );
      assert.equal(threshold.code, 2, bad);
      assert.match(
        threshold.stderr,
        /--fail-on-regression needs a percentage such as 10%/,
        bad,
      );
    }
    const unknown = await cli(path("old.json"), path("old.json"), "--fail");
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Unknown option '--fail'[\s\S]*Usage:/);
    const help = await cli("--help");
    assert.equal(help.code, 0);
    assert.match(help.stdout, /--fail-on-regression PERCENT/);
  });
});

Deno.test("compare CLI: an unexpected error exits 2, not 1 (a regression)", async () => {
  // Valid enough to pass validation, but its receive time cannot be printed.
  const odd = {
    ...config("x", 10, 100, 50),
    receiveSeconds: { toLocaleString: 0 } as unknown as number,
  };
  await withFiles({
    "old.json": doc([config("x", 10, 100, 50)]),
    "odd.json": doc([odd]),
  }, async (path) => {
    const result = await cli(
      path("old.json"),
      path("odd.json"),
      "--fail-on-regression",
      "10%",
    );
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /^compare: internal error/);
  });
});

Deno.test("compare CLI: single runs with different values give no verdict", async () => {
  await withFiles({
    "old.json": doc(
      [config("none", 65.6, 762, 194)],
      {},
      calibration(600, 9000),
    ),
    "new.json": doc(
      [config("none", 49.6, 1008, 150)],
      {},
      calibration(610, 9100),
    ),
  }, async (path) => {
    const result = await cli(
      path("old.json"),
      path("new.json"),
      "--fail-on-regression",
      "10%",
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^Calibration: no change beyond its noise/);
    assert.match(result.stdout, /-24\.4%/);
    assert.match(result.stdout, /single run: noise unknown \(use --runs 3\)/);
    assert.doesNotMatch(result.stdout, /\| (better|worse) /);
    assert.match(result.stdout, /gate .*: passed/);
    assert.match(result.stdout, /Not judged: 3 figures/);
  });
});

Deno.test("compare CLI: the same file twice is noise and passes", async () => {
  const file = doc([config("pg", 10, 100, 50, SPREAD, "ok", 3)]);
  await withFiles({ "a.json": file }, async (path) => {
    const result = await cli(
      path("a.json"),
      path("a.json"),
      "--fail-on-regression=0%",
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^Calibration: unknown in both files/);
    assert.equal(result.stdout.match(/\| noise/g)?.length, 3);
    assert.doesNotMatch(result.stdout, /\| (better|worse) /);
  });
});

Deno.test("compare CLI: a clear regression over 3 runs fails the gate", async () => {
  const old = doc([
    config("pg", 10, 100, 50, SPREAD, "ok", 3),
    config("amqp", 10, 100, 50, SPREAD, "ok", 3),
  ]);
  const slower = doc([
    config(
      "pg",
      13,
      77,
      65,
      {
        receiveSeconds: { min: 12.5, max: 13.5 },
        deliveriesPerSecond: { min: 74, max: 80 },
        latencyP99Ms: { min: 60, max: 70 },
      },
      "ok",
      3,
    ),
    config("amqp", 10.2, 99, 50, SPREAD, "ok", 3),
  ]);
  await withFiles({ "old.json": old, "new.json": slower }, async (path) => {
    const gated = await cli(
      path("old.json"),
      path("new.json"),
      "--fail-on-regression",
      "10%",
    );
    assert.equal(gated.code, 1, gated.stderr);
    assert.match(
      gated.stdout,
      /\| pg +\| receive \(s\) .*\| +\+30\.0% \| worse/,
    );
    assert.match(
      gated.stdout,
      /gate \(--fail-on-regression 10%\): FAILED, 3 regressions/,
    );
    assert.match(
      gated.stdout,
      /- pg: receive \(s\) 10\.00 \(9\.50–10\.50\) → 13\.00 \(12\.50–13\.50\), 30\.0% worse/,
    );
    assert.match(gated.stdout, /- pg: deliveries\/s .*23\.0% worse/);
    assert.doesNotMatch(gated.stdout, /- amqp/);

    const lenient = await cli(
      path("old.json"),
      path("new.json"),
      "--fail-on-regression",
      "50",
    );
    assert.equal(lenient.code, 0);
    assert.match(lenient.stdout, /passed; .*more than 50%/);
    assert.match(
      lenient.stdout,
      /3 figures are worse beyond the noise but by 50% or less/,
    );

    const improved = await cli(
      path("new.json"),
      path("old.json"),
      "--fail-on-regression",
      "10%",
    );
    assert.equal(improved.code, 0);
    assert.match(improved.stdout, /\| pg +\| receive \(s\) .*\| better/);

    const ungated = await cli(path("old.json"), path("new.json"));
    assert.equal(ungated.code, 0, "without the gate, only the table");
    assert.doesNotMatch(ungated.stdout, /Regression gate/);
  });
});
