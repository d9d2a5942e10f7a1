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
import { labelLimit } from "./text.ts";

/**
 * (c) Latency percentiles per configuration, on a log scale; null when no
 * configuration has any.
 */
export function latencyChart(context: Context): ChartSpec | null {
  const rows: Record<string, string | number>[] = [];
  const ranges: Record<string, string | number>[] = [];
  const omitted: string[] = [];
  for (const { result, label } of context.entries) {
    const latency = result.latencyMs;
    if (latency == null) {
      if (result.status !== "skipped") omitted.push(omittedNote(result));
      continue;
    }
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
      labelLimit: labelLimit(order, 13),
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
    omitted,
    title: "Delivery latency percentiles",
    spec: spec as TopLevelSpec,
  };
}
