/**
 * The stages chart: where a slot's time per delivery goes, one stacked bar
 * per configuration with a queue and stage timings: signing, the rest of
 * the POST, the rest of Fedify's outbox handler, the fanout's share, the
 * queue's turnaround, and what is left (idle, or not timed).  A bar's
 * length is slots × 1000 ÷ deliveries/s: the milliseconds of handler time
 * each delivery had.
 *
 * @module
 */
import type { TopLevelSpec } from "vega-lite";
import { type ChartSpec, type Context, omittedNote } from "./context.ts";
import { fixed } from "./format.ts";
import { BAR_LABEL_MARK, frame } from "./theme.ts";
import { configurationAxis } from "./text.ts";
import { CONSUMER_PARTS, consumerParts } from "../stages_table.ts";

/** (s) A slot's time per delivery by stage; null when no row has stages. */
export function stagesChart(context: Context): ChartSpec | null {
  const rows: Record<string, string | number>[] = [];
  const totals: Record<string, string | number>[] = [];
  const omitted: string[] = [];
  for (const { result, label } of context.entries) {
    if (result.stages == null) continue;
    const parts = consumerParts(result);
    if (parts == null) {
      omitted.push(
        result.stages.slots <= 0
          ? `${label} (no queue: no handler slots)`
          : omittedNote(result),
      );
      continue;
    }
    let total = 0;
    parts.forEach((part, rank) => {
      total += part.ms;
      rows.push({ configuration: label, part: part.part, ms: part.ms, rank });
    });
    totals.push({
      configuration: label,
      total,
      text: `${fixed(total, total < 10 ? 2 : 1)} ms`,
    });
  }
  if (rows.length === 0) return null;
  const order = [...new Set(rows.map((row) => String(row.configuration)))];
  const xMax = Math.max(...totals.map((row) => Number(row.total))) * 1.15;
  const y = configurationAxis(order);
  const x = {
    type: "quantitative",
    title: "ms of handler time per delivery (slots × 1000 ÷ deliveries/s)",
    axis: { format: ",~r", grid: true },
    scale: { domain: [0, xMax > 0 ? xMax : 1], nice: true },
  };
  const spec = {
    ...frame(
      { subtitle: context.subtitle },
      "Where a delivery's time goes",
      "a slot's time per delivery, by stage (means); grey: idle or not timed",
    ),
    autosize: { type: "fit-x", contains: "padding" },
    height: 36 * order.length,
    layer: [
      {
        data: { values: rows },
        mark: { type: "bar", height: { band: 0.7 } },
        encoding: {
          y,
          x: { ...x, field: "ms", stack: "zero" },
          color: {
            field: "part",
            type: "nominal",
            title: "Stage",
            scale: {
              domain: CONSUMER_PARTS.map((p) => p.part),
              range: CONSUMER_PARTS.map((p) => p.color),
            },
            legend: { orient: "top", columns: 3 },
          },
          order: { field: "rank", sort: "ascending" },
          tooltip: [
            { field: "configuration", type: "nominal" },
            { field: "part", type: "nominal", title: "stage" },
            { field: "ms", type: "quantitative", format: ".2f" },
          ],
        },
      },
      {
        data: { values: totals },
        mark: BAR_LABEL_MARK,
        encoding: { y, x: { ...x, field: "total" }, text: { field: "text" } },
      },
    ],
  };
  return {
    name: "stages",
    title: "Where a delivery's time goes",
    spec: spec as TopLevelSpec,
    ...(omitted.length === 0 ? {} : { omitted }),
  };
}
