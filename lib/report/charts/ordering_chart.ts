/**
 * The ordering chart of suites that ran the ordered workload
 * (`--workload cud`): per configuration, the order violations the inbox
 * counted without an ordering key and with one, a bar each, the keyed bar
 * coloured by whether the installed queue honours `orderingKey`.
 *
 * @module
 */
import type { TopLevelSpec } from "vega-lite";
import type { ChartSpec, Context } from "./context.ts";
import { unique } from "./format.ts";
import { BAR_LABEL_MARK, frame } from "./theme.ts";
import { configurationAxis } from "./text.ts";
import { configurationLabel } from "../label.ts";

/** The bars of a configuration, in order, and their colours. */
export const ORDERING_BARS: Readonly<Record<string, string>> = {
  "no key": "#b0b0b0",
  "key, honoured": "#4c78a8",
  "key, not honoured": "#f58518",
};

/**
 * (k) Order violations without and with `orderingKey`, per configuration
 * (its label without the key); null when no row counted violations.  A dot
 * at each bar's end keeps a bar of no violations visible (and hoverable).
 */
export function orderingChart(context: Context): ChartSpec | null {
  const rows: Record<string, string | number>[] = [];
  for (const { result } of context.entries) {
    const ordering = result.ordering;
    if (ordering?.violations == null) continue;
    const bar = ordering.key === "none"
      ? "no key"
      : ordering.supported
      ? "key, honoured"
      : "key, not honoured";
    const configuration = configurationLabel({
      ...result,
      orderingKey: undefined,
    });
    rows.push({
      configuration,
      bar,
      violations: ordering.violations,
      text: String(ordering.violations),
      status: result.status,
    });
  }
  if (rows.length === 0) return null;
  const order = unique(rows.map((row) => String(row.configuration)));
  const bars = Object.keys(ORDERING_BARS)
    .filter((bar) => rows.some((row) => row.bar === bar));
  const xMax = Math.max(1, ...rows.map((row) => Number(row.violations))) *
    1.15;
  const y = configurationAxis(order);
  const yOffset = { field: "bar", type: "nominal", sort: bars };
  const x = {
    field: "violations",
    type: "quantitative",
    title: "Order violations (count)",
    axis: { format: ",~r", grid: true, tickMinStep: 1 },
    scale: { domain: [0, xMax], nice: true },
  };
  const color = {
    field: "bar",
    type: "nominal",
    title: "orderingKey",
    scale: { domain: bars, range: bars.map((bar) => ORDERING_BARS[bar]) },
    legend: { orient: "top", columns: bars.length },
  };
  const spec = {
    ...frame(
      context,
      "Order violations without and with orderingKey",
      "each note's Create, Update and Delete back to back · a violation: " +
        "a step arriving after a later one of its note",
    ),
    autosize: { type: "fit-x", contains: "padding" },
    height: 18 * rows.length + 8 * order.length,
    data: { values: rows },
    encoding: { y, yOffset },
    layer: [
      {
        mark: { type: "point", filled: true, size: 50, opacity: 1 },
        encoding: { x, color },
      },
      {
        mark: { type: "bar", height: { band: 0.8 } },
        encoding: { x, color },
      },
      {
        mark: { ...BAR_LABEL_MARK, dx: 8 },
        encoding: { x, text: { field: "text" } },
      },
    ],
  };
  return {
    name: "ordering",
    title: "Order violations without and with orderingKey",
    spec: spec as TopLevelSpec,
  };
}
