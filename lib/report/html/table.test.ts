import assert from "node:assert/strict";
import { dequeueCostTable, resultsTable } from "./table.ts";
import { result, syntheticDocument } from "../../testing/chart_fixtures.ts";
import { readDequeueCostDocument } from "../../results/dequeue_cost.ts";

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
  assert.equal(
    postgres.cells[names.indexOf("Note")].text,
    "incomplete: incomplete on purpose",
  );
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
  assert.equal(
    cells[names.indexOf("Note")].text,
    "incomplete: timed out after 600 s; estimate, not a measurement: about " +
      "90.0 min in all (66.7 min–2.5 h), from the last minute's rate",
  );
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
