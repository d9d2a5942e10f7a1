import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import {
  DURATIONS_URL,
  formatDurations,
  parseDurations,
  parseShard,
  planRuns,
  recordedSeconds,
  runName,
  shardCount,
  shardLine,
  type TestFile,
} from "./test_plan.ts";

const file = (path: string, size = 100, sharded = false): TestFile => ({
  path,
  size,
  sharded,
});

Deno.test("planRuns: the longest recorded files first, after the files it has no duration for, largest first", () => {
  const runs = planRuns(
    [
      file("a.test.ts", 10),
      file("lib/b.test.ts", 10),
      file("lib/new_small.test.ts", 5),
      file("lib/c.test.ts", 10),
      file("lib/new_large.test.ts", 50),
    ],
    { "a.test.ts": 3, "lib/b.test.ts": 30, "lib/c.test.ts": 7 },
  );
  assert.deepEqual(runs.map((r) => r.path), [
    "lib/new_large.test.ts",
    "lib/new_small.test.ts",
    "lib/b.test.ts",
    "lib/c.test.ts",
    "a.test.ts",
  ]);
  assert.deepEqual(runs.map((r) => r.seconds), [
    undefined,
    undefined,
    30,
    7,
    3,
  ]);
});

Deno.test("planRuns tolerates a stale list: a moved file keeps its duration by name, and a name no file has is passed over", () => {
  const durations = {
    "drivers/redis_modes.test.ts": 18,
    "drivers/gone.test.ts": 99,
    "lib/x/mod.test.ts": 1,
    "lib/y/mod.test.ts": 2,
  };
  // Moved into a folder of its backend: found by its name.
  assert.equal(
    recordedSeconds("drivers/redis/redis_modes.test.ts", durations),
    18,
  );
  // Two recorded files of that name: neither is guessed.
  assert.equal(recordedSeconds("lib/z/mod.test.ts", durations), undefined);
  const runs = planRuns(
    [file("drivers/redis/redis_modes.test.ts"), file("lib/z/mod.test.ts")],
    durations,
  );
  assert.deepEqual(runs.map((r) => [r.path, r.seconds]), [
    ["lib/z/mod.test.ts", undefined],
    ["drivers/redis/redis_modes.test.ts", 18],
  ]);
});

Deno.test("planRuns shares a sharded file between processes, one shard per 60 recorded seconds, each scheduled by its part", () => {
  const runs = planRuns(
    [
      file("long.test.ts", 10, true),
      file("mid.test.ts"),
      file("short.test.ts"),
    ],
    { "long.test.ts": 200, "mid.test.ts": 55, "short.test.ts": 2 },
  );
  assert.deepEqual(runs.map(runName), [
    "mid.test.ts",
    "long.test.ts (shard 1/4)",
    "long.test.ts (shard 2/4)",
    "long.test.ts (shard 3/4)",
    "long.test.ts (shard 4/4)",
    "short.test.ts",
  ]);
  assert.deepEqual(runs[1].shard, { index: 0, count: 4 });
  assert.equal(runs[1].seconds, 50);
  // A short sharded file runs whole; an unknown one in two; never over 6.
  assert.equal(shardCount(50), 1);
  assert.equal(shardCount(undefined), 2);
  assert.equal(shardCount(10_000), 6);
  const unknown = planRuns([file("long.test.ts", 10, true)], {});
  assert.deepEqual(unknown.map(runName), [
    "long.test.ts (shard 1/2)",
    "long.test.ts (shard 2/2)",
  ]);
  const whole = planRuns([file("long.test.ts", 10, true)], {
    "long.test.ts": 50,
  });
  assert.deepEqual(whole, [{ path: "long.test.ts", seconds: 50 }]);
});

Deno.test("parseShard reads TEST_SHARD, and says what it expects when it cannot", () => {
  assert.equal(parseShard(undefined), undefined);
  assert.equal(parseShard(""), undefined);
  assert.deepEqual(parseShard("2/5"), { index: 2, count: 5 });
  for (const bad of ["5/5", "1/0", "x", "1/2/3", "-1/2"]) {
    assert.throws(() => parseShard(bad), /expected k\/n with 0 <= k < n/, bad);
  }
  assert.match(shardLine({ index: 1, count: 4 }), /^TEST_SHARD=1\/4: /);
});

Deno.test("the recorded durations: a list of seconds by path, read back as written", () => {
  const text = formatDurations({ "b.test.ts": 2.04, "a.test.ts": 30.16 });
  assert.equal(text, '{\n  "a.test.ts": 30.2,\n  "b.test.ts": 2\n}\n');
  assert.deepEqual(parseDurations(text), { "a.test.ts": 30.2, "b.test.ts": 2 });
  assert.throws(
    () => parseDurations('{"a.test.ts": "3s"}'),
    /a\.test\.ts: "3s" is not a number of seconds.*--record-durations/,
  );
});

Deno.test("lib/cli/test_durations.json is a valid list, most of whose names are files here", () => {
  const durations = parseDurations(Deno.readTextFileSync(DURATIONS_URL));
  const root = new URL("../../", import.meta.url);
  const paths = Object.keys(durations);
  assert.ok(paths.length > 0, "the list is empty");
  // Files moved or removed since the list was written are tolerated (they
  // run first, as unknown): the list is a guide to the order, not a
  // register.  Most of it still naming files keeps it a useful guide.
  const present = paths.filter((p) => existsSync(new URL(p, root)));
  assert.ok(
    present.length >= paths.length / 2,
    `only ${present.length} of the ${paths.length} files of ` +
      "lib/cli/test_durations.json are here: write it again with " +
      "deno task test --record-durations",
  );
});
