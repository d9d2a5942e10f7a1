/**
 * SVG charts of a suite's results, rendered headless with Vega-Lite and Vega
 * (no browser, no canvas): send and receive times, cumulative deliveries,
 * latency percentiles, delivery rate and queue depth over time.
 *
 * @module
 */
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import { label } from "./label.ts";
import type {
  ConfigurationResult,
  Percentiles,
  ResultsDocument,
  Series,
} from "../results/types.ts";

/** One rendered chart. */
export interface Chart {
  /** File-name-safe name, e.g. `send-receive`. */
  readonly name: string;
  /** Human-readable title, e.g. `Send and receive time`. */
  readonly title: string;
  /** A standalone SVG document. */
  readonly svg: string;
}

/** Total width of every chart, in pixels. */
const WIDTH = 720;

/** Most points a series keeps before it is merged into wider buckets. */
const MAX_POINTS = 600;

/** Fonts named in the SVG; the widths below are Helvetica's (= Arial's). */
const FONT = "Helvetica, Arial, 'Liberation Sans', sans-serif";

/** Colours of the configurations, in document order. */
const PALETTE = [
  "#4c78a8",
  "#f58518",
  "#54a24b",
  "#e45756",
  "#72b7b2",
  "#b279a2",
  "#eeca3b",
  "#9d755d",
  "#ff9da6",
  "#7f7f7f",
  "#1f3b5c",
  "#8c4a00",
  "#2d5a27",
  "#8f1d1b",
  "#3e6e6a",
  "#6a3d62",
] as const;

/** Colours of the send and receive bars. */
/** Neutral, so as not to be read as configuration colours. */
const PHASE_COLORS = { Send: "#b0b0b0", Receive: "#4a5a78" } as const;

/** The percentiles of the latency chart, by field of {@link Percentiles}. */
const PERCENTILES: readonly (readonly [keyof Percentiles, string, string])[] = [
  ["p50", "p50", "#9ecae9"],
  ["p90", "p90", "#4c78a8"],
  ["p99", "p99", "#f58518"],
  ["p999", "p99.9", "#e45756"],
  ["max", "max", "#222222"],
];

const CONFIG = {
  background: "#ffffff",
  font: FONT,
  padding: 12,
  title: {
    fontSize: 16,
    fontWeight: "bold",
    anchor: "start",
    subtitleFontSize: 12,
    subtitleColor: "#555555",
    offset: 12,
  },
  axis: {
    labelFontSize: 12,
    titleFontSize: 13,
    titleFontWeight: "normal",
    titleColor: "#333333",
    labelColor: "#333333",
    gridColor: "#e8e8e8",
    domainColor: "#888888",
    tickColor: "#888888",
    labelLimit: 260,
  },
  legend: {
    labelFontSize: 12,
    titleFontSize: 12,
    titleFontWeight: "normal",
    labelLimit: 320,
    orient: "bottom",
    direction: "horizontal",
    columns: 3,
    columnPadding: 16,
    symbolStrokeWidth: 3,
  },
  view: { stroke: null },
} as const;

/**
 * Renders every chart that the document has data for, in a fixed order:
 * `send-receive`, `cumulative`, `latency`, `deliveries-rate`, `queue-depth`,
 * `scaling`.
 * The same document always gives the same SVG text.
 */
export async function renderCharts(
  document: ResultsDocument,
): Promise<Chart[]> {
  const context = chartContext(document);
  const specs = [
    sendReceiveChart(context),
    cumulativeChart(context),
    latencyChart(context),
    rateChart(context),
    queueDepthChart(context),
    scalingChart(context),
  ].filter((chart) => chart != null);
  // Vega keeps global state (text metrics, SVG ids): one render at a time.
  const turn = queue.then(async () => {
    const charts: Chart[] = [];
    const vegaWidth = textMetrics.width;
    textMetrics.width = textWidth;
    try {
      for (const chart of specs) {
        charts.push({
          name: chart.name,
          title: chart.title,
          svg: await toSvg(chart.spec),
        });
      }
    } finally {
      textMetrics.width = vegaWidth;
    }
    return charts;
  });
  queue = turn.catch(() => {});
  return await turn;
}

/** The end of the last render under way; see {@link renderCharts}. */
let queue: Promise<unknown> = Promise.resolve();

