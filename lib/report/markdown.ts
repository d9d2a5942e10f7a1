/**
 * Human and machine-readable reports of a suite: the Markdown table (as the
 * original benchmark printed it, plus accounting, latency and CPU, each
 * median with its min–max over the runs) of the burst runs, the steady-load
 * sections (`load_tables.ts`), the machine and software the suite ran on, SVG
 * charts, and the files `latest.md`, `charts/*.svg` and the interactive
 * `report.html` (`html/`) to write beside `latest.json` (`lib/cli/write.ts`
 * writes them).
 *
 * @module
 */
import { queueCodeLines } from "./implementation_text.ts";
import { depthSection } from "./depth_table.ts";
import { delayedSection } from "./delayed_table.ts";
import { stagesSection } from "./stages_table.ts";
import { networkSection } from "./network.ts";
import { scaleOutSection } from "./scale_out_section.ts";
import { NEAR_END } from "../params/mod.ts";
import { type Chart, renderCharts } from "./charts/mod.ts";
import type { ReportFiles } from "./files.ts";
import { integer } from "./cells.ts";
import { renderResultsHtml, REPORT_HTML } from "./html/mod.ts";
import { rateText, rowKind } from "./label.ts";
import { loadSections, type Section } from "./load_tables.ts";
import { orderingSections } from "./ordering_section.ts";
import { renderEnvironment } from "./environment_section.ts";
import {
  renderDriftNotice,
  renderRowCalibrations,
} from "./calibration_text.ts";
import { columnTable } from "./columns.ts";
import { markdownColumns, markdownLegend } from "./results_columns.ts";
import { rowNotes, standInNote } from "./notes.ts";
import type {
  ConfigurationResult,
  LoadParams,
  ResultsDocument,
} from "../results/mod.ts";

/** The rows of the burst table: every row that is no steady-load one. */
function burstRows(document: ResultsDocument): ConfigurationResult[] {
  return document.results.filter((r) => rowKind(r) === "burst");
}

/**
 * Whether the burst table is shown: when it has rows, or when there is
 * nothing else to show.
 */
function showsBurst(
  document: ResultsDocument,
  sections: readonly Section[],
): boolean {
  return burstRows(document).length > 0 || sections.length === 0;
}

/**
 * Renders the results as Markdown: the table of burst runs followed by notes
 * on non-ok rows, then each steady-load section the document has (a
 * heading, its table and its notes), as printed at the end of a run.
 */
export function renderTable(document: ResultsDocument): string {
  const sections = [
    ...orderingSections(document),
    ...loadSections(document),
  ];
  const notice = renderDriftNotice(document.results);
  const parts = [
    ...(notice == null ? [] : [notice + "\n"]),
    ...(showsBurst(document, sections) ? [burstTable(document)] : []),
  ];
  return [...parts, ...sectionTexts(document, sections, false)].join("\n");
}

/**
 * Each section as Markdown: heading, table, notes, and with `legend` the
 * lines on its columns; the stand-in footnote goes to the first section with
 * a stand-in when the burst table did not give it.
 */
function sectionTexts(
  document: ResultsDocument,
  sections: readonly Section[],
  legend: boolean,
): string[] {
  const burst = showsBurst(document, sections) ? burstRows(document) : [];
  let footnote = standInNote(burst) == null
    ? standInNote(document.results.filter((r) => rowKind(r) !== "burst"))
    : null;
  return sections.map((section) => {
    const notes = [...section.notes];
    if (footnote != null && section.table.includes(" † ")) {
      notes.unshift(footnote);
      footnote = null;
    }
    const lines = [
      ...(notes.length > 0 ? ["", ...notes] : []),
      ...(legend ? ["", ...section.legend] : []),
    ];
    return `## ${section.title}\n\n${section.table}\n` +
      (lines.length > 0 ? lines.join("\n") + "\n" : "");
  });
}

/** The table of burst runs and the notes on them. */
function burstTable(document: ResultsDocument): string {
  const results = burstRows(document);
  const table = columnTable(markdownColumns(results), results);
  const notes = results.flatMap(rowNotes);
  const footnote = standInNote(results);
  if (footnote != null) notes.unshift(footnote);
  return table +
    (notes.length > 0 ? "\n\n" + notes.join("\n") : "") + "\n";
}

