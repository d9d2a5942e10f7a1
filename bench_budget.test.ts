/**
 * The budget as a user meets it: `deno task bench --budget S` with a queue
 * too slow for S exits 0 (a row stopped by its budget with an estimate is
 * the expected outcome, not an error), and its results record the budget,
 * the row's progress and its labelled estimate; without `--budget`, each
 * row runs to its end or its time limit, and one its measured rate shows
 * cannot finish within that is stopped early with its estimate.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { ResultsDocument } from "./lib/results/mod.ts";
import { runDeno } from "./lib/testing/mod.ts";

const ROOT = new URL(".", import.meta.url).pathname;

/**
 * Runs the bench on the paced test driver (plus `drivers`) at `total` × 4
 * with `extra` flags, in a temporary folder it removes afterwards, and
 * reads back what it wrote: the results and latest.md.
 */
async function benchPaced(
  drivers: string,
  total: number,
  extra: readonly string[] = [],
) {
  const tmp = await Deno.makeTempDir({ prefix: "bench-budget-" });
  try {
    const out = join(tmp, "out");
    const { code, stdout, stderr } = await runDeno([
      "run",
      "-A",
      "--unstable-kv",
      join(ROOT, "bench.ts"),
      "--driver-module",
      join(ROOT, "lib/testing/paced_driver.ts"),
      "--drivers",
      drivers,
      "--parallel",
      "1",
      "--no-baseline",
      "--no-calibrate",
      "--total",
      String(total),
      "--recipients",
      "4",
      ...extra,
      "--out",
      out,
    ], { env: { TMPDIR: tmp, TOTAL: "", RECIPIENTS: "" } });
    assert.equal(code, 0, stdout + stderr);
    const document = JSON.parse(
      await Deno.readTextFile(join(out, "latest.json")),
    ) as ResultsDocument;
    const report = await Deno.readTextFile(join(out, "latest.md"));
    return { stderr, document, report };
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}

Deno.test({
  name: "a row stopped by its budget is reported with an estimate, exit 0",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // 300 deliveries, one every 100 ms: 30 s, against a 15 s budget.
    const { stderr, document, report } = await benchPaced(
      "test-paced",
      75,
      ["--budget", "15"],
    );
    assert.match(stderr, /budget 15 s a row \(--budget\)/);
    assert.equal(document.params.budgetSeconds, 15);
    assert.equal(document.params.budgetFallback, undefined);
    assert.equal(document.params.untilDone, undefined);
    const [row] = document.results;
    assert.equal(row.status, "incomplete");
    assert.equal(row.estimate?.stoppedBy, "budget");
    assert.ok(row.delivered < row.expected);
    assert.match(report, /Estimated total \(bounds\)/);
    assert.match(
      report,
      /estimated total \(an estimate, not a measurement\)/,
    );
  },
});

Deno.test({
  name:
    "without --budget, a row sure not to finish within its time limit is stopped early, with its estimate",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // 600 deliveries, one every 100 ms: 60 s, against a time limit of 20 s;
    // judged after a third of it, on a rate settled over half that.
    const { stderr, document, report } = await benchPaced("test-paced", 150, [
      "--timeout",
      "20",
    ]);
    assert.match(
      stderr,
      /each row runs to its last delivery, up to its time limit of 20 s \(--timeout\)/,
    );
    assert.equal(document.params.budgetSeconds, undefined);
    assert.equal(document.params.timeoutSeconds, 20);
    const [row] = document.results;
    assert.equal(row.status, "incomplete");
    assert.equal(row.estimate?.stoppedBy, "time limit");
    assert.match(
      row.reason ?? "",
      /^stopped at \d+ s: cannot finish within the time limit of 20 s \(estimated \d+ s; even with the rest taking 0\.45 of its estimate, the fastest the back-test has seen, it would end at \d+ s\)/,
    );
    assert.ok(row.elapsedSeconds! < 20, `${row.elapsedSeconds} s`);
    assert.ok(row.estimate!.lowSeconds > 20);
    assert.match(
      report,
      /each row to its end or its time limit of 20 s \(`--timeout`\)/,
    );
  },
});

Deno.test({
  name: "without --budget, a row that can finish runs to its end",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // 20 deliveries, one every 100 ms: done long before the time limit.
    const { stderr, document, report } = await benchPaced("test-paced", 5);
    assert.match(stderr, new RegExp(`up to its time limit of 1,200 s`));
    assert.equal(document.params.budgetSeconds, undefined);
    assert.equal(document.results[0].status, "ok");
    assert.equal(document.results[0].delivered, 20);
    assert.match(
      report,
      /each row to its end or its time limit of 1,200 s \(`--timeout`\)/,
    );
  },
});
