/**
 * The scaling chart: throughput against parallelism, one line per driver
 * (and parallel wrapper), for suites that sweep the number of
 * `ParallelMessageQueue` workers.
 *
 * @module
 */
import type { TopLevelSpec } from "vega-lite";
import { label } from "../label.ts";
import type { ChartSpec, Context } from "./context.ts";
import { fixed, unique } from "./format.ts";
import { fitted, frame, INK, paletteColor } from "./theme.ts";
import type { SuiteParams } from "../../results/mod.ts";

/** How a run ended, as the legend names it: finished, or cut off. */
export const OUTCOMES = ["finished", "cut off (rate so far)"] as const;

/**
 * (f) Throughput against parallelism, one line per driver and parallel
 * wrapper (`redis`, `redis awaiting`): where does each stop gaining?  Only
 * for suites that sweep three or more levels; null otherwise.  Every point
 * has its line's colour; its shape tells runs that finished (circles) from
 * runs that were cut off, drawn with their rate so far (downward triangles),
 * and the legend shows both shapes.  Parallelism 1 runs no wrapper, so its
 * point starts the line of each wrapper its driver ran with.
 */
export function scalingChart(context: Context): ChartSpec | null {
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
        outcome: OUTCOMES[result.status === "ok" ? 0 : 1],
      });
    }
  }
  const drivers = unique(rows.map((row) => String(row.driver)));
  if (rows.length === 0 || drivers.length === 0) return null;
  const spec = {
    ...frame(
      context,
      "Throughput by parallelism",
      `${inboxNote(context.document.params)} · one line per driver${
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
          range: drivers.map((_, i) => paletteColor(i)),
        },
      },
    },
    layer: [
      { mark: { type: "line", strokeWidth: 1.5 } },
      {
        // Filled in the line's colour (the color channel above), and only
        // that: no fill or stroke of another scale.
        mark: { type: "point", filled: true, size: 60, opacity: 1 },
        encoding: {
          shape: {
            field: "outcome",
            type: "nominal",
            title: null,
            scale: {
              domain: [...OUTCOMES],
              range: ["circle", "triangle-down"],
            },
            // The shapes stand for no driver: drawn in ink, not left blank.
            legend: { symbolFillColor: INK, symbolStrokeWidth: 0 },
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

/** How the fake inbox answered: its latency and its share of refusals. */
function inboxNote(params: SuiteParams): string {
  const inbox = params.inbox;
  const latency = inbox?.latency == null
    ? "inbox answers at once"
    : inbox.latency.minMs === inbox.latency.maxMs
    ? `inbox latency ${inbox.latency.minMs} ms`
    : `inbox latency ${inbox.latency.minMs}–${inbox.latency.maxMs} ms (uniform)`;
  const errors = inbox != null && inbox.errorRate > 0
    ? `, ${fixed(inbox.errorRate * 100, 1)}% first attempts refused`
    : "";
  return `${latency}${errors}`;
}
