import assert from "node:assert/strict";
import { compile, type TopLevelSpec } from "vega-lite";
import { HIDDEN, interactiveSpec, SHOWN, ZOOM } from "./interactive.ts";
import { chartSpecs } from "../charts/mod.ts";
import { syntheticDocument } from "../../testing/chart_fixtures.ts";
import { steadyDocument } from "../../testing/mod.ts";

Deno.test("every chart's interactive spec compiles, with the parameters it needs", () => {
  for (const document of [syntheticDocument(), steadyDocument()]) {
    for (const chart of chartSpecs(document)) {
      const before = JSON.stringify(chart.spec);
      const { spec, seriesField, shownField, zoom } = interactiveSpec(chart);
      assert.equal(
        JSON.stringify(chart.spec),
        before,
        "the input is unchanged",
      );
      const text = JSON.stringify(spec);
      assert.match(text, /"tooltip":true/, chart.name);
      assert.equal(text.includes(`"name":"${HIDDEN}"`), seriesField != null);
      assert.equal(text.includes(`"name":"${SHOWN}"`), shownField != null);
      assert.equal(text.includes(`"name":"${ZOOM}"`), zoom, chart.name);
      // Vega-Lite accepts it.
      compile(spec as unknown as TopLevelSpec);
    }
  }
});

Deno.test("a chart over time: its lines hide by legend and zoom along time", () => {
  const chart = chartSpecs(syntheticDocument())
    .find((c) => c.name === "cumulative")!;
  const result = interactiveSpec(chart);
  assert.equal(result.seriesField, "configuration");
  assert.equal(result.shownField, "configuration");
  assert.ok(result.zoom);
  const lines = (result.spec.layer as Record<string, unknown>[])[0];
  assert.deepEqual(lines.transform, [
    { filter: { not: { param: HIDDEN, empty: false } } },
    {
      filter: `!${SHOWN} || indexof(${SHOWN}, datum["configuration"]) >= 0`,
    },
  ]);
  assert.equal(
    (lines.mark as Record<string, unknown>).point,
    "transparent",
    "points for the tooltip",
  );
});
