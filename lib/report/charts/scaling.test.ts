import assert from "node:assert/strict";
import { renderCharts } from "./mod.ts";
import {
  PARAMS,
  result,
  syntheticDocument,
} from "../../testing/chart_fixtures.ts";

Deno.test("renderCharts: the scaling chart draws a line per wrapper", async () => {
  const point = (
    parallelism: number,
    deliveriesPerSecond: number,
    parallelImpl?: "fedify" | "awaiting",
  ) =>
    result("redis", parallelism, "ok", {
      id: `redis-x${parallelism}-${parallelImpl ?? "none"}`,
      deliveriesPerSecond,
      ...(parallelImpl == null ? {} : { parallelImpl }),
    });
  const charts = await renderCharts({
    ...syntheticDocument(),
    params: { ...PARAMS, parallelImpl: ["fedify", "awaiting"] },
    results: [
      point(1, 100),
      point(2, 180, "fedify"),
      point(2, 150, "awaiting"),
      point(4, 300, "fedify"),
      point(4, 200, "awaiting"),
    ],
  });
  const scaling = charts.find((chart) => chart.name === "scaling");
  assert.ok(scaling != null);
  assert.ok(scaling.svg.includes("one line per driver and wrapper"));
  assert.ok(scaling.svg.includes("Driver and wrapper"));
  assert.ok(scaling.svg.includes("redis awaiting"), "its own line");
});
