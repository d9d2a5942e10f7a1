/**
 * `report.html`, the interactive report beside every results file: the
 * headline table (sortable, filtered by driver, parallelism and status),
 * every chart of the Markdown report as an interactive Vega-Lite view, and
 * the environment with its calibration; one self-contained file that opens
 * from disk with no network.  Written wherever results are written
 * (`writeResults`, the dequeue-cost command) and by `deno task report DIR`.
 *
 * @module
 */
import { queueCodeLines } from "../implementation_text.ts";
import { libraries } from "./assets.ts";
import { interactiveSpec } from "./interactive.ts";
import { inline, proseHtml } from "./markup.ts";
import { type PageChart, renderPage } from "./page.ts";
import { dequeueCostTable, resultsTable } from "./table.ts";
import { type ChartSpec, chartSpecs } from "../charts/mod.ts";
import { dequeueCostChart } from "../charts/dequeue_cost_chart.ts";
import { renderEnvironment } from "../environment_section.ts";
import { duration, integer } from "../cells.ts";
import { rowNotes } from "../notes.ts";
import type { DequeueCostDocument } from "../../results/dequeue_cost_record.ts";
import type { ResultsDocument } from "../../results/mod.ts";

/** The report's file name in its results folder. */
export const REPORT_HTML = "report.html";

/** Every value of `field` in the inline data of a spec. */
function valuesOf(spec: unknown, field: string, into = new Set<string>()) {
  if (Array.isArray(spec)) {
    for (const item of spec) valuesOf(item, field, into);
  } else if (typeof spec === "object" && spec != null) {
    const node = spec as Record<string, unknown>;
    const data = node.data as { values?: unknown[] } | undefined;
    for (const row of data?.values ?? []) {
      const value = (row as Record<string, unknown>)[field];
      if (value != null) into.add(String(value));
    }
    for (const [key, child] of Object.entries(node)) {
      if (key !== "data") valuesOf(child, field, into);
    }
  }
  return into;
}

function pageChart(chart: ChartSpec): PageChart {
  const { spec, seriesField, zoom } = interactiveSpec(chart);
  return {
    name: chart.name,
    title: chart.title,
    spec,
    omitted: chart.omitted ?? [],
    series: [...valuesOf(chart.spec, seriesField ?? "configuration")],
    seriesField,
    zoom,
  };
}

/** The HTML report of a suite's results. */
export async function renderResultsHtml(
  document: ResultsDocument,
): Promise<string> {
  const p = document.params;
  const notes = document.results.flatMap(rowNotes);
  return renderPage({
    title: "Fedify outbox queue benchmark results",
    intro: `<p>${
      p.load == null
        ? `${integer.format(p.total)} activities × ${
          integer.format(p.recipients)
        } recipients = ${
          integer.format(p.total * p.recipients)
        } deliveries per configuration`
        : `Steady load, ${integer.format(p.recipients)} recipients per activity`
    }; ${p.runs ?? 1} run(s) each; fanout <code>${
      inline(p.fanout)
    }</code>; sender key RSA-${p.rsaBits}${
      p.scenario == null ? "" : `; scenario <code>${inline(p.scenario)}</code>`
    }. Started ${inline(document.startedAt)}, finished ${
      inline(document.finishedAt ?? "(still running)")
    }. The same results as <a href="latest.md">latest.md</a> and <a href="latest.json">latest.json</a>.</p>`,
    table: resultsTable(document),
    notes: notes.length === 0 ? "" : proseHtml(notes.join("\n")),
    charts: chartSpecs(document).map(pageChart),
    environment: document.environment == null ? "" : proseHtml(
      renderEnvironment(
        document.environment,
        queueCodeLines(document.results),
      ),
      0,
    ),
    data: document,
    libraries: await libraries(),
  });
}

/** The HTML report of a dequeue-cost folder. */
export async function renderDequeueCostHtml(
  document: DequeueCostDocument,
): Promise<string> {
  const { params } = document;
  const chart = dequeueCostChart(document);
  const fits = document.fits.map((f) =>
    `- ${f.driver}: ms per dequeue ≈ ${f.interceptMs.toFixed(3)} + ${
      (f.slopeMs * 1000).toFixed(4)
    } × backlog/1000${f.r2 == null ? "" : ` (R² ${f.r2.toFixed(3)})`}`
  );
  const projections = document.projections.map((p) =>
    `- **projection, not a measurement**: ${p.driver} would take about ${
      duration(p.seconds)
    } to drain ${integer.format(p.backlog)} messages`
  );
  return renderPage({
    title: "Dequeue cost against backlog",
    intro:
      `<p>${params.dequeues} dequeues timed per backlog (after ${params.warmup} untimed), messages of about ${params.messageBytes} bytes. Started ${
        inline(document.startedAt)
      }, finished ${
        inline(document.finishedAt)
      }. The same results as <a href="latest.md">latest.md</a> and <a href="latest.json">latest.json</a>.</p>`,
    table: dequeueCostTable(document),
    notes: proseHtml([...fits, ...projections].join("\n")),
    charts: chart == null ? [] : [pageChart(chart)],
    environment: "",
    data: document,
    libraries: await libraries(),
  });
}