/** A text item as Vega's text measurement sees it. */
interface TextItem {
  readonly fontSize?: number;
  readonly fontWeight?: string | number;
  readonly limit?: number;
}

/**
 * Vega's text measurement (exported by vega-scenegraph, missing from Vega's
 * type definitions).  Vega documents replacing `width` for renderers without
 * a canvas.
 */
const textMetrics = (vega as unknown as {
  textMetrics: { width: (item: TextItem, text?: unknown) => number };
}).textMetrics;

interface ChartSpec {
  readonly name: string;
  readonly title: string;
  readonly spec: TopLevelSpec;
}

interface Context {
  readonly document: ResultsDocument;
  /** Configurations with a display label, in document order. */
  readonly entries: readonly Entry[];
  /** Every label that may get a colour, and its colour. */
  readonly colors: { readonly domain: string[]; readonly range: string[] };
  /** How time axes count. */
  readonly time: TimeUnit;
  readonly subtitle: string;
}

interface Entry {
  readonly result: ConfigurationResult;
  /** `redis ×4`, plus `(incomplete)` when not `ok`. */
  readonly label: string;
}

interface TimeUnit {
  readonly name: string;
  readonly seconds: number;
  /** Width of the buckets long series are merged into, seconds. */
  readonly bucketSeconds: number;
  /** The end of the longest timeline, seconds. */
  readonly end: number;
}

function chartContext(document: ResultsDocument): Context {
  const entries = document.results.map((result) => ({
    result,
    label: result.status === "ok"
      ? label(result)
      : `${label(result)} (${result.status})`,
  }));
  const colored = entries.filter(({ result }) =>
    result.status !== "skipped" && result.status !== "failed" ||
    result.timeline != null || result.latencyMs != null
  );
  const domain = colored.map((entry) => entry.label);
  const range = domain.map((_, i) => PALETTE[i % PALETTE.length]);
  const { params } = document;
  const integer = new Intl.NumberFormat("en-US");
  const subtitle = `${integer.format(params.total)} activities × ${
    integer.format(params.recipients)
  } recipients = ${
    integer.format(params.total * params.recipients)
  } deliveries · RSA-${params.rsaBits} · fanout ${params.fanout}`;
  return {
    document,
    entries,
    colors: { domain, range },
    time: timeUnit(entries),
    subtitle,
  };
}

function timeUnit(entries: readonly Entry[]): TimeUnit {
  let end = 0;
  let bucket = 0;
  for (const { result } of entries) {
    const timeline = result.timeline;
    if (timeline == null) continue;
    bucket = Math.max(bucket, timeline.bucketSeconds);
    // Deliveries count from bucket starts; the other series are points.
    const rate = timeline.deliveries.at(-1);
    if (rate != null) end = Math.max(end, rate[0] + timeline.bucketSeconds);
    for (const series of [timeline.cumulative, timeline.queueDepth]) {
      const last = series.at(-1);
      if (last != null) end = Math.max(end, last[0]);
    }
  }
  const nice = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];
  const wanted = Math.max(bucket, end / MAX_POINTS);
  const bucketSeconds = bucket > 0 && wanted <= bucket
    ? bucket
    : nice.find((width) => width >= wanted) ?? Math.ceil(wanted / 3600) * 3600;
  if (end > 3 * 3600) return { name: "h", seconds: 3600, bucketSeconds, end };
  if (end > 600) return { name: "min", seconds: 60, bucketSeconds, end };
  return { name: "s", seconds: 1, bucketSeconds, end };
}

