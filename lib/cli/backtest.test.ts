/**
 * `deno task backtest` as a user runs it: on the published results, on a
 * folder without any, and with a bad argument.
 */
import assert from "node:assert/strict";
import { runDeno } from "../testing/mod.ts";
import { DEFAULT_TIMEOUT_SECONDS } from "../params/mod.ts";

const SCRIPT = new URL("./backtest.ts", import.meta.url).pathname;
const RESULTS = new URL("../../results", import.meta.url).pathname;

function backtest(args: string[]) {
  return runDeno(["run", "--allow-read", SCRIPT, ...args]);
}

Deno.test("on the published results: the back-test and the time limits", async () => {
  const { code, stdout, stderr } = await backtest([RESULTS]);
  assert.equal(code, 0, stderr);
  assert.match(stdout, /finished, at 25 %: \d+ cases, median \|error\|/);
  assert.match(
    stdout,
    /finished, where the default first judges them: \d+ cases/,
  );
  assert.match(stdout, /finished, at the default's stop: /);
  // The estimate's bounds meet their targets over the published results.
  assert.match(
    stdout,
    /The bounds where the default judges a row .*, against their targets \(all met\)/,
  );
  assert.match(stdout, /Rows the default stops, against their own finishes/);
  assert.match(
    stdout,
    /Rows stopped before their end, against a longer run of the same configuration in another file/,
  );
  assert.match(
    stdout,
    new RegExp(
      `time limit ${DEFAULT_TIMEOUT_SECONDS} s \\(default\\): [\\d.]+ min`,
    ),
  );
});

Deno.test("no results, or a bad argument: exit 2 with the fix", async () => {
  const empty = await Deno.makeTempDir({ prefix: "backtest-" });
  try {
    const none = await backtest([empty]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no results file in .*; give a results folder/);
  } finally {
    await Deno.remove(empty, { recursive: true });
  }
  const bad = await backtest(["--budget", "3"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /Usage: deno task backtest \[DIR\]/);
});
