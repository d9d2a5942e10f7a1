import assert from "node:assert/strict";
import { chartContext } from "./context.ts";
import { delayedBacklogChart } from "./delayed.ts";
import { renderCharts } from "./mod.ts";
import { ORDERING_BARS, orderingChart } from "./ordering_chart.ts";
import {
  featureDocument,
  syntheticDocument,
} from "../../testing/chart_fixtures.ts";

type Layer = { data: { values: Record<string, unknown>[] } };

/** The distinct values of `field` among rows. */
function distinct(rows: Record<string, unknown>[], field: string): string[] {
  return [...new Set(rows.map((row) => String(row[field])))].sort();
}

Deno.test("orderingChart: a bar per key and configuration, unhonoured keys apart", () => {
  const chart = orderingChart(chartContext(featureDocument()));
  assert.ok(chart != null);
  const rows = (chart.spec as unknown as Layer).data.values;
  assert.equal(rows.length, 4);
  assert.deepEqual(distinct(rows, "configuration"), ["in-process", "redis"]);
  assert.deepEqual(distinct(rows, "bar"), [
    "key, honoured",
    "key, not honoured",
    "no key",
  ]);
  const redisKeyed = rows.find((r) =>
    r.configuration === "redis" && r.bar !== "no key"
  );
  assert.equal(redisKeyed?.bar, "key, not honoured");
  assert.equal(redisKeyed?.violations, 5);
  assert.ok(Object.keys(ORDERING_BARS).length === 3);
  assert.equal(orderingChart(chartContext(syntheticDocument())), null);
});

Deno.test("delayedBacklogChart: a backlog line and a healthy-rate line per configuration", () => {
  const chart = delayedBacklogChart(chartContext(featureDocument()));
  assert.ok(chart != null);
  const [backlog, healthy] =
    (chart.spec as unknown as { layer: Layer[] }).layer;
  const labels = distinct(backlog.data.values, "configuration");
  assert.equal(labels.length, 4, "one backlog line per configuration");
  assert.deepEqual(distinct(healthy.data.values, "configuration"), labels);
  assert.equal(
    backlog.data.values.filter((r) => r.configuration === labels[0]).length,
    5,
    "every backlog sample kept",
  );
  assert.deepEqual(chart.omitted, []);
  assert.equal(delayedBacklogChart(chartContext(syntheticDocument())), null);
});

Deno.test("renderCharts draws the ordering and delayed-backlog charts", async () => {
  const names = (await renderCharts(featureDocument())).map((c) => c.name);
  assert.ok(names.includes("ordering"));
  assert.ok(names.includes("delayed-backlog"));
});
