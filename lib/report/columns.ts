/**
 * Tables declared as lists of columns: each column is its header, the side
 * its cells line up on, and how a row becomes its cell (words, or a figure
 * in its unit with its min–max over the runs).  A report's table is a list
 * of such declarations, and {@link columnTable} renders rows through them.
 *
 * @module
 */
import { figureCell, spreadOver, type Unit } from "./cells.ts";
import { alignedTable, type TableLayout } from "./markdown_table.ts";
import type { ConfigurationResult, RunResult, Spread } from "../results/mod.ts";

/** One column of a table whose rows are `R`. */
export interface Column<R> {
  /** The column's title. */
  readonly header: string;
  /** `left` for words, `right` for figures. */
  readonly align: "left" | "right";
  /** The row's cell in this column. */
  readonly cell: (row: R) => string;
}

/** A column of words (a name, a status), left-aligned. */
export function textColumn<R>(
  header: string,
  cell: (row: R) => string,
): Column<R> {
  return { header, align: "left", cell };
}

/** A column of figures the row prints itself (a count, a ratio), right-aligned. */
export function numberColumn<R>(
  header: string,
  cell: (row: R) => string,
): Column<R> {
  return { header, align: "right", cell };
}

/**
 * A column of figures in a unit, right-aligned: the row's value, with its
 * min–max when `spread` gives one; a dash when the row has no value.
 */
export function figureColumn<R>(
  header: string,
  unit: (value: number) => Unit,
  value: (row: R) => number | null | undefined,
  spread: (row: R) => Spread | undefined = () => undefined,
): Column<R> {
  return {
    header,
    align: "right",
    cell: (row) => figureCell(value(row), unit, spread(row)),
  };
}

/**
 * A figure of a configuration in a unit, with its min–max over the runs
 * that have it: `pick` reads it from the configuration and from each run.
 */
export function runsColumn(
  header: string,
  unit: (value: number) => Unit,
  pick: (run: RunResult) => number | null | undefined,
): Column<ConfigurationResult> {
  return figureColumn<ConfigurationResult>(
    header,
    unit,
    pick,
    (row) => spreadOver(row, pick),
  );
}

/**
 * Renders rows through their columns as an aligned Markdown table, without
 * a final newline.
 */
export function columnTable<R>(
  columns: readonly Column<R>[],
  rows: readonly R[],
  layout: TableLayout = {},
): string {
  return alignedTable(
    columns.map((column) => column.header),
    rows.map((row) => columns.map((column) => column.cell(row))),
    columns.flatMap((column, i) => column.align === "left" ? [i] : []),
    layout,
  );
}
