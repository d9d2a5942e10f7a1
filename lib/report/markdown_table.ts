/**
 * Aligned Markdown tables, as the results report and `compare` print them:
 * every column padded to its widest cell, text columns left-aligned and
 * figures right-aligned (with the `---:` rule that says so).
 *
 * @module
 */

/**
 * Renders a Markdown table whose columns line up in plain text too.
 *
 * @param header The column titles.
 * @param rows The cells, one array per row, as many as `header` has.
 * @param leftColumns Indexes of the left-aligned columns; the others are
 *   right-aligned.
 * @returns The table's lines joined with newlines, without a final newline.
 */
export function alignedTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  leftColumns: Iterable<number>,
): string {
  const left = new Set(leftColumns);
  const widths = header.map((h, i) =>
    Math.max(h.length, ...rows.map((row) => row[i].length))
  );
  const line = (cells: readonly string[]) =>
    `| ${
      cells.map((c, i) =>
        left.has(i) ? c.padEnd(widths[i]) : c.padStart(widths[i])
      ).join(" | ")
    } |`;
  const rule = `| ${
    widths.map((w, i) => left.has(i) ? "-".repeat(w) : "-".repeat(w - 1) + ":")
      .join(" | ")
  } |`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}
