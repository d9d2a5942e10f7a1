/**
 * What `--drivers` selects: by default the original benchmark's queues,
 * `all` every queue a Fedify user can deploy and the baseline, names
 * themselves, and a clear error for a name that is no driver.
 */
import assert from "node:assert/strict";
import type { Driver } from "./driver.ts";
import {
  ALL,
  allSuite,
  BASELINE,
  builtinDrivers,
  defaultSuite,
  selectDrivers,
} from "./mod.ts";

const names = (drivers: readonly Driver[]) => drivers.map((d) => d.name);

Deno.test("the default suite is the original benchmark's five queues, and all adds the others but no variant", () => {
  assert.deepEqual(defaultSuite, [
    "none",
    "in-process",
    "deno-kv-single",
    "redis",
    "postgres",
  ]);
  assert.deepEqual(allSuite, [
    "none",
    "in-process",
    "deno-kv",
    "deno-kv-single",
    "redis",
    "postgres",
    "amqp",
    "sqlite",
    "mysql",
  ]);
  for (const driver of builtinDrivers) {
    if (!allSuite.includes(driver.name)) {
      assert.equal(driver.suite, "named", driver.name);
    }
  }
});

Deno.test("no names: the default suite and the user's drivers, no baseline", () => {
  const mine: Driver = { name: "mine", description: "x", crossProcess: false };
  const selection = selectDrivers([], [...builtinDrivers, mine]);
  assert.deepEqual(names(selection.drivers), [...defaultSuite, "mine"]);
  assert.equal(selection.baseline, false);
});

Deno.test("all: every deployable queue, the baseline and the user's drivers; names as given", () => {
  const mine: Driver = { name: "mine", description: "x", crossProcess: false };
  const all = selectDrivers([ALL], [...builtinDrivers, mine]);
  assert.deepEqual(names(all.drivers), [...allSuite, "mine"]);
  assert.equal(all.baseline, true);
  const some = selectDrivers(
    ["redis", BASELINE, "redis-limit1", "redis"],
    builtinDrivers,
  );
  assert.deepEqual(names(some.drivers), ["redis", "redis-limit1"]);
  assert.equal(some.baseline, true);
  assert.equal(selectDrivers(["redis"], builtinDrivers).baseline, false);
});

Deno.test("a name that is no driver: an error naming the known ones and the two words", () => {
  assert.throws(
    () => selectDrivers(["rdis"], builtinDrivers),
    /unknown driver "rdis"; known drivers: none, in-process, .*, and baseline \(direct POSTs\) or all \(see --list\)/,
  );
});