/** (a) Send and receive seconds of the `ok` configurations. */
function sendReceiveChart(context: Context): ChartSpec | null {
  const rows: Record<string, string | number | null>[] = [];
  for (const { result, label } of context.entries) {
    if (result.status !== "ok") continue;
    for (
      const [phase, key] of [["Send", "sendSeconds"], [
        "Receive",
        "receiveSeconds",
      ]] as const
    ) {
      const seconds = result[key];
      if (seconds == null) continue;
      const spread = result.spread?.[key];
      const hasSpread = spread != null && spread.max > spread.min;
      rows.push({
        configuration: label,
        phase,
        seconds,
        min: hasSpread ? spread.min : null,
        max: hasSpread ? spread.max : null,
        textAt: hasSpread ? Math.max(seconds, spread.max) : seconds,
        text: hasSpread
          ? `${short(seconds)} s (${short(spread.min)}–${short(spread.max)})`
          : `${short(seconds)} s`,
      });
    }
  }
  if (rows.length === 0) return null;
  const order = unique(rows.map((row) => String(row.configuration)));
  const hasSpread = rows.some((row) => row.min != null);
  // Leave room right of the longest bar for its value.
  const plot = WIDTH - 60 -
    Math.max(...order.map((text) => textWidth({ fontSize: 13 }, text)));
  const xMax = Math.max(
    ...rows.map((row) =>
      Number(row.textAt) /
      Math.max(0.3, 1 - (textWidth({ fontSize: 11 }, row.text) + 16) / plot)
    ),
  );
  const y = {
    field: "configuration",
    type: "nominal",
    sort: order,
    title: null,
    axis: { labelFontSize: 13, ticks: false, domain: false },
  } as const;
  const x = (field: string) => ({
    field,
    type: "quantitative",
    title: "Time (s)",
    axis: { format: ",~r", grid: true },
    scale: { domain: [0, xMax], nice: true },
  });
  const yOffset = {
    field: "phase",
    type: "nominal" as const,
    sort: ["Send", "Receive"],
  };
  const spec = {
    ...frame(
      context,
      "Send and receive time",
      "send: the sendActivity loop · receive: first to last delivery" +
        (hasSpread ? " · whiskers: fastest to slowest run" : ""),
    ),
    autosize: { type: "fit-x", contains: "padding" },
    height: 52 * order.length,
    data: { values: rows },
    encoding: { y, yOffset },
    layer: [
      {
        mark: { type: "bar", height: { band: 0.9 } },
        encoding: {
          x: x("seconds"),
          color: {
            field: "phase",
            type: "nominal",
            title: null,
            scale: {
              domain: Object.keys(PHASE_COLORS),
              range: Object.values(PHASE_COLORS),
            },
            legend: { orient: "top", direction: "horizontal", columns: 2 },
          },
        },
      },
      ...(hasSpread
        ? [
          {
            mark: { type: "rule", color: "#222222", strokeWidth: 1.5 },
            encoding: {
              x: x("min"),
              x2: { field: "max" },
            },
          },
          {
            mark: { type: "tick", color: "#222222", thickness: 1.5, size: 10 },
            encoding: {
              x: x("min"),
            },
          },
          {
            mark: { type: "tick", color: "#222222", thickness: 1.5, size: 10 },
            encoding: {
              x: x("max"),
            },
          },
        ]
        : []),
      {
        mark: {
          type: "text",
          align: "left",
          baseline: "middle",
          dx: 5,
          fontSize: 11,
          color: "#333333",
        },
        encoding: {
          x: x("textAt"),
          text: { field: "text" },
        },
      },
    ],
  };
  return {
    name: "send-receive",
    title: "Send and receive time",
    spec: spec as TopLevelSpec,
  };
}

/** (b) Distinct deliveries so far, over time. */
function cumulativeChart(context: Context): ChartSpec | null {
  const { time } = context;
  const rows: Record<string, string | number>[] = [];
  for (const { result, label } of context.entries) {
    const series = result.timeline?.cumulative;
    if (series == null || series.length === 0) continue;
    const points = series[0][0] > 0 || series[0][1] !== 0
      ? [[0, 0] as [number, number], ...series]
      : series;
    const dense = holdFlat(points, result.timeline?.bucketSeconds ?? 1);
    for (const [t, value] of lastPerBucket(dense, time.bucketSeconds)) {
      rows.push({ configuration: label, t: t / time.seconds, value });
    }
  }
  if (rows.length === 0) return null;
  const expected = context.document.params.total *
    context.document.params.recipients;
  const y = (field: string) => ({
    field,
    type: "quantitative",
    title: "Distinct deliveries (count)",
    axis: { format: ",~r" },
    scale: { domain: [0, expected * 1.04], nice: false },
  });
  const spec = {
    ...frame(
      context,
      "Cumulative deliveries",
      "flat stretches: nothing arrived",
    ),
    ...fitted(),
    layer: [
      {
        data: { values: rows },
        mark: { type: "line", strokeWidth: 2, clip: true },
        encoding: {
          x: timeAxis(context),
          y: y("value"),
          color: configurationColor(context, rows),
        },
      },
      {
        data: {
          values: [{ expected, text: `expected ${fixed(expected, 0)}` }],
        },
        layer: [
          {
            mark: { type: "rule", strokeDash: [6, 4], color: "#666666" },
            encoding: {
              y: y("expected"),
            },
          },
          {
            mark: {
              type: "text",
              align: "left",
              baseline: "bottom",
              x: 4,
              dy: -3,
              fontSize: 11,
              color: "#555555",
            },
            encoding: {
              y: y("expected"),
              text: { field: "text" },
            },
          },
        ],
      },
    ],
  };
  return {
    name: "cumulative",
    title: "Cumulative deliveries",
    spec: spec as TopLevelSpec,
  };
}

