/** `deno task fresh-check`'s command line, read through its parameter table. */
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { parseFreshCheckArgs } from "./fresh_check.ts";
import { UsageError } from "../params/mod.ts";
import { cacheDir } from "../system/cache_dir.ts";

Deno.test("fresh-check's options: defaults, switches that turn a default off, and bad values", () => {
  assert.deepEqual(parseFreshCheckArgs([]), {
    out: "runs/fresh-check",
    cache: resolve(cacheDir("fresh-check")),
    cleanCache: false,
    rebuild: false,
    total: 20,
    recipients: 10,
    benchTimeoutMinutes: 40,
    testTimeoutMinutes: 60,
    only: null,
    gitDir: true,
    echo: true,
  });
  const given = parseFreshCheckArgs([
    "--only",
    "test",
    "--no-git-dir",
    "--quiet",
    "--mirror",
    "http://deb.example/debian",
    "--cache",
    "c",
  ]);
  assert.equal(given?.only, "test");
  assert.equal(given?.gitDir, false);
  assert.equal(given?.echo, false);
  assert.equal(given?.mirror, "http://deb.example/debian");
  assert.equal(given?.cache, resolve("c"));
  assert.equal(parseFreshCheckArgs(["--help"]), null);
  assert.throws(() => parseFreshCheckArgs(["--only", "x"]), UsageError);
  assert.throws(() => parseFreshCheckArgs(["--total", "0"]), UsageError);
  assert.throws(() => parseFreshCheckArgs(["--bogus"]), UsageError);
});
