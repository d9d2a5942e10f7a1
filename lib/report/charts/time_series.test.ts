import assert from "node:assert/strict";
import { renderCharts } from "./mod.ts";
import {
  cumulativeChart,
  queueDepthChart,
  rateChart,
  timeSeriesChart,
} from "./time_series.ts";
import { chartContext } from "./context.ts";
import {
  PARAMS,
  result,
  syntheticDocument,
  timeline,
} from "../../testing/chart_fixtures.ts";
import type { Series } from "../../results/mod.ts";

Deno.test("renderCharts: long timelines are merged into wider buckets", async () => {
  const counts = Array.from({ length: 5000 }, (_, i) => i % 60 < 2 ? 300 : 0);
  const charts = await renderCharts({
    ...syntheticDocument(),
    params: { ...PARAMS, total: 25_000, recipients: 100 },
    results: [
      result("deno-kv", 1, "incomplete", { timeline: timeline(counts) }),
    ],
  });
  const rate = charts.find((chart) => chart.name === "deliveries-rate");
  assert.ok(rate != null);
  assert.ok(rate.svg.includes("mean over 10 s buckets"), "merged to 10 s");
  assert.ok(rate.svg.includes("Time since first send (min)"));
  for (const chart of charts) {
    assert.ok(chart.svg.length < 200_000, `${chart.name} stays small`);
  }
});

/** The parts of a Vega-Lite spec these tests read. */
interface Spec {
  readonly title: { readonly subtitle: string | readonly string[] };
  readonly data?: { readonly values: readonly Record<string, unknown>[] };
  readonly mark?: Readonly<Record<string, unknown>>;
  readonly encoding?: {
    readonly y?: { readonly field: string; readonly scale?: unknown };
    readonly color?: { readonly legend: { readonly values: string[] } };
  };
  readonly layer?: readonly Omit<Spec, "title">[];
}

/** The spec of a chart that must be there. */
function specOf(chart: { readonly spec: unknown } | null): Spec {
  assert.ok(chart != null, "a chart");
  return chart.spec as Spec;
}

/** The rows of one configuration's line. */
function line(spec: Omit<Spec, "title">, configuration: string) {
  return (spec.data?.values ?? []).filter((row) =>
    row.configuration === configuration
  );
}

Deno.test("timeSeriesChart: no configuration with the series gives no chart", () => {
  const context = chartContext(syntheticDocument());
  const asked: number[] = [];
  const chart = timeSeriesChart(context, {
    name: "nothing",
    title: "Nothing",
    yTitle: "Nothing (count)",
    mark: { type: "line" },
    series: (timeline) => {
      asked.push(timeline.deliveries.length);
      return [];
    },
    resample: () => assert.fail("nothing to resample"),
    note: () => "never shown",
  });
  assert.equal(chart, null);
  assert.deepEqual(asked, [5, 10, 3], "the configurations with timelines");
});

Deno.test("timeSeriesChart: a line per configuration with the series", () => {
  const context = chartContext(syntheticDocument());
  const resampled: Series[] = [];
  const chart = timeSeriesChart(context, {
    name: "some",
    title: "Some",
    yTitle: "Some (count)",
    mark: { type: "line" },
    series: (timeline) => timeline.queueDepth,
    resample: (series) => {
      resampled.push(series);
      return [[0, 1], [2, 3]];
    },
    note: () => "a note",
  });
  assert.equal(chart?.name, "some");
  assert.equal(chart?.title, "Some");
  assert.deepEqual(resampled, [[[0.5, 120], [4.5, 80], [9.5, 0]]]);
  const spec = specOf(chart);
  assert.deepEqual(spec.data?.values, [
    { configuration: "redis ×4", t: 0, value: 1 },
    { configuration: "redis ×4", t: 2, value: 3 },
  ]);
  assert.deepEqual(spec.title.subtitle, [context.subtitle, "a note"]);
  assert.deepEqual(spec.mark, { type: "line" });
  assert.equal(spec.layer, undefined, "one layer: no layer array");
  assert.deepEqual(spec.encoding?.color?.legend.values, ["redis ×4"]);
});

