/**
 * The charts over time, one line per configuration on a shared time axis:
 * cumulative deliveries, deliveries per second and queue depth.  Each says
 * only how to get a configuration's line and how to label it;
 * {@link timeSeriesChart} does the rest the same way for all three.
 *
 * @module
 */
import type { TopLevelSpec } from "vega-lite";
import { type ChartSpec, type Context, omittedNote } from "./context.ts";
import { duration, fixed } from "./format.ts";
import {
  closeLastStep,
  holdFlat,
  lastPerBucket,
  MAX_POINTS,
  maxPerBucket,
  meanPerBucket,
} from "./resample.ts";
import {
  fitted,
  frame,
  legendColumns,
  MAX_PLAIN_SERIES,
  RULE_LABEL_MARK,
} from "./theme.ts";
import type { Series, Timeline } from "../../results/mod.ts";

/** One point of one configuration's line, `t` in the context's time unit. */
type Row = Record<string, string | number>;

/** A chart of one line per configuration over time. */
export interface TimeSeries {
  /** File-name-safe name, e.g. `queue-depth`. */
  readonly name: string;
  /** Human-readable title, e.g. `Queue depth`. */
  readonly title: string;
  /** The y axis's title. */
  readonly yTitle: string;
  /** The lines' mark: `line`, and how it is drawn. */
  readonly mark: object;
  /** The series of a timeline this chart draws; an empty one draws no line. */
  readonly series: (timeline: Timeline) => Series;
  /**
   * The line drawn for a series that is not empty, `[seconds, value]`
   * points.  Called once per such series, in document order, before
   * {@link note}.
   */
  readonly resample: (series: Series, timeline: Timeline) => Series;
  /** The note under the subtitle, once every line is known. */
  readonly note: () => string;
  /** The y scale, when the axis should not just fit the lines. */
  readonly yScale?: object;
  /** Layers drawn over the lines, given the y encoding of a field. */
  readonly overlay?: (y: (field: string) => object) => object[];
}

/**
 * Draws a {@link TimeSeries}: a line per configuration whose timeline has the
 * series, coloured as everywhere else, over the suite's time axis; null when
 * no configuration has it.
 */
export function timeSeriesChart(
  context: Context,
  chart: TimeSeries,
): ChartSpec | null {
  const { time } = context;
  const rows: Row[] = [];
  const omitted: string[] = [];
  for (const { result, label } of context.entries) {
    const { timeline } = result;
    const series = timeline == null ? [] : chart.series(timeline);
    if (timeline == null || series.length === 0) {
      if (result.status !== "skipped") omitted.push(omittedNote(result));
      continue;
    }
    for (const [t, value] of chart.resample(series, timeline)) {
      rows.push({ configuration: label, t: t / time.seconds, value });
    }
  }
  if (rows.length === 0) return null;
  const y = (field: string) => ({
    field,
    type: "quantitative",
    title: chart.yTitle,
    axis: { format: ",~r" },
    ...(chart.yScale == null ? {} : { scale: chart.yScale }),
  });
  const lines = {
    data: { values: rows },
    mark: chart.mark,
    encoding: {
      x: timeAxis(context),
      y: y("value"),
      ...configurationStyle(context, rows),
    },
  };
  const spec = {
    ...frame(context, chart.title, chart.note()),
    ...fitted(),
    ...(chart.overlay == null
      ? lines
      : { layer: [lines, ...chart.overlay(y)] }),
  };
  return {
    name: chart.name,
    title: chart.title,
    spec: spec as TopLevelSpec,
    omitted,
  };
}

/** (b) Distinct deliveries so far, over time, with the expected total. */
export function cumulativeChart(context: Context): ChartSpec | null {
  const { time } = context;
  const expected = context.document.params.total *
    context.document.params.recipients;
  return timeSeriesChart(context, {
    name: "cumulative",
    title: "Cumulative deliveries",
    yTitle: "Distinct deliveries (count)",
    mark: { type: "line", strokeWidth: 2, clip: true },
    series: (timeline) => timeline.cumulative,
    resample: (series, timeline) => {
      const points = series[0][0] > 0 || series[0][1] !== 0
        ? [[0, 0] as [number, number], ...series]
        : series;
      const dense = holdFlat(points, timeline.bucketSeconds);
      return lastPerBucket(dense, time.bucketSeconds);
    },
    note: () => "flat stretches: nothing arrived",
    yScale: { domain: [0, expected * 1.04], nice: false },
    overlay: (y) => [
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
            mark: RULE_LABEL_MARK,
            encoding: {
              y: y("expected"),
              text: { field: "text" },
            },
          },
        ],
      },
    ],
  });
}

