/**
 * The columns of a suite's results table, declared once for both of its
 * renderings: the burst table of `latest.md` (with its legend) and the
 * headline table of `report.html`.  Each column is its header, where its
 * figure is in a row's JSON object, how a row gives the figure and in what
 * unit, its line in the Markdown legend, and which tables show it: where
 * the two tables differ (the Markdown one has the `= total` CPU and the
 * estimate with its bounds; the HTML one has the kind, driver, parallelism,
 * the estimate with its basis as a tooltip, and the log), the column says
 * so.  A column with a figure is numeric: right-aligned in Markdown, sorted
 * as numbers on the page.
 *
 * @module
 */
import { basename } from "node:path";
import {
  cell,
  count,
  cpuMs,
  deliveredCell,
  duration,
  figureCell,
  integer,
  latency,
  perSecond,
  seconds,
  type Unit,
} from "./cells.ts";
import type { Column } from "./columns.ts";
import { label, rowKind } from "./label.ts";
import { tableLabel } from "./notes.ts";
import type { ConfigurationResult } from "../results/mod.ts";

/** The tables a results column can be in. */
export type ResultsTableName = "markdown" | "html";

/** What a cell of the page shows besides its figure: words, a tooltip, a link. */
export interface CellText {
  /** The text shown. */
  readonly text: string;
  /** A link, relative to the report. */
  readonly href?: string;
  /** Shown on hover. */
  readonly title?: string;
}

/** A column's line in the legend under the Markdown table. */
export interface Legend {
  /** The term the line explains; the column's header by default. */
  readonly term?: string;
  /** What it means (continuation lines indented by two spaces). */
  readonly text: string;
  /**
   * The header of the column whose legend line this one follows, where
   * the legend's order is not the table's.
   */
  readonly after?: string;
}

/** One column of the results table, in either rendering or both. */
export interface ResultsColumn {
  /** The column's title. */
  readonly header: string;
  /** The Markdown table's title, where it differs from {@link header}. */
  readonly markdownHeader?: string;
  /** The tables that show it. */
  readonly tables: readonly ResultsTableName[];
  /**
   * Where the figure is in a row's JSON object (`latencyMs.p99`), for the
   * page to sort on it and a test to check it; none for a figure the file
   * does not hold.
   */
  readonly key?: string;
  /** The row's figure; a column with one is numeric. */
  readonly value?: (row: ConfigurationResult) => number | null | undefined;
  /** The figure's unit, when its cell is the figure in its unit. */
  readonly unit?: (value: number) => Unit;
  /**
   * The name of the figure's min–max over the runs in the row's `spread`,
   * which the Markdown cell shows after it; {@link key} by default.
   */
  readonly spread?: string;
  /** Shown only when some row of the table passes (and its legend line with it). */
  readonly when?: (rows: readonly ConfigurationResult[]) => boolean;
  /** Its line in the Markdown table's legend. */
  readonly legend?: Legend;
  /** The Markdown cell, when it is not the figure in its unit. */
  readonly markdown?: (row: ConfigurationResult) => string;
  /** The page's cell, when it is not the figure in its unit. */
  readonly html?: (row: ConfigurationResult) => CellText;
}

/** The mark of a cell whose tooltip says more. */
export const MORE = "ⓘ";

/**
 * The status of a row: `ok`, or `incomplete ⓘ` (failed, skipped) with why
 * as its tooltip.
 */
export function statusCell(
  status: string,
  reason: string | null | undefined,
): CellText {
  if (status === "ok") return { text: status };
  return {
    text: `${status} ${MORE}`,
    title: `${status}: ${reason ?? "no reason"}`,
  };
}

/** Deliveries per second, `so far` for a run that did not finish. */
function rate(result: ConfigurationResult): string {
  const text = cell(
    result,
    "deliveriesPerSecond",
    result.deliveriesPerSecond,
    perSecond,
  );
  return result.status === "ok" || text === "—" ? text : `${text} so far`;
}

/**
 * The estimated total of a row stopped by its budget or the time limit,
 * marked as an estimate, with its bounds; a dash for other rows.
 */
function estimateText(r: ConfigurationResult): string {
  const e = r.estimate;
  if (e == null) return "—";
  const s = (value: number) => integer.format(Math.round(value));
  return `~${s(e.totalSeconds)} s (${s(e.lowSeconds)}–${s(e.highSeconds)})`;
}

/** Seconds to three significant digits at most: `~58.3 s`, `~2,247 s`. */
const roughSeconds = (value: number): Unit => ({
  scale: 1,
  suffix: " s",
  digits: value >= 100 ? 0 : value >= 10 ? 1 : 2,
  grouping: true,
});

