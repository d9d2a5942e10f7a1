/**
 * Aligned Markdown tables, as the results report and `compare` print them:
 * every column padded to its widest cell, text columns left-aligned and
 * figures right-aligned (with the `---:` rule that says so).
 *
 * @module
 */

/** How a table is laid out in plain text. */
export interface TableLayout {
  /**
   * Pad every cell to its column's widest (the default); without, cells are
   * written as they are and each rule is as wide as its header.
   */
  readonly padded?: boolean;
}

/**
 * Renders a Markdown table whose columns line up in plain text too.
 *
 * @param header The column titles.
 * @param rows The cells, one array per row, as many as `header` has.
 * @param leftColumns Indexes of the left-aligned columns; the others are
 *   right-aligned.
 * @param layout Whether cells are padded (they are by default).
 * @returns The table's lines joined with newlines, without a final newline.
 */
export function alignedTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  leftColumns: Iterable<number>,
  layout: TableLayout = {},
): string {
  const padded = layout.padded ?? true;
  const left = new Set(leftColumns);
  const widths = header.map((h, i) =>
    padded ? Math.max(h.length, ...rows.map((row) => row[i].length)) : h.length
  );
  const line = (cells: readonly string[]) =>
    `| ${
      cells.map((c, i) =>
        !padded ? c : left.has(i) ? c.padEnd(widths[i]) : c.padStart(widths[i])
      ).join(" | ")
    } |`;
  const rule = `| ${
    widths.map((w, i) => left.has(i) ? "-".repeat(w) : "-".repeat(w - 1) + ":")
      .join(" | ")
  } |`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}