/** (c) Latency percentiles per configuration, on a log scale. */
function latencyChart(context: Context): ChartSpec | null {
  const rows: Record<string, string | number>[] = [];
  const ranges: Record<string, string | number>[] = [];
  for (const { result, label } of context.entries) {
    const latency = result.latencyMs;
    if (latency == null) continue;
    const values = PERCENTILES
      .map(([key, name]) => ({ name, seconds: latency[key] / 1000 }))
      .filter(({ seconds }) => Number.isFinite(seconds) && seconds > 0);
    if (values.length === 0) continue;
    for (const { name, seconds } of values) {
      rows.push({ configuration: label, percentile: name, seconds });
    }
    ranges.push({
      configuration: label,
      low: Math.min(...values.map(({ seconds }) => seconds)),
      high: Math.max(...values.map(({ seconds }) => seconds)),
    });
  }
  if (rows.length === 0) return null;
  const order = unique(rows.map((row) => String(row.configuration)));
  const y = {
    field: "configuration",
    type: "nominal" as const,
    sort: order,
    title: null,
    axis: {
      labelFontSize: 13,
      ticks: false,
      domain: false,
      grid: true,
      gridDash: [2, 3],
    },
  };
  const all = rows.map((row) => Number(row.seconds));
  const decades: number[] = [];
  for (
    let power = Math.floor(Math.log10(Math.min(...all)));
    power <= Math.ceil(Math.log10(Math.max(...all)));
    power++
  ) {
    decades.push(Number(`1e${power}`));
  }
  const x = {
    type: "quantitative" as const,
    title: "Latency from sendActivity call to inbox arrival (s, log scale)",
    scale: {
      type: "log" as const,
      domain: [decades[0], decades[decades.length - 1]],
    },
    axis: { format: ",~g", grid: true, values: decades },
  };
  const spec = {
    ...frame(context, "Delivery latency percentiles"),
    autosize: { type: "fit-x", contains: "padding" },
    height: 40 * order.length,
    layer: [
      {
        data: { values: ranges },
        mark: { type: "rule", color: "#bbbbbb", strokeWidth: 2 },
        encoding: {
          y,
          x: { ...x, field: "low" },
          x2: { field: "high" },
        },
      },
      {
        data: { values: rows },
        mark: { type: "point", filled: true, size: 90, opacity: 1 },
        encoding: {
          y,
          x: { ...x, field: "seconds" },
          color: {
            field: "percentile",
            type: "nominal",
            title: "Percentile",
            scale: {
              domain: PERCENTILES.map(([, name]) => name),
              range: PERCENTILES.map(([, , color]) => color),
            },
            legend: { orient: "top", columns: PERCENTILES.length },
          },
          shape: {
            field: "percentile",
            type: "nominal",
            scale: {
              domain: PERCENTILES.map(([, name]) => name),
              range: ["circle", "square", "triangle-up", "diamond", "cross"],
            },
          },
        },
      },
    ],
  };
  return {
    name: "latency",
    title: "Delivery latency percentiles",
    spec: spec as TopLevelSpec,
  };
}