/**
 * A stopped row's estimated total on the page, `~2,247 s ⓘ`, with its
 * bounds and basis as its tooltip; a dash for a row without one.
 */
function estimateCell(r: ConfigurationResult): CellText {
  const e = r.estimate;
  if (e == null) return { text: figureCell(null, roughSeconds) };
  return {
    text: `~${figureCell(e.totalSeconds, roughSeconds)} ${MORE}`,
    title: `an estimate, not a measurement: about ${
      duration(e.totalSeconds)
    } from the first sendActivity call to the last delivery, between ${
      duration(e.lowSeconds)
    } and ${
      duration(e.highSeconds)
    } (stopped by the ${e.stoppedBy}); ${e.basis}`,
  };
}

/** The link to a configuration's log, in the folder's `logs/`. */
function logCell(r: ConfigurationResult): CellText {
  const path = r.log?.path;
  if (path == null) return { text: "—" };
  return {
    text: "log",
    href: `logs/${basename(path)}`,
    title: `${path}: ${integer.format(r.log!.warnings)} warnings, ${
      integer.format(r.log!.errors)
    } errors`,
  };
}

/**
 * App + server CPU per delivery: the app's alone without a server, unknown
 * when the server was not measured (the user's own, or crashed).
 */
function totalCpu(result: ConfigurationResult): number | null {
  const app = result.cpuMsPerDelivery;
  if (app == null) return null;
  if (result.server == null) return app;
  const server = result.serverCpuMsPerDelivery;
  return server == null ? null : app + server;
}

const BOTH: readonly ResultsTableName[] = ["markdown", "html"];
const MARKDOWN: readonly ResultsTableName[] = ["markdown"];
const HTML: readonly ResultsTableName[] = ["html"];

/** The columns of the results table, in order. */
export const RESULTS_COLUMNS: readonly ResultsColumn[] = [
  {
    header: "Configuration",
    tables: BOTH,
    markdown: (r) => tableLabel(r),
    html: (r) => ({ text: label(r) }),
  },
  { header: "Kind", tables: HTML, html: (r) => ({ text: rowKind(r) }) },
  { header: "Driver", tables: HTML, html: (r) => ({ text: r.driver }) },
  {
    header: "Parallelism",
    tables: HTML,
    key: "parallelism",
    value: (r) => r.parallelism,
    html: (r) => ({ text: String(r.parallelism) }),
  },
  {
    header: "Status",
    tables: BOTH,
    markdown: (r) => r.status,
    html: (r) => statusCell(r.status, r.reason),
  },
  {
    header: "Send",
    tables: BOTH,
    key: "sendSeconds",
    value: (r) => r.sendSeconds,
    unit: seconds,
    legend: {
      text: "the app's loop of `sendActivity` calls (the API's response time).",
    },
  },
  {
    header: "Receive",
    tables: BOTH,
    key: "receiveSeconds",
    value: (r) => r.receiveSeconds,
    unit: seconds,
    legend: { text: "first to last delivery at the inbox." },
  },
  {
    header: "Total",
    tables: BOTH,
    key: "totalSeconds",
    value: (r) => r.totalSeconds,
    unit: seconds,
    legend: { text: "first `sendActivity` call to last delivery." },
  },
  {
    header: "Total (estimate)",
    tables: HTML,
    key: "estimate.totalSeconds",
    value: (r) => r.estimate?.totalSeconds,
    html: estimateCell,
  },
  {
    header: "Delivered",
    markdownHeader: "Delivered / expected",
    tables: BOTH,
    key: "delivered",
    // A skipped row shows no count: it never ran.
    value: (r) => r.status === "skipped" ? null : r.delivered,
    markdown: deliveredCell,
    html: (r) => ({ text: deliveredCell(r) }),
  },
  {
    header: "Dup.",
    tables: BOTH,
    key: "duplicates",
    value: (r) => r.duplicates,
    unit: count,
    markdown: (r) =>
      r.status === "skipped" ? "—" : integer.format(r.duplicates),
  },
  {
    header: "Lost",
    tables: BOTH,
    key: "lost",
    value: (r) => r.lost,
    unit: count,
    // Crash runs count the deliveries lost to the crash.
    when: (rows) => rows.some((r) => r.lost != null),
    legend: {
      text: "deliveries that never arrived after the crash; the run\n" +
        "  waits for the stall timeout before it calls them lost.",
      after: "p99 latency",
    },
  },
  {
    header: "Deliveries/s",
    tables: BOTH,
    key: "deliveriesPerSecond",
    value: (r) => r.deliveriesPerSecond,
    unit: perSecond,
    markdown: rate,
    legend: { text: "distinct deliveries ÷ total." },
  },
  {
    header: "Estimated total (bounds)",
    tables: MARKDOWN,
    key: "estimate.totalSeconds",
    value: (r) => r.estimate?.totalSeconds,
    markdown: estimateText,
    // Apart from the measured totals, and only when a row was stopped.
    when: (rows) => rows.some((r) => r.estimate != null),
  },
  {
    header: "p99 latency",
    tables: BOTH,
    key: "latencyMs.p99",
    value: (r) => r.latencyMs?.p99,
    unit: latency,
    spread: "latencyP99Ms",
    legend: {
      text: "per delivery, arrival minus the start of its activity's\n" +
        "  `sendActivity` call.",
    },
  },
  {
    header: "CPU/delivery app",
    tables: BOTH,
    key: "cpuMsPerDelivery",
    value: (r) => r.cpuMsPerDelivery,
    unit: cpuMs,
    legend: {
      term: "CPU/delivery",
      text: "CPU time (user + system, start-up excluded) per\n" +
        "  distinct delivery: **app** is the sender and worker processes, " +
        "**server**\n" +
        "  the queue server the bench started (its whole process tree; a " +
        "dash when\n" +
        "  there is none or it was the user's own), **total** their sum.",
    },
  },
  {
    header: "+ server",
    tables: BOTH,
    key: "serverCpuMsPerDelivery",
    value: (r) => r.serverCpuMsPerDelivery,
    unit: cpuMs,
  },
  // Not in the results file: the sum of the two before.
  { header: "= total", tables: MARKDOWN, value: totalCpu, unit: cpuMs },
  { header: "Log", tables: HTML, html: logCell },
];

