/**
 * The budget as a user meets it: `deno task bench --budget S` with a queue
 * too slow for S exits 0 (a row stopped by its budget with an estimate is
 * the expected outcome, not an error), and its results record the budget,
 * the row's progress and its labelled estimate; without `--budget`, the
 * none row runs first and sets the budget of the rows after it, and a run
 * without either says why its budget is the fixed default.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DEFAULT_BUDGET_OF_NONE } from "./lib/params/mod.ts";
import type { ResultsDocument } from "./lib/results/types.ts";
import { MIN_OBSERVED_SECONDS } from "./lib/run/budget.ts";
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
  name: "without --budget, the none row runs first and sets the budget",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // 600 deliveries, one every 100 ms: 60 s, beyond 1.5 × 30 s (the
    // least budget, as none takes a few seconds here).
    const { stderr, document } = await benchPaced("test-paced,none", 150);
    assert.equal(document.rounds?.[0]?.[0], "none", "none runs first");
    const none = document.results.find((r) => r.id === "none")!;
    assert.equal(none.status, "ok");
    assert.equal(document.params.budgetOfNone, DEFAULT_BUDGET_OF_NONE);
    const budget = Math.max(
      MIN_OBSERVED_SECONDS,
      Math.round(DEFAULT_BUDGET_OF_NONE * none.totalSeconds! * 10) / 10,
    );
    assert.equal(document.params.budgetSeconds, budget);
    assert.match(stderr, new RegExp(`budget ${budget} s a row: 0\\.8 ×`));
    const paced = document.results.find((r) => r.id === "test-paced")!;
    assert.equal(paced.status, "incomplete");
    assert.match(paced.reason ?? "", new RegExp(`budget of ${budget} s`));
  },
});

Deno.test({
  name: "without --budget or a none row, the fixed budget is said and recorded",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // 20 deliveries, one every 100 ms: done long before any budget.
    const { stderr, document, report } = await benchPaced("test-paced", 5);
    assert.match(stderr, /budget 80 s a row: this run has no none row/);
    assert.equal(document.params.budgetSeconds, 80);
    assert.equal(document.params.budgetFallback, "no none row");
    assert.equal(document.params.budgetOfNone, undefined);
    assert.equal(document.results[0].status, "ok");
    assert.match(report, /budget 80 s \(the fixed default: no none row;/);
  },
});