/** (d) Distinct deliveries per second over time. */
function rateChart(context: Context): ChartSpec | null {
  const { time } = context;
  const rows: Record<string, string | number>[] = [];
  const widths = new Set<number>();
  for (const { result, label } of context.entries) {
    const timeline = result.timeline;
    if (timeline == null || timeline.deliveries.length === 0) continue;
    // Each run keeps its own buckets unless it has too many of them.
    const width = timeline.deliveries.length > MAX_POINTS
      ? Math.max(time.bucketSeconds, timeline.bucketSeconds)
      : timeline.bucketSeconds;
    widths.add(width);
    const points = width > timeline.bucketSeconds
      ? meanPerBucket(timeline.deliveries, timeline.bucketSeconds, width)
      : closeLastStep(timeline.deliveries, width);
    for (const [t, value] of points) {
      rows.push({ configuration: label, t: t / time.seconds, value });
    }
  }
  if (rows.length === 0) return null;
  const sorted = [...widths].sort((a, b) => a - b);
  const spec = {
    ...frame(
      context,
      "Deliveries per second",
      sorted.length === 1
        ? `mean over ${duration(sorted[0])} buckets`
        : `mean per bucket; each run has its own bucket width, ${
          duration(sorted[0])
        } to ${duration(sorted[sorted.length - 1])}`,
    ),
    ...fitted(),
    data: { values: rows },
    mark: {
      type: "line",
      interpolate: "step-after",
      strokeWidth: 1.5,
      opacity: 0.9,
      clip: true,
    },
    encoding: {
      x: timeAxis(context),
      y: {
        field: "value",
        type: "quantitative",
        title: "Distinct deliveries per second (1/s)",
        axis: { format: ",~r" },
      },
      color: configurationColor(context, rows),
    },
  };
  return {
    name: "deliveries-rate",
    title: "Deliveries per second",
    spec: spec as TopLevelSpec,
  };
}

/** (e) Messages waiting in the queue over time. */
function queueDepthChart(context: Context): ChartSpec | null {
  const { time } = context;
  const rows: Record<string, string | number>[] = [];
  let merged = false;
  for (const { result, label } of context.entries) {
    const series = result.timeline?.queueDepth;
    if (series == null || series.length === 0) continue;
    const points = maxPerBucket(series, time.bucketSeconds);
    merged ||= points !== series;
    for (const [t, value] of points) {
      rows.push({ configuration: label, t: t / time.seconds, value });
    }
  }
  if (rows.length === 0) return null;
  const spec = {
    ...frame(
      context,
      "Queue depth",
      merged
        ? `sampled during the run; peak per ${duration(time.bucketSeconds)}`
        : "sampled during the run",
    ),
    ...fitted(),
    data: { values: rows },
    mark: { type: "line", strokeWidth: 1.5, clip: true },
    encoding: {
      x: timeAxis(context),
      y: {
        field: "value",
        type: "quantitative",
        title: "Messages waiting in the queue (count)",
        axis: { format: ",~r" },
      },
      color: configurationColor(context, rows),
    },
  };
  return {
    name: "queue-depth",
    title: "Queue depth",
    spec: spec as TopLevelSpec,
  };
}

/**
 * (f) Throughput against parallelism, one line per driver and parallel
 * wrapper (`redis`, `redis awaiting`): where does each stop gaining?  Only
 * for suites that sweep three or more levels.  Runs that did not finish are
 * drawn with their rate so far, as hollow points.  Parallelism 1 runs no
 * wrapper, so its point starts the line of each wrapper its driver ran with.
 */
