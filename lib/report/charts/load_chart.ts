/**
 * The charts of the rate runs: latency against offered rate per
 * configuration (the curve that bends where a queue saturates), and the
 * backlog over time at each rate, one panel per configuration.
 *
 * @module
 */
import type { TopLevelSpec } from "vega-lite";
import { type ChartSpec, omittedNote } from "./context.ts";
import { short, unique } from "./format.ts";
import type { LoadContext } from "./load_context.ts";
import { MAX_POINTS, maxPerBucket } from "./resample.ts";
import {
  fitted,
  frame,
  INK,
  paletteColor,
  RULE_LABEL_MARK,
  WIDTH,
} from "./theme.ts";
import { configurationLabel, rateText } from "../label.ts";

/** How a rate run went, as the legends name it. */
export const VERDICTS = ["kept up", "fell behind"] as const;

/** The percentiles drawn against the offered rate, and their dashes. */
const LOAD_PERCENTILES = [["p50", [4, 3]], ["p99", [1, 0]]] as const;

/** Decades (`0.1`, `1`, `10`, …) spanning the values, for log axes. */
function decades(values: readonly number[]): number[] {
  const out: number[] = [];
  const low = Math.floor(Math.log10(Math.min(...values)));
  const high = Math.ceil(Math.log10(Math.max(...values)));
  for (let power = low; power <= Math.max(high, low + 1); power++) {
    out.push(Number(`1e${power}`));
  }
  return out;
}

/** A point of the latency chart: a percentile of a run at its rate. */
type LatencyRow = Record<string, string | number>;

/**
 * The rate runs' p50 and p99 at their offered rates; `omitted` gets the
 * runs without a latency.
 */
function rateRunRows(context: LoadContext, omitted: string[]): LatencyRow[] {
  const rows: LatencyRow[] = [];
  for (const result of context.rates) {
    const load = result.load!;
    const latency = result.latencyMs;
    if (latency == null) {
      omitted.push(omittedNote(result));
      continue;
    }
    const rate = load.offeredRate > 0 ? load.offeredRate : load.nominalRate;
    for (const [percentile] of LOAD_PERCENTILES) {
      const seconds = latency[percentile] / 1000;
      if (!(seconds > 0) || !(rate > 0)) continue;
      rows.push({
        configuration: configurationLabel(result),
        percentile,
        rate,
        seconds,
        verdict: VERDICTS[load.verdict === "kept-up" ? 0 : 1],
      });
    }
  }
  return rows;
}

/**
 * The max-rate probes' p99 at each rate offered, of the configurations
 * without rate runs.
 */
function probeRows(context: LoadContext): LatencyRow[] {
  const rows: LatencyRow[] = [];
  const swept = new Set(context.rates.map(configurationLabel));
  for (const result of context.searches) {
    const configuration = configurationLabel(result);
    if (swept.has(configuration)) continue;
    for (const probe of result.maxRate!.probes) {
      const rate = probe.offeredRate ?? probe.rate;
      const seconds = (probe.p99Ms ?? 0) / 1000;
      if (!(seconds > 0) || !(rate > 0)) continue;
      rows.push({
        configuration,
        percentile: "p99",
        rate,
        seconds,
        verdict: VERDICTS[probe.passed ? 0 : 1],
      });
    }
  }
  return rows;
}

/** The log axes of the latency chart, spanning its rows and the bound. */
function latencyAxes(rows: readonly LatencyRow[], bound: number | undefined) {
  const ys = rows.map((row) => Number(row.seconds));
  if (bound != null) ys.push(bound / 1000);
  const xTicks = decades(rows.map((row) => Number(row.rate)));
  const yTicks = decades(ys);
  const x = {
    field: "rate",
    type: "quantitative",
    title: "Offered rate (activities/s, log scale)",
    scale: { type: "log", domain: [xTicks[0], xTicks[xTicks.length - 1]] },
    axis: { values: xTicks, format: ",~g", grid: true },
  };
  const y = {
    type: "quantitative",
    title: "Latency from scheduled start (s, log scale)",
    scale: { type: "log", domain: [yTicks[0], yTicks[yTicks.length - 1]] },
    axis: { values: yTicks, format: ",~g", grid: true },
  };
  return { x, y };
}

