/**
 * SVG charts of a suite's results, rendered headless with Vega-Lite and Vega
 * (no browser, no canvas): send and receive times, cumulative deliveries,
 * latency percentiles, delivery rate and queue depth over time, and
 * throughput against parallelism, order violations without and with
 * `orderingKey`, the delayed backlog beside healthy deliveries, where a
 * delivery's time goes; under steady
 * load, latency against offered
 * rate, backlog over time and idle CPU.
 *
 * The charts' parts live beside this module: `theme.ts` (size, fonts,
 * colours), `context.ts` (what every chart reads from the document),
 * `load_context.ts` (what the steady-load charts read), `resample.ts`
 * (merging long series), `text.ts` (text measurement without a
 * canvas), `format.ts` (numbers in titles) and one module per kind of chart.
 *
 * @module
 */
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import { chartContext, type ChartSpec } from "./context.ts";

export type { ChartSpec } from "./context.ts";
import { delayedBacklogChart } from "./delayed.ts";
import { idleCpuChart } from "./idle.ts";
import { latencyChart } from "./latency.ts";
import { backlogChart, loadLatencyChart } from "./load_chart.ts";
import { loadContext } from "./load_context.ts";
import { orderingChart } from "./ordering_chart.ts";
import { scalingChart } from "./scaling.ts";
import { sendReceiveChart } from "./send_receive.ts";
import { stagesChart } from "./stages_chart.ts";
import { measuringHelvetica } from "./text.ts";
import { cumulativeChart, queueDepthChart, rateChart } from "./time_series.ts";
import type { ResultsDocument } from "../../results/mod.ts";

/** One rendered chart. */
export interface Chart {
  /** File-name-safe name, e.g. `send-receive`. */
  readonly name: string;
  /** Human-readable title, e.g. `Send and receive time`. */
  readonly title: string;
  /** A standalone SVG document. */
  readonly svg: string;
  /** Configurations the chart leaves out, with why (see {@link ChartSpec}). */
  readonly omitted?: readonly string[];
}

/**
 * Renders every chart that the document has data for, in a fixed order:
 * `send-receive`, `cumulative`, `latency`, `deliveries-rate`, `queue-depth`,
 * `scaling`, `ordering`, `delayed-backlog`, `stages`, `load-latency`,
 * `backlog`, `idle-cpu`.
 * The same document always gives the same SVG text.  (The dequeue-cost
 * chart, `dequeue_cost_chart.ts`, is drawn for its own document.)
 */
export async function renderCharts(
  document: ResultsDocument,
): Promise<Chart[]> {
  return await renderSpecs(chartSpecs(document));
}

/**
 * The Vega-Lite specs of every chart the document has data for, in the
 * order of {@link renderCharts}: rendered to SVG for the Markdown report and
 * embedded as they are, made interactive, in `report.html`.
 */
export function chartSpecs(document: ResultsDocument): ChartSpec[] {
  const context = chartContext(document);
  const load = loadContext(document);
  return [
    sendReceiveChart(context),
    cumulativeChart(context),
    latencyChart(context),
    rateChart(context),
    queueDepthChart(context),
    scalingChart(context),
    orderingChart(context),
    delayedBacklogChart(context),
    stagesChart(context),
    loadLatencyChart(load),
    backlogChart(load),
    idleCpuChart(load),
  ].filter((chart) => chart != null);
}

/**
 * Renders chart specs to SVG, in order, the way every chart of the project
 * is rendered (Helvetica's metrics, fresh SVG ids), so that the same specs
 * always give the same SVG text.
 */
export async function renderSpecs(
  specs: readonly ChartSpec[],
): Promise<Chart[]> {
  // Vega keeps global state (text metrics, SVG ids): one render at a time.
  const turn = queue.then(() =>
    measuringHelvetica(async () => {
      const charts: Chart[] = [];
      for (const chart of specs) {
        charts.push({
          name: chart.name,
          title: chart.title,
          svg: await toSvg(chart.spec),
          ...(chart.omitted == null ? {} : { omitted: chart.omitted }),
        });
      }
      return charts;
    })
  );
  queue = turn.catch(() => {});
  return await turn;
}

/** The end of the last render under way; see {@link renderCharts}. */
let queue: Promise<unknown> = Promise.resolve();

/** Renders one Vega-Lite spec to a standalone SVG document. */
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