function scalingChart(context: Context): ChartSpec | null {
  const levels = unique(
    context.entries.map(({ result }) => String(result.parallelism)),
  );
  if (levels.length < 3) return null;
  const implsOf = new Map<string, string[]>();
  for (const { result } of context.entries) {
    if (result.parallelImpl == null) continue;
    const impls = implsOf.get(result.driver) ?? [];
    if (!impls.includes(result.parallelImpl)) impls.push(result.parallelImpl);
    implsOf.set(result.driver, impls);
  }
  const wrapped = [...implsOf.values()].flat().some((i) => i !== "fedify");
  const rows: Record<string, string | number>[] = [];
  for (const { result } of context.entries) {
    if (result.deliveriesPerSecond == null) continue;
    if (result.status !== "ok" && result.status !== "incomplete") continue;
    const wrappers = result.parallelImpl != null
      ? [result.parallelImpl]
      : implsOf.get(result.driver) ?? [undefined];
    for (const parallelImpl of wrappers) {
      rows.push({
        driver: label({ driver: result.driver, parallelism: 1, parallelImpl }),
        parallelism: result.parallelism,
        rate: result.deliveriesPerSecond,
        finished: result.status === "ok" ? "finished" : "cut off (rate so far)",
      });
    }
  }
  const drivers = unique(rows.map((row) => String(row.driver)));
  if (rows.length === 0 || drivers.length === 0) return null;
  const inbox = context.document.params.inbox;
  const latency = inbox?.latency == null
    ? "inbox answers at once"
    : inbox.latency.minMs === inbox.latency.maxMs
    ? `inbox latency ${inbox.latency.minMs} ms`
    : `inbox latency ${inbox.latency.minMs}–${inbox.latency.maxMs} ms (uniform)`;
  const errors = inbox != null && inbox.errorRate > 0
    ? `, ${fixed(inbox.errorRate * 100, 1)}% first attempts refused`
    : "";
  const spec = {
    ...frame(
      context,
      "Throughput by parallelism",
      `${latency}${errors} · one line per driver${
        wrapped ? " and wrapper" : ""
      }`,
    ),
    ...fitted(),
    data: { values: rows },
    encoding: {
      x: {
        field: "parallelism",
        type: "quantitative",
        title: "ParallelMessageQueue workers (log scale)",
        scale: { type: "log", base: 2 },
        axis: { values: levels.map(Number), format: "d" },
      },
      y: {
        field: "rate",
        type: "quantitative",
        title: "Distinct deliveries per second (1/s)",
        axis: { format: ",~r" },
      },
      color: {
        field: "driver",
        type: "nominal",
        title: wrapped ? "Driver and wrapper" : "Driver",
        scale: {
          domain: drivers,
          range: drivers.map((_, i) => PALETTE[i % PALETTE.length]),
        },
      },
    },
    layer: [
      { mark: { type: "line", strokeWidth: 1.5 } },
      {
        mark: { type: "point", size: 60, strokeWidth: 1.5 },
        encoding: {
          shape: {
            field: "finished",
            type: "nominal",
            title: null,
            scale: {
              domain: ["finished", "cut off (rate so far)"],
              range: ["circle", "triangle-down"],
            },
          },
          fill: {
            condition: {
              test: "datum.finished === 'finished'",
              field: "driver",
              type: "nominal",
            },
            value: "white",
          },
        },
      },
    ],
  };
  return {
    name: "scaling",
    title: "Throughput by parallelism",
    spec: spec as TopLevelSpec,
  };
}

function frame(context: Context, title: string, note = "") {
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    description: title,
    config: CONFIG,
    width: WIDTH,
    title: {
      text: title,
      subtitle: note === "" ? context.subtitle : [context.subtitle, note],
    },
  };
}

function fitted() {
  return {
    autosize: { type: "fit-x", contains: "padding" },
    height: 320,
  };
}

function timeAxis(context: Context) {
  return {
    field: "t",
    type: "quantitative",
    title: `Time since first send (${context.time.name})`,
    axis: { format: ",~r", grid: true },
    scale: { domain: [0, context.time.end / context.time.seconds], nice: true },
  };
}

function configurationColor(
  context: Context,
  rows: readonly Record<string, string | number>[],
) {
  const present = new Set(rows.map((row) => row.configuration));
  const values = context.colors.domain.filter((value) => present.has(value));
  return {
    field: "configuration",
    type: "nominal",
    title: null,
    scale: context.colors,
    legend: {
      values,
      symbolType: "stroke",
      description: `Configurations: ${values.join(", ")}`,
    },
  };
}

/**
 * Adds a point one bucket before each later point that follows a gap, at the
 * earlier value, so that straight lines stay flat while nothing arrives.
 */
function holdFlat(series: Series, bucket: number): Series {
  const out: Series = [];
  for (const point of series) {
    const previous = out.at(-1);
    if (previous != null && point[0] - previous[0] > bucket * 1.5) {
      out.push([point[0] - bucket, previous[1]]);
    }
    out.push(point);
  }
  return out;
}

/** Keeps the last point of each `width`-second bucket (plus the first). */
function lastPerBucket(series: Series, width: number): Series {
  if (series.length <= MAX_POINTS) return series;
  const out: Series = [series[0]];
  for (let i = 1; i < series.length; i++) {
    const next = series[i + 1];
    if (
      next == null ||
      Math.floor(next[0] / width) !== Math.floor(series[i][0] / width)
    ) {
      out.push(series[i]);
    }
  }
  return out;
}