/** Renders `latest.md`: parameters, the table, charts, and the environment. */
export function renderMarkdown(
  document: ResultsDocument,
  charts: readonly Chart[] = [],
): string {
  const p = document.params;
  const runs = p.runs ?? 1;
  const sections = [
    ...orderingSections(document),
    ...loadSections(document),
  ];
  const figures = charts.map((c) =>
    `### ${c.title}\n\n![${c.title}](charts/${c.name}.svg)\n` +
    (c.omitted == null || c.omitted.length === 0
      ? ""
      : `\nNot drawn: ${c.omitted.join("; ")}.\n`)
  )
    .join("\n");
  const burst = showsBurst(document, sections)
    ? `${burstTable(document)}
${
      markdownLegend(document.results)
    }- **baseline**: no queue and no \`sendActivity\`: every delivery signed and
  POSTed directly, as many at once as the parallelism; the floor.
${logNote(document)}
A configuration that did not finish shows no times, only how far it got.

`
    : "";
  const loaded = sectionTexts(document, sections, true)
    .map((text) => text + "\n").join("");
  const notice = renderDriftNotice(document.results);
  const rowCalibrations = renderRowCalibrations(document.results);
  return `# Fedify outbox queue benchmark results

${
    p.load == null
      ? `${integer.format(p.total)} activities × ${
        integer.format(p.recipients)
      } recipients = ${
        integer.format(p.total * p.recipients)
      } deliveries per configuration`
      : `${integer.format(p.recipients)} recipients per activity (TOTAL, ${
        integer.format(p.total)
      }, applies only to burst and \`--senders\` rows)`
  }; ${runs} run${runs > 1 ? "s" : ""} each${
    p.workload === "cud"
      ? "; workload `cud` (each note's Create, Update and Delete back to back)"
      : ""
  }${
    runs > 1 ? " (figures are medians, min–max in parentheses)" : ""
  }; fanout \`${p.fanout}\`; sender key RSA-${p.rsaBits} + Ed25519; ${
    p.workers ?? 1
  } worker process${(p.workers ?? 1) > 1 ? "es" : ""} per shared queue.
Started ${document.startedAt}, finished ${
    document.finishedAt ?? "(still running)"
  }${suiteTime(document)}.
${p.load == null ? "" : loadSentence(p.load, p.recipients)}
${notice == null ? "" : notice + "\n\n"}${burst}${loaded}${
    depthSection(document)
  }${delayedSection(document)}${stagesSection(document)}${
    networkSection(document)
  }${scaleOutSection(document)}${
    sections.length > 0 && figures !== "" ? "## Charts\n\n" : ""
  }${figures}${
    document.environment == null
      ? ""
      : "\n## Environment\n\n" + renderEnvironment(
        document.environment,
        queueCodeLines(document.results),
      )
  }${
    rowCalibrations == null
      ? ""
      : "\n### Host speed before each row\n\n" + rowCalibrations + "\n"
  }`;
}

/**
 * `; the suite took 1,234 s, in 2 rounds in a shuffled order (seed 42)`:
 * its wall time and order, when recorded.
 */
function suiteTime(document: ResultsDocument): string {
  const parts: string[] = [];
  if (document.suiteSeconds != null) {
    parts.push(
      `the suite took ${integer.format(Math.round(document.suiteSeconds))} s`,
    );
  }
  const rounds = document.rounds?.length ?? 0;
  const seed = document.params.orderSeed;
  if (rounds > 0 && seed != null) {
    parts.push(
      `${
        rounds > 1
          ? `in ${rounds} rounds (every first run before any second)` +
            ", each"
          : "configurations"
      } in a shuffled order (seed ${seed}, \`--order-seed\`)`,
    );
  }
  const budget = budgetText(document.params);
  if (budget != null) parts.push(budget);
  return parts.length === 0 ? "" : `; ${parts.join(", ")}`;
}

