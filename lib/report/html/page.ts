/**
 * The text of `report.html`: one self-contained page (the libraries, the
 * chart specs and the results inlined), with a Content-Security-Policy that
 * lets only its own scripts run and forbids every network request, so it
 * works opened from disk, offline.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { Library } from "./assets.ts";
import { CLIENT_SCRIPT } from "./client.ts";
import { escapeHtml, jsonBlock } from "./markup.ts";
import type { Cell, Table } from "./table.ts";

/** One chart as the page embeds it. */
export interface PageChart {
  /** File-name-safe name; the figure's id is `chart-NAME`. */
  readonly name: string;
  /** The title, for the figure's label. */
  readonly title: string;
  /** The interactive Vega-Lite spec. */
  readonly spec: unknown;
  /** Configurations the chart leaves out, with why, shown under it. */
  readonly omitted: readonly string[];
  /** Values of the series field drawn (one line, or one set of points, each). */
  readonly series: readonly string[];
  /** The field the legend hides series by, if any. */
  readonly seriesField: string | null;
  /** Whether the time axis zooms. */
  readonly zoom: boolean;
}

/** What a page shows. */
export interface PageContent {
  /** The page's title and heading. */
  readonly title: string;
  /** HTML under the heading: what was measured, when. */
  readonly intro: string;
  /** The headline table. */
  readonly table: Table;
  /** HTML under the table: notes on rows. */
  readonly notes: string;
  /** The charts, in the Markdown report's order. */
  readonly charts: readonly PageChart[];
  /** HTML of the environment section (calibration included), or empty. */
  readonly environment: string;
  /** The results file, inlined for readers and tests. */
  readonly data: unknown;
  /** The libraries, in load order. */
  readonly libraries: readonly Library[];
}

const STYLE = `
body { font: 14px/1.45 system-ui, Helvetica, Arial, sans-serif; margin: 0 auto;
  max-width: 1200px; padding: 1rem 1.5rem 3rem; color: #222; }
h1 { font-size: 1.5rem; } h2 { margin-top: 2rem; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 0.25rem 0.5rem; border-bottom: 1px solid #eee; vertical-align: top;
  white-space: nowrap; }
th { text-align: left; position: sticky; top: 0; background: #fff; }
th button { font: inherit; font-weight: 600; border: 0; background: none;
  padding: 0; cursor: pointer; text-align: inherit; }
th[aria-sort=ascending] button::after { content: " ▲"; }
th[aria-sort=descending] button::after { content: " ▼"; }
td.num, th.num { text-align: right; white-space: nowrap; }
tr.incomplete td { background: #fff6e5; }
tr.incomplete td.status { font-weight: 600; color: #8a4b00; }
td.note { max-width: 28rem; overflow: hidden; text-overflow: ellipsis; font-size: 0.9em; color: #555; }
td[title] { cursor: help; }
.filters { display: flex; gap: 1rem; align-items: center; margin: 0.5rem 0; flex-wrap: wrap; }
.scroll { overflow-x: auto; }
figure { margin: 1.5rem 0; }
figcaption { font-size: 0.9em; color: #555; max-width: 760px; }
.hint { font-size: 0.85em; color: #666; }
code { font-size: 0.92em; }
blockquote { border-left: 4px solid #e0a000; margin: 0.5rem 0; padding: 0.25rem 0.75rem; background: #fffaf0; }
`;