/** The largest value in each `width`-second bucket, at the bucket start. */
function maxPerBucket(series: Series, width: number): Series {
  if (series.length <= MAX_POINTS) return series;
  const buckets = new Map<number, number>();
  for (const [t, value] of series) {
    const start = Math.floor(t / width) * width;
    buckets.set(start, Math.max(buckets.get(start) ?? -Infinity, value));
  }
  return [...buckets].sort((a, b) => a[0] - b[0]);
}

/** Repeats the last value one bucket later, to draw the last step. */
function closeLastStep(series: Series, width: number): Series {
  const last = series.at(-1);
  return last == null ? series : [...series, [last[0] + width, last[1]]];
}

/**
 * Merges per-second rates of `from`-second buckets into mean rates of
 * `to`-second buckets, dividing by the time each bucket covers (the last one
 * may be partial).  Buckets missing inside the series count as zero.
 */
function meanPerBucket(series: Series, from: number, to: number): Series {
  const end = (series.at(-1)?.[0] ?? 0) + from;
  const sums = new Map<number, number>();
  for (const [t, rate] of series) {
    const start = Math.floor(t / to) * to;
    sums.set(start, (sums.get(start) ?? 0) + rate * from);
  }
  const out: Series = [];
  for (let start = 0; start < end; start += to) {
    const covered = Math.min(to, end - start);
    out.push([start, (sums.get(start) ?? 0) / covered]);
  }
  // Close the last step at the end of the series.
  const last = out.at(-1);
  if (last != null) out.push([end, last[1]]);
  return out;
}

async function toSvg(spec: TopLevelSpec): Promise<string> {
  const compiled = compile(spec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: "none" });
  try {
    vega.resetSVGDefIds();
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function fixed(value: number, digits = 2): string {
  return value.toLocaleString("en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

/** Three significant digits at most, and no more than two decimals. */
function short(value: number): string {
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return fixed(value, digits);
}

function duration(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/**
 * Helvetica's advance widths (1/1000 em) of the printable ASCII characters,
 * from space (32) to tilde (126); Arial and Liberation Sans share them.
 */
const HELVETICA = [
  278,
  278,
  355,
  556,
  556,
  889,
  667,
  191,
  333,
  333,
  389,
  584,
  278,
  333,
  278,
  278,
  556,
  556,
  556,
  556,
  556,
  556,
  556,
  556,
  556,
  556,
  278,
  278,
  584,
  584,
  584,
  556,
  1015,
  667,
  667,
  722,
  722,
  667,
  611,
  778,
  722,
  278,
  500,
  667,
  556,
  833,
  722,
  778,
  667,
  778,
  722,
  667,
  611,
  722,
  667,
  944,
  667,
  667,
  611,
  278,
  278,
  278,
  469,
  556,
  333,
  556,
  556,
  500,
  556,
  556,
  278,
  556,
  556,
  222,
  222,
  500,
  222,
  833,
  556,
  556,
  556,
  556,
  333,
  500,
  278,
  556,
  500,
  722,
  500,
  500,
  500,
  334,
  260,
  334,
  584,
];

const OTHER_WIDTHS: Readonly<Record<string, number>> = {
  "×": 584,
  "–": 556,
  "—": 1000,
  "·": 278,
  "…": 1000,
  "→": 1000,
  "µ": 556,
};

/**
 * Text width for Vega's layout without a canvas: Helvetica's metrics instead
 * of Vega's rough estimate (0.8 em per character), so that legends and
 * labels are spaced as they will be drawn.
 */
function textWidth(item: TextItem, text?: unknown): number {
  const value = text == null ? "" : String(text).trim();
  const size = item.fontSize != null ? Number(item.fontSize) || 0 : 11;
  const bold = item.fontWeight === "bold" || Number(item.fontWeight) >= 600;
  let units = 0;
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    units += code >= 32 && code <= 126
      ? HELVETICA[code - 32]
      : OTHER_WIDTHS[char] ?? (code >= 0x2e80 ? 1000 : 556);
  }
  // 5% to spare for fonts wider than Helvetica.
  const width = units / 1000 * size * (bold ? 1.07 : 1) * 1.05;
  const limit = Number(item.limit);
  return limit > 0 ? Math.min(width, limit) : width;
}