/**
 * `each row to its end or its time limit of 1,200 s (\`--timeout\`)`, or
 * the per-row budget when the suite had one (`each row's budget 30 s
 * (\`--budget\`; …)`, or in older files a multiple of the none row's
 * total).
 */
function budgetText(params: ResultsDocument["params"]): string | null {
  const early = params.earlyStop === false
    ? ", none stopped earlier on its estimate (`--no-early-stop`)"
    : "";
  if (params.untilDone === true) {
    return `every row to its end (\`--until-done\`)${early}`;
  }
  if (params.budgetSeconds == null) {
    return `each row to its end or its time limit of ` +
      `${integer.format(params.timeoutSeconds)} s (\`--timeout\`)${early}`;
  }
  return `each row's budget ${rateText(params.budgetSeconds)} s (` +
    (params.budgetOfNone != null
      ? `${params.budgetOfNone} × the none row's total, \`--budget-none\``
      : params.budgetFallback != null
      ? `the fixed default: ${params.budgetFallback}`
      : "`--budget`") +
    `; a row within ${NEAR_END}× of it runs to its end)${early}`;
}

/**
 * The steady-load settings in a sentence (with its final newline): what the
 * rate runs offered, and which other measurements the suite made.
 */
export function loadSentence(load: LoadParams, recipients: number): string {
  const list = (values: readonly number[]) => values.map(rateText).join(", ");
  const parts: string[] = [];
  if (load.rates.length > 0) {
    parts.push(
      `rate runs at ${list(load.rates)} activities/s (× ${
        integer.format(recipients)
      } recipients), ${load.arrivals === "poisson" ? "Poisson" : "fixed"} ` +
        `arrivals (seed ${load.seed}) over ${
          rateText(load.durationSeconds)
        } s, then up to ${rateText(load.drainSeconds)} s to drain`,
    );
  }
  if (load.senders.length > 0) {
    parts.push(`bursts by ${list(load.senders)} concurrent send loops`);
  }
  const search = load.maxRate;
  if (search?.probeSeconds != null) {
    parts.push(
      `each configuration's capacity searched from ${
        rateText(search.startRate)
      } activities/s (probes of ${rateText(search.probeSeconds)} s, up to ${
        rateText(search.probeDrainSeconds ?? 0)
      } s to drain), p99 there judged against ${
        rateText(search.latencyBoundMs / 1000)
      } s, up to ${rateText(search.timeBoxSeconds)} s per configuration`,
    );
  } else if (search != null) {
    parts.push(
      `a max-rate search from ${
        rateText(search.startRate)
      } activities/s with p99 under ${
        rateText(search.latencyBoundMs / 1000)
      } s, up to ${rateText(search.timeBoxSeconds)} s per configuration`,
    );
  }
  if (load.idleSeconds != null) {
    parts.push(`${rateText(load.idleSeconds)} s idle`);
  }
  return parts.length === 0 ? "" : `Steady load: ${parts.join("; ")}.\n`;
}

/**
 * The report of a results document beside its `latest.json`, file by file
 * in the order to write them: `charts/*.svg`, then `latest.md` and
 * `report.html` (the reports last, once their charts exist).  Each is
 * rendered when it is asked for; `lib/cli/write.ts` writes them.
 */
export async function* resultsReportFiles(
  document: ResultsDocument,
): ReportFiles {
  const charts = await renderCharts(document);
  for (const chart of charts) {
    yield { path: `charts/${chart.name}.svg`, text: chart.svg };
  }
  yield { path: "latest.md", text: renderMarkdown(document, charts) };
  yield { path: REPORT_HTML, text: await renderResultsHtml(document) };
}

/** The legend's line on Fedify's log files, or nothing without any. */
function logNote(document: ResultsDocument): string {
  const first = document.results.find((r) => r.log?.path != null);
  if (first == null) return "";
  const level = document.params.logLevel ?? "warning";
  return `- **Fedify's log**: what Fedify logged at level ${level} and up in ` +
    `the sender and worker processes, one file per configuration (e.g. ` +
    `\`${first.log!.path}\`), lines prefixed with role/pid; the notes ` +
    "count its warnings and errors.\n";
}
