/**
 * The chart of `deno task dequeue-cost`: milliseconds per dequeue against
 * the backlog, one line per driver, in the look of every other chart.
 *
 * @module
 */
import type { TopLevelSpec } from "vega-lite";
import type { ChartSpec } from "./context.ts";
import { fitted, frame, paletteColor } from "./theme.ts";
import type { DequeueCostDocument } from "../../results/dequeue_cost_record.ts";

/**
 * Milliseconds per dequeue against the number of messages in the queue,
 * one line per driver in the order measured, a point per backlog that has
 * a time.  Null when no point has one.
 */
export function dequeueCostChart(
  document: DequeueCostDocument,
): ChartSpec | null {
  const rows = document.points.filter((p) => p.msPerDequeue != null).map((
    p,
  ) => ({ driver: p.driver, backlog: p.backlog, ms: p.msPerDequeue! }));
  if (rows.length === 0) return null;
  const present = new Set(rows.map((row) => row.driver));
  const drivers = document.params.drivers.filter((d) => present.has(d));
  const { params } = document;
  const title = "Time per dequeue against backlog";
  const spec = {
    ...frame(
      {
        subtitle: `${params.dequeues} dequeues per point · ` +
          `~${params.messageBytes}-byte messages · no-op handler`,
      },
      title,
    ),
    ...fitted(),
    data: { values: rows },
    encoding: {
      x: {
        field: "backlog",
        type: "quantitative",
        title: "Messages in the queue",
        axis: { format: ",~r", tickCount: 5 },
      },
      y: {
        field: "ms",
        type: "quantitative",
        title: "ms per dequeue",
        axis: { format: ",~r" },
      },
      color: {
        field: "driver",
        type: "nominal",
        title: "Driver",
        scale: {
          domain: drivers,
          range: drivers.map((_, i) => paletteColor(i)),
        },
      },
    },
    layer: [
      { mark: { type: "line", strokeWidth: 1.5 } },
      { mark: { type: "point", filled: true, size: 60, opacity: 1 } },
    ],
  };
  return { name: "dequeue-cost", title, spec: spec as TopLevelSpec };
}