/**
 * The latency chart's lines (dashed by percentile) and points (crosses
 * for runs that fell behind), coloured by configuration.
 */
function latencyLayer(
  context: LoadContext,
  rows: readonly LatencyRow[],
  { x, y }: ReturnType<typeof latencyAxes>,
) {
  const present = new Set(rows.map((row) => row.configuration));
  const color = {
    field: "configuration",
    type: "nominal",
    title: null,
    scale: context.colors,
    legend: {
      values: context.colors.domain.filter((value) => present.has(value)),
      symbolType: "stroke",
    },
  };
  return {
    data: { values: rows },
    layer: [
      {
        mark: { type: "line", strokeWidth: 1.5 },
        encoding: {
          x,
          y: { ...y, field: "seconds" },
          color,
          strokeDash: {
            field: "percentile",
            type: "nominal",
            title: null,
            scale: {
              domain: LOAD_PERCENTILES.map(([name]) => name),
              range: LOAD_PERCENTILES.map(([, dash]) => dash),
            },
            legend: { symbolStrokeColor: INK },
          },
          order: { field: "rate", type: "quantitative" },
        },
      },
      {
        mark: { type: "point", filled: true, opacity: 1 },
        encoding: {
          x,
          y: { ...y, field: "seconds" },
          color,
          shape: {
            field: "verdict",
            type: "nominal",
            title: null,
            scale: {
              domain: [...VERDICTS],
              range: ["circle", "cross"],
            },
            legend: { symbolFillColor: INK, symbolStrokeWidth: 0 },
          },
          size: {
            field: "verdict",
            type: "ordinal",
            sort: [...VERDICTS],
            scale: { domain: [...VERDICTS], range: [50, 140] },
          },
        },
      },
    ],
  };
}

/** The max-rate search's p99 bound as a dashed, labelled rule. */
function boundLayer(bound: number, y: ReturnType<typeof latencyAxes>["y"]) {
  return {
    data: {
      values: [{
        bound: bound / 1000,
        text: `max-rate p99 bound ${short(bound / 1000)} s`,
      }],
    },
    layer: [
      {
        mark: { type: "rule", strokeDash: [6, 4], color: "#666666" },
        encoding: { y: { ...y, field: "bound" } },
      },
      {
        mark: RULE_LABEL_MARK,
        encoding: {
          y: { ...y, field: "bound" },
          text: { field: "text" },
        },
      },
    ],
  };
}

/**
 * (g) Latency p50 and p99 (from the scheduled start) against the offered
 * rate, one line per configuration, both axes on a log scale; runs that fell
 * behind are drawn as crosses, and the max-rate search's p99 bound, when the
 * suite had one, as a dashed rule.  A configuration without rate runs is
 * drawn from its max-rate probes (p99 only; crosses: not kept up).  Null
 * when nothing has a latency.
 */
export function loadLatencyChart(context: LoadContext): ChartSpec | null {
  const omitted: string[] = [];
  const rows = [...rateRunRows(context, omitted), ...probeRows(context)];
  if (rows.length === 0) return null;
  const bound = context.document.params.load?.maxRate?.latencyBoundMs;
  const axes = latencyAxes(rows, bound);
  const spec = {
    ...frame(
      context,
      "Latency against offered rate",
      "dashed: p50 · solid: p99 · crosses: the run fell behind",
    ),
    ...fitted(),
    layer: [
      latencyLayer(context, rows, axes),
      ...(bound == null ? [] : [boundLayer(bound, axes.y)]),
    ],
  };
  return {
    name: "load-latency",
    omitted,
    title: "Latency against offered rate",
    spec: spec as TopLevelSpec,
  };
}

/** The smallest round bucket width that keeps `end` within MAX_POINTS. */
function bucketWidth(end: number): number {
  const nice = [0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600];
  const wanted = end / MAX_POINTS;
  return nice.find((width) => width >= wanted) ?? Math.ceil(wanted / 60) * 60;
}

/**
 * The backlog series of `results`, each kept to its peak per bucket of
 * `width` seconds; `merged` says whether any was.
 */