/** Whether a column holds a figure: right-aligned, sorted as a number. */
export function isNumeric(column: ResultsColumn): boolean {
  return column.value != null;
}

/** The columns `table` shows for `rows`, in order. */
export function columnsIn(
  table: ResultsTableName,
  rows: readonly ConfigurationResult[],
  columns: readonly ResultsColumn[] = RESULTS_COLUMNS,
): ResultsColumn[] {
  return columns.filter((column) =>
    column.tables.includes(table) && (column.when?.(rows) ?? true)
  );
}

/** A column's figure in its unit, a dash without one. */
function figureText(
  column: ResultsColumn,
  row: ConfigurationResult,
  withSpread: boolean,
): string {
  const value = column.value?.(row);
  if (column.unit == null) return "—";
  const name = column.spread ?? column.key;
  const spread = withSpread && name != null ? row.spread?.[name] : undefined;
  return figureCell(value, column.unit, spread);
}

/** The columns of the Markdown table of `rows`. */
export function markdownColumns(
  rows: readonly ConfigurationResult[],
  columns: readonly ResultsColumn[] = RESULTS_COLUMNS,
): Column<ConfigurationResult>[] {
  return columnsIn("markdown", rows, columns).map((column) => ({
    header: column.markdownHeader ?? column.header,
    align: isNumeric(column) ? "right" : "left",
    cell: (row) => column.markdown?.(row) ?? figureText(column, row, true),
  }));
}

/** A row's cell on the page: its text and, in a numeric column, its figure. */
export function htmlCell(
  column: ResultsColumn,
  row: ConfigurationResult,
): CellText & { readonly value?: number | null; readonly key?: string } {
  const text = column.html?.(row) ?? { text: figureText(column, row, false) };
  if (!isNumeric(column)) return text;
  return { ...text, value: column.value?.(row) ?? null, key: column.key };
}

/**
 * The legend's lines of the Markdown table's columns (those `results`
 * show), each `- **term**: text` with its final newline, in the table's
 * order but for a line placed after another.
 */
export function markdownLegend(
  results: readonly ConfigurationResult[],
  columns: readonly ResultsColumn[] = RESULTS_COLUMNS,
): string {
  const shown = columnsIn("markdown", results, columns)
    .filter((column) => column.legend != null);
  const line = (column: ResultsColumn) =>
    `- **${column.legend!.term ?? column.header}**: ${column.legend!.text}\n`;
  const headers = new Set(shown.map((column) => column.header));
  // A line placed after a column that is not shown keeps its own place.
  const anchored = (column: ResultsColumn) =>
    column.legend!.after != null && headers.has(column.legend!.after);
  const placed = (column: ResultsColumn): string[] => [
    line(column),
    ...shown.filter((c) => anchored(c) && c.legend!.after === column.header)
      .flatMap(placed),
  ];
  return shown.filter((column) => !anchored(column)).flatMap(placed).join("");
}
