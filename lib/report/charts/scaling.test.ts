import assert from "node:assert/strict";
import { renderCharts } from "./mod.ts";
import { chartContext } from "./context.ts";
import { OUTCOMES, scalingChart } from "./scaling.ts";
import { INK, PALETTE } from "./theme.ts";
import type {
  InboxProfile,
  ResultsDocument,
  Status,
} from "../../results/mod.ts";
import { INSTANT_INBOX } from "../../params/mod.ts";
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

/**
 * Three drivers at three levels of parallelism; `postgres ×16` was cut off.
 * Listed in an order that is not alphabetical, so that a scale sorted by name
 * would give other colours than the drivers' own.
 */
function sweep(): ResultsDocument {
  const run = (
    driver: string,
    parallelism: number,
    deliveriesPerSecond: number,
    status: Status = "ok",
  ) => result(driver, parallelism, status, { deliveriesPerSecond });
  return {
    ...syntheticDocument(),
    results: [
      run("redis", 1, 10),
      run("redis", 4, 35),
      run("redis", 16, 120),
      run("postgres", 1, 8),
      run("postgres", 4, 30),
      run("postgres", 16, 50, "incomplete"),
      run("amqp", 1, 5),
      run("amqp", 4, 18),
      run("amqp", 16, 60),
    ],
  };
}

/** The attributes of each SVG `<path>` whose role is `roledescription`. */
function paths(svg: string, roledescription: string) {
  const found: Record<string, string>[] = [];
  for (const [tag] of svg.matchAll(/<path\b[^>]*>/g)) {
    const attributes = Object.fromEntries(
      [...tag.matchAll(/([\w-]+)="([^"]*)"/g)].map(([, key, value]) => [
        key,
        value,
      ]),
    );
    if (attributes["aria-roledescription"] === roledescription) {
      found.push(attributes);
    }
  }
  return found;
}

/** The driver an SVG mark's description names. */
function driverOf(attributes: Record<string, string>): string {
  const match = /Driver(?: and wrapper)?: ([^;]+)/.exec(
    attributes["aria-label"] ?? "",
  );
  assert.ok(match != null, `a driver in ${attributes["aria-label"]}`);
  return match[1];
}

Deno.test("renderCharts: each scaling point has its line's colour, and only that", async () => {
  const charts = await renderCharts(sweep());
  const scaling = charts.find((chart) => chart.name === "scaling");
  assert.ok(scaling != null);
  const lineColor = new Map(
    paths(scaling.svg, "line mark").map((line) => [
      driverOf(line),
      line.stroke,
    ]),
  );
  assert.deepEqual(
    [...lineColor].sort(),
    [
      ["amqp", PALETTE[2]],
      ["postgres", PALETTE[1]],
      ["redis", PALETTE[0]],
    ],
  );
  const points = paths(scaling.svg, "point");
  assert.equal(points.length, 9);
  for (const point of points) {
    const color = lineColor.get(driverOf(point));
    assert.equal(point.fill, color, `${point["aria-label"]} filled`);
    assert.ok(
      point.stroke == null || point.stroke === color,
      `${point["aria-label"]} has no stroke of another colour`,
    );
  }
});

Deno.test("renderCharts: the scaling legend shows the finished and cut-off shapes", async () => {
  const charts = await renderCharts(sweep());
  const svg = charts.find((chart) => chart.name === "scaling")?.svg ?? "";
  // Each legend runs from its description to the next legend or the title.
  const legends = svg.split('aria-roledescription="legend"').slice(1)
    .map((part) => part.split("role-title")[0]);
  const legend = legends.find((part) => part.includes(`>${OUTCOMES[1]}<`));
  assert.ok(legend != null, "a legend of how runs ended");
  for (const outcome of OUTCOMES) {
    assert.ok(legend.includes(`>${outcome}</text>`), `${outcome} listed`);
  }
  const symbols = [
    ...legend.matchAll(/role-legend-symbol"[^>]*>\s*(<path\b[^>]*>)/g),
  ].map(([, path]) => path);
  assert.equal(symbols.length, OUTCOMES.length);
  for (const symbol of symbols) {
    assert.match(symbol, new RegExp(`fill="${INK}"`), `${symbol} is drawn`);
  }
});

Deno.test("scalingChart: points filled by the colour channel, shapes in the legend", () => {
  const chart = scalingChart(chartContext(sweep()));
  assert.ok(chart != null);
  const spec = chart.spec as unknown as {
    encoding: { color: { field: string; scale: { range: string[] } } };
    layer: {
      mark: { type: string; filled?: boolean };
      encoding?: Record<string, { legend?: Record<string, unknown> }>;
    }[];
  };
  assert.equal(spec.encoding.color.field, "driver");
  assert.deepEqual(spec.encoding.color.scale.range, PALETTE.slice(0, 3));
  const point = spec.layer.find((layer) => layer.mark.type === "point");
  assert.ok(point != null);
  assert.equal(point.mark.filled, true, "filled by the color channel");
  assert.deepEqual(
    Object.keys(point.encoding ?? {}),
    ["shape"],
    "no fill or stroke channel of another scale",
  );
  assert.equal(point.encoding?.shape.legend?.symbolFillColor, INK);
});

Deno.test("scalingChart: fewer than three levels give no chart", () => {
  const document = sweep();
  const twoLevels = document.results.filter((r) => r.parallelism < 16);
  assert.equal(
    scalingChart(chartContext({ ...document, results: twoLevels })),
    null,
  );
  assert.ok(scalingChart(chartContext(document)) != null);
});

Deno.test("scalingChart: the subtitle says how the inbox answered", () => {
  const noteWith = (inbox?: InboxProfile) => {
    const document = sweep();
    const chart = scalingChart(
      chartContext({ ...document, params: { ...document.params, inbox } }),
    );
    assert.ok(chart != null);
    return (chart.spec as unknown as { title: { subtitle: string[] } })
      .title.subtitle[1];
  };
  assert.equal(noteWith(), "inbox answers at once · one line per driver");
  assert.equal(
    noteWith({ ...INSTANT_INBOX, latency: { minMs: 100, maxMs: 100 } }),
    "inbox latency 100 ms · one line per driver",
  );
  assert.equal(
    noteWith({
      ...INSTANT_INBOX,
      latency: { minMs: 50, maxMs: 300 },
      errorRate: 0.02,
    }),
    "inbox latency 50–300 ms (uniform), 2.0% first attempts refused · " +
      "one line per driver",
  );
});