function backlogRows(
  results: LoadContext["rates"],
  width: number,
): { rows: Record<string, string | number>[]; merged: boolean } {
  let merged = false;
  const rows: Record<string, string | number>[] = [];
  for (const result of results) {
    const load = result.load!;
    const points = maxPerBucket(load.backlog, width);
    merged ||= points !== load.backlog;
    for (const [t, backlog] of points) {
      rows.push({
        configuration: configurationLabel(result),
        rate: `${rateText(load.nominalRate)}/s`,
        t,
        backlog,
        verdict: VERDICTS[load.verdict === "kept-up" ? 0 : 1],
      });
    }
  }
  return { rows, merged };
}

/**
 * A panel of the backlog chart: the end of the arrivals as a grey rule,
 * and a line per offered rate (dashed when the run fell behind).
 */
function backlogPanel(
  end: number,
  rateNames: readonly string[],
  duration: number | undefined,
) {
  const x = {
    field: "t",
    type: "quantitative",
    title: "Time since the first scheduled send (s)",
    axis: { format: ",~r", grid: true, tickCount: 10 },
    scale: { domain: [0, end], nice: true },
  };
  return {
    width: WIDTH - 120,
    height: 120,
    layer: [
      ...(duration == null ? [] : [{
        mark: { type: "rule", color: "#bbbbbb", strokeWidth: 1 },
        encoding: { x: { datum: duration, type: "quantitative" } },
      }]),
      {
        mark: { type: "line", strokeWidth: 1.5, clip: true },
        encoding: {
          x,
          y: {
            field: "backlog",
            type: "quantitative",
            title: "Backlog (deliveries)",
            axis: { format: ",~r", tickCount: 4 },
          },
          color: {
            field: "rate",
            type: "ordinal",
            title: "Offered rate",
            sort: rateNames,
            scale: {
              domain: rateNames,
              range: rateNames.map((_, i) => paletteColor(i)),
            },
            legend: { symbolType: "stroke" },
          },
          strokeDash: {
            field: "verdict",
            type: "nominal",
            title: null,
            scale: { domain: [...VERDICTS], range: [[1, 0], [5, 3]] },
            legend: { symbolStrokeColor: INK },
          },
        },
      },
    ],
  };
}

/**
 * (h) Deliveries scheduled but not yet arrived over time, one panel per
 * configuration and one line per rate (dashed when the run fell behind),
 * each panel on its own scale; long series keep their peak per bucket.
 * Null when no rate run recorded a backlog.
 */
export function backlogChart(context: LoadContext): ChartSpec | null {
  const withSeries = context.rates.filter((r) => r.load!.backlog.length > 0);
  if (withSeries.length === 0) return null;
  const end = Math.max(
    ...withSeries.map((r) => r.load!.backlog.at(-1)![0]),
  );
  const width = bucketWidth(end);
  const rates = [
    ...new Set(withSeries.map((r) => r.load!.nominalRate)),
  ].sort((a, b) => a - b);
  const { rows, merged } = backlogRows(withSeries, width);
  const order = unique(rows.map((row) => String(row.configuration)));
  const rateNames = rates.map((rate) => `${rateText(rate)}/s`);
  const duration = context.document.params.load?.durationSeconds;
  const { width: _width, ...top } = frame(
    context,
    "Backlog over time",
    `deliveries scheduled but not yet arrived · dashed: the run fell behind${
      merged ? ` · peak per ${short(width)} s` : ""
    }${duration == null ? "" : " · grey rule: end of the arrivals"}`,
  );
  const spec = {
    ...top,
    data: { values: rows },
    columns: 1,
    facet: {
      field: "configuration",
      type: "nominal",
      sort: order,
      title: null,
      header: {
        labelFontSize: 13,
        labelFontWeight: "bold",
        labelAnchor: "start",
        labelPadding: 4,
      },
    },
    resolve: { scale: { y: "independent" } },
    spec: backlogPanel(end, rateNames, duration),
  };
  return {
    name: "backlog",
    title: "Backlog over time",
    spec: spec as TopLevelSpec,
  };
}