function hash(text: string): string {
  return `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
}

function cellHtml(cell: Cell, numeric: boolean, className = ""): string {
  const classes = [numeric ? "num" : "", className].filter((c) => c !== "");
  const attributes = [
    classes.length > 0 ? ` class="${classes.join(" ")}"` : "",
    cell.key != null ? ` data-key="${escapeHtml(cell.key)}"` : "",
    cell.key != null ? ` data-value="${cell.value ?? ""}"` : "",
    cell.title != null ? ` title="${escapeHtml(cell.title)}"` : "",
  ].join("");
  const text = escapeHtml(cell.text);
  const content = cell.href == null
    ? text
    : `<a href="${escapeHtml(cell.href)}">${text}</a>`;
  return `<td${attributes}>${content}</td>`;
}

function tableHtml(table: Table): string {
  const head = table.columns.map((c) =>
    `<th scope="col"${c.numeric ? ' class="num"' : ""}><button type="button">${
      escapeHtml(c.name)
    }</button></th>`
  ).join("");
  const classes = table.columns.map((c) =>
    c.name === "Status" ? "status" : c.name === "Note" ? "note" : ""
  );
  const rows = table.rows.map((row) => {
    const data = Object.entries(row.filters).map(([k, v]) =>
      ` data-${k}="${escapeHtml(v)}"`
    ).join("");
    const cells = row.cells.map((cell, i) =>
      cellHtml(cell, table.columns[i].numeric, classes[i])
    ).join("");
    const labels = ` data-labels="${escapeHtml(JSON.stringify(row.labels))}"`;
    return `<tr data-index="${row.index}"${data}${labels}${
      row.incomplete ? ' class="incomplete"' : ""
    }>${cells}</tr>`;
  }).join("\n");
  return `<div class="scroll"><table id="headline" data-list="${table.list}">
<thead><tr>${head}</tr></thead>
<tbody>
${rows}
</tbody></table></div>`;
}

function filtersHtml(table: Table): string {
  const selects = table.filters.map((name) => {
    const values = [...new Set(table.rows.map((r) => r.filters[name]))];
    if (name === "parallelism") values.sort((a, b) => Number(a) - Number(b));
    const options = values.map((v) =>
      `<option value="${escapeHtml(v)}">${escapeHtml(v)}</option>`
    ).join("");
    return `<label>${name} <select data-filter="${name}">` +
      `<option value="">all</option>${options}</select></label>`;
  }).join("\n");
  return `<div class="filters">${selects}<span id="shown"></span></div>`;
}

function chartHtml(chart: PageChart): string {
  const hints = [
    "hover a mark for its values",
    ...(chart.seriesField == null
      ? []
      : ["click a legend entry to hide or show it (double-click: show all)"]),
    ...(chart.zoom ? ["scroll to zoom the time axis, drag to pan"] : []),
  ];
  const omitted = chart.omitted.length === 0
    ? ""
    : `<figcaption class="omitted">Not drawn: ${
      chart.omitted.map(escapeHtml).join("; ")
    }.</figcaption>`;
  return `<figure id="chart-${chart.name}" data-series="${chart.series.length}"${
    chart.seriesField == null ? "" : ` data-series-field="${chart.seriesField}"`
  }${chart.zoom ? " data-zoom" : ""}>
<div class="view" aria-label="${escapeHtml(chart.title)}"></div>
<div class="hint">${hints.join(" · ")}</div>
${omitted}
</figure>`;
}

/** Renders the page. */
export function renderPage(content: PageContent): string {
  const charts = content.charts.map((c) => ({ name: c.name, spec: c.spec }));
  const scripts = [
    ...content.libraries.map((l) => l.script),
    CLIENT_SCRIPT,
  ];
  const policy = [
    "default-src 'none'",
    `script-src ${scripts.map(hash).join(" ")}`,
    "style-src 'unsafe-inline'",
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  const versions = content.libraries.map((l) => `${l.name} ${l.version}`)
    .join(", ");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(content.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${escapeHtml(content.title)}</h1>
${content.intro}
<section id="results">
<h2>Results</h2>
${filtersHtml(content.table)}
${tableHtml(content.table)}
<p class="hint">Click a column's name to sort by it. Rows that did not finish are shaded; hover a cell marked ⓘ for why, and for an estimate's bounds and basis${
    content.notes === "" ? "" : ", which the notes below also give"
  }.</p>
${content.notes === "" ? "" : `<div id="notes">\n${content.notes}\n</div>`}
</section>
${
    content.charts.length === 0
      ? ""
      : `<section id="charts">\n<h2>Charts</h2>\n${
        content.charts.map(chartHtml).join("\n")
      }\n</section>`
  }
${
    content.environment === ""
      ? ""
      : `<section id="environment">\n<h2>Environment</h2>\n${content.environment}\n</section>`
  }
<p class="hint">Self-contained: drawn with ${
    escapeHtml(versions)
  }, inlined; the page makes no network request.</p>
<script type="application/json" id="report-data">${
    jsonBlock(content.data)
  }</script>
<script type="application/json" id="report-charts">${jsonBlock(charts)}</script>
${scripts.map((s) => `<script>${s}</script>`).join("\n")}
</body>
</html>
`;
}
