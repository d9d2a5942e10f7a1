/**
 * The budget as a user meets it: `deno task bench --budget S` with a queue
 * too slow for S exits 0 (a row stopped by its budget with an estimate is
 * the expected outcome, not an error), and its results record the budget,
 * the row's progress and its labelled estimate.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { ResultsDocument } from "./lib/results/types.ts";
import { runDeno } from "./lib/testing/mod.ts";

const ROOT = new URL(".", import.meta.url).pathname;

Deno.test({
  name: "a row stopped by its budget is reported with an estimate, exit 0",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "bench-budget-" });
    try {
      const out = join(tmp, "out");
      // 300 deliveries, one every 100 ms: 30 s, against a 15 s budget.
      const { code, stdout, stderr } = await runDeno([
        "run",
        "-A",
        "--unstable-kv",
        join(ROOT, "bench.ts"),
        "--driver-module",
        join(ROOT, "lib/testing/paced_driver.ts"),
        "--drivers",
        "test-paced",
        "--parallel",
        "1",
        "--no-baseline",
        "--no-calibrate",
        "--total",
        "75",
        "--recipients",
        "4",
        "--budget",
        "15",
        "--out",
        out,
      ], { env: { TMPDIR: tmp, TOTAL: "", RECIPIENTS: "" } });
      assert.equal(code, 0, stdout + stderr);
      const document = JSON.parse(
        await Deno.readTextFile(join(out, "latest.json")),
      ) as ResultsDocument;
      assert.equal(document.params.budgetSeconds, 15);
      assert.equal(document.params.untilDone, undefined);
      const [row] = document.results;
      assert.equal(row.status, "incomplete");
      assert.equal(row.estimate?.stoppedBy, "budget");
      assert.ok(row.delivered < row.expected);
      const report = await Deno.readTextFile(join(out, "latest.md"));
      assert.match(report, /Estimated total \(bounds\)/);
      assert.match(
        report,
        /estimated total \(an estimate, not a measurement\)/,
      );
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