Deno.test("cumulativeChart: lines from zero under the expected total", () => {
  const spec = specOf(cumulativeChart(chartContext(syntheticDocument())));
  assert.equal(spec.layer?.length, 2);
  const [lines, expected] = spec.layer ?? [];
  assert.deepEqual(lines.mark, { type: "line", strokeWidth: 2, clip: true });
  assert.deepEqual(line(lines, "in-process")[0], {
    configuration: "in-process",
    t: 0,
    value: 0,
  });
  assert.equal(line(lines, "in-process").length, 6);
  assert.equal(line(lines, "amqp (failed)").length, 0);
  assert.deepEqual(expected.data?.values, [
    { expected: 200, text: "expected 200" },
  ]);
  const [rule] = expected.layer ?? [];
  assert.equal(rule.encoding?.y?.field, "expected");
  assert.deepEqual(rule.encoding?.y?.scale, lines.encoding?.y?.scale);
  assert.deepEqual(
    spec.title.subtitle.at(-1),
    "flat stretches: nothing arrived",
  );
});

Deno.test("rateChart: steps over each run's own buckets, closed at the end", () => {
  const spec = specOf(rateChart(chartContext(syntheticDocument())));
  assert.equal(spec.layer, undefined);
  assert.equal(spec.mark?.interpolate, "step-after");
  const inProcess = line(spec, "in-process");
  assert.equal(inProcess.length, 6);
  assert.deepEqual(inProcess.at(-1), {
    configuration: "in-process",
    t: 5,
    value: 30,
  });
  assert.equal(spec.title.subtitle.at(-1), "mean over 1 s buckets");
});

Deno.test("queueDepthChart: only configurations with samples", () => {
  const spec = specOf(queueDepthChart(chartContext(syntheticDocument())));
  assert.deepEqual(spec.data?.values, [
    { configuration: "redis ×4", t: 0.5, value: 120 },
    { configuration: "redis ×4", t: 4.5, value: 80 },
    { configuration: "redis ×4", t: 9.5, value: 0 },
  ]);
  assert.equal(spec.title.subtitle.at(-1), "sampled during the run");
});

Deno.test("past ten lines, every configuration's line differs in colour or dash", () => {
  const many = Array.from(
    { length: 19 },
    (_, i) => result(`driver${i}`, 1, "ok", { timeline: timeline([5, 5]) }),
  );
  const lines = (count: number) => {
    const chart = cumulativeChart(
      chartContext({ ...syntheticDocument(), results: many.slice(0, count) }),
    )!;
    const encoding = (chart.spec as unknown as {
      layer: {
        encoding: Record<
          string,
          { scale: { domain: string[]; range: unknown[] } }
        >;
      }[];
    }).layer[0].encoding;
    return { encoding, omitted: chart.omitted };
  };
  const { encoding } = lines(19);
  const { color, strokeDash } = encoding;
  assert.ok(strokeDash != null, "dashes past ten lines");
  const looks = color.scale.domain.map((_, i) =>
    JSON.stringify([color.scale.range[i], strokeDash.scale.range[i]])
  );
  assert.equal(new Set(looks).size, 19, looks.join(" "));
  assert.equal(lines(10).encoding.strokeDash, undefined, "ten: colour alone");
});

Deno.test("a chart names the configurations it leaves out, with why", () => {
  const context = chartContext({
    ...syntheticDocument(),
    results: [
      result("redis", 1, "ok", { timeline: timeline([5, 5]) }),
      result("postgres", 4, "incomplete", { reason: "timed out after 60 s" }),
      result("amqp", 1, "skipped", { reason: "not installed" }),
    ],
  });
  assert.deepEqual(cumulativeChart(context)!.omitted, [
    "postgres ×4 (incomplete: timed out after 60 s)",
  ]);
});
