import assert from "node:assert/strict";
import { dequeueCostTable, resultsTable } from "./table.ts";
import { MORE } from "../results_columns.ts";
import {
  result,
  stoppedDocument,
  syntheticDocument,
} from "../../testing/chart_fixtures.ts";
import { readDequeueCostDocument } from "../../results/dequeue_cost_record.ts";

Deno.test("the headline table: a row per result, figures beside their JSON numbers", () => {
  const document = syntheticDocument();
  const table = resultsTable(document);
  assert.equal(table.rows.length, document.results.length);
  const names = table.columns.map((c) => c.name);
  const redis = table.rows[1];
  const cell = (name: string) => redis.cells[names.indexOf(name)];
  assert.deepEqual(cell("Total"), {
    text: "9.80 s",
    value: 9.8,
    key: "totalSeconds",
  });
  assert.equal(cell("p99 latency").key, "latencyMs.p99");
  assert.equal(cell("p99 latency").value, 150);
  assert.deepEqual(redis.filters, {
    driver: "redis",
    parallelism: "4",
    status: "ok",
  });
  const postgres = table.rows[2];
  assert.ok(postgres.incomplete);
  assert.deepEqual(postgres.cells[names.indexOf("Status")], {
    text: `incomplete ${MORE}`,
    title: "incomplete: incomplete on purpose",
  });
  assert.deepEqual(cell("Status"), { text: "ok" });
});

Deno.test("the headline table keeps every cell short: reasons and bases are tooltips", () => {
  const document = stoppedDocument();
  const table = resultsTable(document);
  const names = table.columns.map((c) => c.name);
  assert.ok(!names.includes("Note"), "no column of long notes");
  const long = document.results.flatMap((r) => [
    ...(r.reason == null ? [] : [r.reason]),
    ...(r.estimate == null ? [] : [r.estimate.basis]),
  ]);
  assert.ok(long.length > 0);
  for (const row of table.rows) {
    const r = document.results[row.index];
    for (const cell of row.cells) {
      assert.ok(cell.text.length <= 30, `${r.id}: "${cell.text}" is long`);
      for (const text of long) assert.ok(!cell.text.includes(text));
    }
    const status = row.cells[names.indexOf("Status")];
    if (r.status === "ok") continue;
    assert.equal(status.text, `${r.status} ${MORE}`);
    assert.equal(status.title, `${r.status}: ${r.reason}`);
  }
});

Deno.test("an incomplete row shows its estimate, labelled one, and links its log", () => {
  const row = result("redis", 4, "incomplete", {
    reason: "timed out after 600 s",
    log: { path: "results/logs/redis-x4.log", warnings: 1, errors: 2 },
  });
  const withEstimate = {
    ...row,
    estimate: {
      totalSeconds: 5400,
      lowSeconds: 4000,
      highSeconds: 9000,
      deliveriesPerSecond: 1,
      stoppedBy: "time limit" as const,
      basis: "from the last minute's rate",
    },
  };
  const table = resultsTable({
    ...syntheticDocument(),
    results: [withEstimate],
  });
  const names = table.columns.map((c) => c.name);
  const cells = table.rows[0].cells;
  assert.ok(table.columns[names.indexOf("Total (estimate)")].numeric);
  assert.deepEqual(cells[names.indexOf("Total (estimate)")], {
    text: `~5,400 s ${MORE}`,
    value: 5400,
    key: "estimate.totalSeconds",
    title: "an estimate, not a measurement: about 90.0 min from the first " +
      "sendActivity call to the last delivery, between 66.7 min and 2.5 h " +
      "(stopped by the time limit); from the last minute's rate",
  });
  assert.equal(
    cells[names.indexOf("Status")].title,
    "incomplete: timed out after 600 s",
  );
  assert.equal(cells[names.indexOf("Total")].text, "—", "never a measurement");
  const plain = resultsTable(syntheticDocument()).rows[0].cells;
  assert.deepEqual(plain[names.indexOf("Total (estimate)")], {
    text: "—",
    value: null,
    key: "estimate.totalSeconds",
  });
  const log = cells[names.indexOf("Log")];
  assert.equal(log.href, "logs/redis-x4.log");
  assert.match(log.title!, /1 warnings, 2 errors/);
});

Deno.test("the dequeue-cost table: a row per driver and backlog", async () => {
  const document = await readDequeueCostDocument(
    new URL("../../../results/dequeue-cost/latest.json", import.meta.url)
      .pathname,
  );
  const table = dequeueCostTable(document);
  assert.equal(table.list, "points");
  assert.equal(table.rows.length, document.points.length);
  assert.deepEqual(table.filters, ["driver", "status"]);
  const ms = table.columns.findIndex((c) => c.name === "ms/dequeue");
  assert.equal(table.rows[0].cells[ms].value, document.points[0].msPerDequeue);
});

Deno.test("a crash suite's table has the Lost column", () => {
  const crashed = result("redis", 1, "incomplete", { lost: 3 });
  const table = resultsTable({ ...syntheticDocument(), results: [crashed] });
  const lost = table.columns.findIndex((c) => c.name === "Lost");
  assert.ok(lost > 0 && table.columns[lost].numeric);
  assert.deepEqual(table.rows[0].cells[lost], {
    text: "3",
    value: 3,
    key: "lost",
  });
  assert.equal(
    resultsTable(syntheticDocument()).columns.some((c) => c.name === "Lost"),
    false,
  );
});
