/**
 * The headline table of `report.html` as data: one row per configuration
 * (or, for a dequeue-cost folder, per driver and backlog), each figure with
 * the exact number of the results file beside the text the Markdown report
 * prints for it, so that the page can sort on the number and a test can
 * check the one against the other.  Every cell is short, so that every row
 * stays one line high: a reason or an estimate's basis is the cell's
 * tooltip (its status, marked ⓘ, or its estimate), and the page's notes
 * under the table say it again.
 *
 * @module
 */
import { count, figureCell, msFigure, type Unit } from "../cells.ts";
import { configurationLabel, label } from "../label.ts";
import {
  type CellText,
  columnsIn,
  htmlCell,
  isNumeric,
  RESULTS_COLUMNS,
  type ResultsColumn,
  statusCell,
} from "../results_columns.ts";
import type {
  DequeueCostDocument,
  DequeueCostPoint,
} from "../../results/dequeue_cost_record.ts";
import type { ResultsDocument } from "../../results/mod.ts";

/** One cell: what it shows and, for a figure, the number it shows. */
export interface Cell extends CellText {
  /** The number in the results file, for sorting and checking. */
  readonly value?: number | null;
  /** Where the number is in the row's JSON object, e.g. `latencyMs.p99`. */
  readonly key?: string;
}

/** One row and the values the page filters it by. */
export interface Row {
  /** The row's index in the results file's list (`results` or `points`). */
  readonly index: number;
  /** The cells, in column order. */
  readonly cells: readonly Cell[];
  /** `driver`, `parallelism` and `status`, as filter values. */
  readonly filters: Readonly<Record<string, string>>;
  /** Whether the row did not finish (marked on the page). */
  readonly incomplete: boolean;
  /**
   * The names its series may have in the charts (by configuration or by
   * driver), for the page's filters to show only the rows' series.
   */
  readonly labels: readonly string[];
}

/** The table: column headers, whether each is numeric, and the rows. */
export interface Table {
  /** Headers and whether the column sorts as numbers. */
  readonly columns: readonly {
    readonly name: string;
    readonly numeric: boolean;
  }[];
  /** The rows, in the results file's order. */
  readonly rows: readonly Row[];
  /** The filters the page offers, in order. */
  readonly filters: readonly string[];
  /** The JSON list the rows index (`results` or `points`). */
  readonly list: string;
}

function figure(
  value: number | null | undefined,
  unit: (value: number) => Unit,
  key: string,
): Cell {
  return { text: figureCell(value, unit), value: value ?? null, key };
}

/**
 * The headline table of a suite's results: every row of the file, in the
 * columns of {@link RESULTS_COLUMNS} the page shows.
 */
export function resultsTable(
  document: ResultsDocument,
  list: readonly ResultsColumn[] = RESULTS_COLUMNS,
): Table {
  const shown = columnsIn("html", document.results, list);
  const rows = document.results.map((r, index): Row => ({
    index,
    incomplete: r.status !== "ok",
    labels: [
      ...new Set([
        label(r),
        `${label(r)} (${r.status})`,
        configurationLabel(r),
        r.driver,
        // The scaling chart's line of the driver.
        label({
          driver: r.driver,
          parallelism: 1,
          parallelImpl: r.parallelImpl,
        }),
      ]),
    ],
    filters: {
      driver: r.driver,
      parallelism: String(r.parallelism),
      status: r.status,
    },
    cells: shown.map((column) => htmlCell(column, r)),
  }));
  return {
    columns: shown.map((column) => ({
      name: column.header,
      numeric: isNumeric(column),
    })),
    rows,
    filters: ["driver", "parallelism", "status"],
    list: "results",
  };
}

/** A column of the dequeue-cost table: numeric when it shows a figure. */
interface PointColumn {
  readonly name: string;
  readonly numeric: boolean;
  readonly cell: (point: DequeueCostPoint) => Cell;
}

/** A column of words. */
function words(
  name: string,
  cell: (point: DequeueCostPoint) => Cell,
): PointColumn {
  return { name, numeric: false, cell };
}

/** A column of a figure in its unit, found at `key` in a point. */
function figureOf(
  name: string,
  unit: (value: number) => Unit,
  key: string,
  value: (point: DequeueCostPoint) => number | null | undefined,
): PointColumn {
  return {
    name,
    numeric: true,
    cell: (p) => figure(value(p), unit, key),
  };
}

const tenths = (): Unit => ({ scale: 1, suffix: " s", digits: 1 });

/** The columns of the dequeue-cost table, in order. */
const DEQUEUE_COST_COLUMNS: readonly PointColumn[] = [
  words("Driver", (p) => ({ text: p.driver })),
  figureOf("Backlog", count, "backlog", (p) => p.backlog),
  words("Status", (p) => statusCell(p.status, p.reason)),
  figureOf("Fill", tenths, "fillSeconds", (p) => p.fillSeconds),
  figureOf("Dequeued", count, "dequeued", (p) => p.dequeued),
  figureOf("ms/dequeue", msFigure, "msPerDequeue", (p) => p.msPerDequeue),
  figureOf("p50 gap", msFigure, "gapMs.p50", (p) => p.gapMs?.p50),
  figureOf("p90 gap", msFigure, "gapMs.p90", (p) => p.gapMs?.p90),
  figureOf("max gap", msFigure, "gapMs.max", (p) => p.gapMs?.max),
  // Shortened on the page to one line; whole in its tooltip.
  words(
    "Note",
    (p) => ({ text: p.reason ?? "", title: p.reason ?? undefined }),
  ),
];

/** The table of a dequeue-cost folder: one row per driver and backlog. */
export function dequeueCostTable(document: DequeueCostDocument): Table {
  const rows = document.points.map((p: DequeueCostPoint, index): Row => ({
    index,
    incomplete: p.status !== "ok",
    labels: [p.driver],
    filters: { driver: p.driver, status: p.status },
    cells: DEQUEUE_COST_COLUMNS.map((column) => column.cell(p)),
  }));
  return {
    columns: DEQUEUE_COST_COLUMNS.map(({ name, numeric }) => ({
      name,
      numeric,
    })),
    rows,
    filters: ["driver", "status"],
    list: "points",
  };
}
