/**
 * The latency chart: each configuration's delivery latency percentiles (p50
 * to max) as points on one row, on a log scale, joined by a rule from the
 * lowest to the highest.
 *
 * @module
 */
import type { TopLevelSpec } from "vega-lite";
import { type ChartSpec, type Context, omittedNote } from "./context.ts";
import { unique } from "./format.ts";
import { frame, PERCENTILES } from "./theme.ts";
import { configurationAxis } from "./text.ts";

/** The chart's data: a point per percentile, a range per configuration. */
interface LatencyData {
  /** Each configuration's percentiles, in seconds. */
  readonly rows: Record<string, string | number>[];
  /** Each configuration's lowest and highest percentile. */
  readonly ranges: Record<string, string | number>[];
  /** Why a configuration that ran has no latency. */
  readonly omitted: string[];
}

/** The percentiles of every configuration that has some. */
function latencyData(context: Context): LatencyData {
  const data: LatencyData = { rows: [], ranges: [], omitted: [] };
  for (const { result, label } of context.entries) {
    const latency = result.latencyMs;
    if (latency == null) {
      if (result.status !== "skipped") data.omitted.push(omittedNote(result));
      continue;
    }
    const values = PERCENTILES
      .map(([key, name]) => ({ name, seconds: latency[key] / 1000 }))
      .filter(({ seconds }) => Number.isFinite(seconds) && seconds > 0);
    if (values.length === 0) continue;
    for (const { name, seconds } of values) {
      data.rows.push({ configuration: label, percentile: name, seconds });
    }
    data.ranges.push({
      configuration: label,
      low: Math.min(...values.map(({ seconds }) => seconds)),
      high: Math.max(...values.map(({ seconds }) => seconds)),
    });
  }
  return data;
}

/** The log-scale latency axis, in decades spanning `seconds`. */
function latencyX(seconds: readonly number[]) {
  const decades: number[] = [];
  for (
    let power = Math.floor(Math.log10(Math.min(...seconds)));
    power <= Math.ceil(Math.log10(Math.max(...seconds)));
    power++
  ) {
    decades.push(Number(`1e${power}`));
  }
  return {
    type: "quantitative" as const,
    title: "Latency from sendActivity call to inbox arrival (s, log scale)",
    scale: {
      type: "log" as const,
      domain: [decades[0], decades[decades.length - 1]],
    },
    axis: { format: ",~g", grid: true, values: decades },
  };
}

/** The percentiles' marks: a colour and a shape each. */
function percentileEncoding() {
  return {
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
  };
}

/**
 * (c) Latency percentiles per configuration, on a log scale; null when no
 * configuration has any.
 */
export function latencyChart(context: Context): ChartSpec | null {
  const { rows, ranges, omitted } = latencyData(context);
  if (rows.length === 0) return null;
  const order = unique(rows.map((row) => String(row.configuration)));
  const y = configurationAxis(order, { grid: true, gridDash: [2, 3] });
  const x = latencyX(rows.map((row) => Number(row.seconds)));
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
          ...percentileEncoding(),
        },
      },
    ],
  };
  return {
    name: "latency",
    omitted,
    title: "Delivery latency percentiles",
    spec: spec as TopLevelSpec,
  };
}