/**
 * (d) Distinct deliveries per second over time, as steps over each run's own
 * buckets unless it has more than {@link MAX_POINTS} of them.
 */
export function rateChart(context: Context): ChartSpec | null {
  const { time } = context;
  const widths = new Set<number>();
  return timeSeriesChart(context, {
    name: "deliveries-rate",
    title: "Deliveries per second",
    yTitle: "Distinct deliveries per second (1/s)",
    mark: {
      type: "line",
      interpolate: "step-after",
      strokeWidth: 1.5,
      opacity: 0.9,
      clip: true,
    },
    series: (timeline) => timeline.deliveries,
    resample: (series, timeline) => {
      // Each run keeps its own buckets unless it has too many of them.
      const width = series.length > MAX_POINTS
        ? Math.max(time.bucketSeconds, timeline.bucketSeconds)
        : timeline.bucketSeconds;
      widths.add(width);
      return width > timeline.bucketSeconds
        ? meanPerBucket(series, timeline.bucketSeconds, width)
        : closeLastStep(series, width);
    },
    note: () => {
      const sorted = [...widths].sort((a, b) => a - b);
      return sorted.length === 1
        ? `mean over ${duration(sorted[0])} buckets`
        : `mean per bucket; each run has its own bucket width, ${
          duration(sorted[0])
        } to ${duration(sorted[sorted.length - 1])}`;
    },
  });
}

/** (e) Messages waiting in the queue over time, as sampled. */
export function queueDepthChart(context: Context): ChartSpec | null {
  const { time } = context;
  let merged = false;
  return timeSeriesChart(context, {
    name: "queue-depth",
    title: "Queue depth",
    yTitle: "Messages waiting in the queue (count)",
    mark: { type: "line", strokeWidth: 1.5, clip: true },
    series: (timeline) => timeline.queueDepth,
    resample: (series) => {
      const points = maxPerBucket(series, time.bucketSeconds);
      merged ||= points !== series;
      return points;
    },
    note: () =>
      merged
        ? `sampled during the run; peak per ${duration(time.bucketSeconds)}`
        : "sampled during the run",
  });
}

/** The x encoding of the charts over time, in the context's time unit. */
export function timeAxis(context: Context) {
  return {
    field: "t",
    type: "quantitative",
    title: `Time since first send (${context.time.name})`,
    // At most a dozen labels: more crowd the 720-pixel axis.
    axis: { format: ",~r", grid: true, tickCount: 12, labelOverlap: true },
    scale: { domain: [0, context.time.end / context.time.seconds], nice: true },
  };
}

/**
 * The colour encoding of lines per configuration: every configuration keeps
 * its colour across charts, and the legend lists only those drawn here.
 * Past {@link MAX_PLAIN_SERIES} lines, dashes too (colours would repeat or
 * come too close), in the same legend.
 */
export function configurationStyle(
  context: Context,
  rows: readonly Row[],
) {
  const present = new Set(rows.map((row) => row.configuration));
  const values = context.colors.domain.filter((value) => present.has(value));
  const legend = {
    values,
    columns: legendColumns(values),
    symbolType: "stroke",
    description: `Configurations: ${values.join(", ")}`,
  };
  const color = {
    field: "configuration",
    type: "nominal",
    title: null,
    scale: context.colors,
    legend,
  };
  if (values.length <= MAX_PLAIN_SERIES) return { color };
  return {
    color: { ...color, legend: { ...legend, symbolSize: 500 } },
    strokeDash: {
      field: "configuration",
      type: "nominal",
      title: null,
      scale: context.dashes,
      // Long enough a symbol to show its dashes.
      legend: { ...legend, symbolSize: 500 },
    },
  };
}
