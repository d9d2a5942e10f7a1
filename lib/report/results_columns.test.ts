import assert from "node:assert/strict";
import {
  columnsIn,
  isNumeric,
  markdownColumns,
  markdownLegend,
  RESULTS_COLUMNS,
  type ResultsColumn,
} from "./results_columns.ts";
import { columnTable } from "./columns.ts";
import { count } from "./cells.ts";
import { resultsTable } from "./html/table.ts";
import { renderMarkdown } from "./markdown.ts";
import { result, syntheticDocument } from "../testing/chart_fixtures.ts";

/** The headers of a Markdown table's first line. */
function markdownHeaders(table: string): string[] {
  return table.split("\n")[0].split("|").slice(1, -1).map((h) => h.trim());
}

/** The Markdown table of `rows` through `list`. */
function markdownTable(
  list: readonly ResultsColumn[],
  rows = syntheticDocument().results,
): string {
  return columnTable(markdownColumns(rows, list), rows);
}

const RETRIES: ResultsColumn = {
  header: "Retries",
  tables: ["markdown", "html"],
  key: "retries",
  value: (r) => r.parallelism * 1000,
  unit: count,
  legend: { text: "deliveries tried again." },
};

Deno.test("a column added to the list is in both tables, the HTML's numeric set and the legend", () => {
  const at = RESULTS_COLUMNS.findIndex((c) => c.header === "Dup.") + 1;
  const list = [
    ...RESULTS_COLUMNS.slice(0, at),
    RETRIES,
    ...RESULTS_COLUMNS.slice(at),
  ];
  const document = syntheticDocument();
  const markdown = markdownTable(list);
  const headers = markdownHeaders(markdown);
  assert.equal(headers[headers.indexOf("Dup.") + 1], "Retries");
  // Right-aligned, as a figure.
  const rule = markdown.split("\n")[1].split("|").slice(1, -1);
  assert.match(rule[headers.indexOf("Retries")], /-:\s*$/);

  const html = resultsTable(document, list);
  const names = html.columns.map((c) => c.name);
  assert.equal(names[names.indexOf("Dup.") + 1], "Retries");
  assert.deepEqual(html.columns[names.indexOf("Retries")], {
    name: "Retries",
    numeric: true,
  });
  // Its figure in its unit, beside the number (redis ×4).
  assert.deepEqual(html.rows[1].cells[names.indexOf("Retries")], {
    text: "4,000",
    value: 4000,
    key: "retries",
  });
  assert.equal(
    markdown.split("\n")[3].split("|")[headers.indexOf("Retries") + 1].trim(),
    "4,000",
  );

  assert.match(
    markdownLegend(document.results, list),
    /- \*\*Retries\*\*: deliveries tried again\.\n/,
  );
  assert.doesNotMatch(
    markdownLegend(document.results),
    /Retries/,
    "the list's own legend has no such line",
  );
});

Deno.test("a column of one table is only in that table", () => {
  const document = syntheticDocument();
  const htmlOnly = { ...RETRIES, tables: ["html"] } as const;
  const markdownOnly = { ...RETRIES, tables: ["markdown"] } as const;
  assert.ok(!markdownHeaders(markdownTable([htmlOnly])).includes("Retries"));
  assert.equal(markdownLegend(document.results, [htmlOnly]), "");
  assert.deepEqual(
    resultsTable(document, [htmlOnly]).columns.map((c) => c.name),
    ["Retries"],
  );
  assert.deepEqual(markdownHeaders(markdownTable([markdownOnly])), [
    "Retries",
  ]);
  assert.deepEqual(resultsTable(document, [markdownOnly]).columns, []);
});

Deno.test("the two tables show the list's columns in its order; the numeric ones are the HTML's numeric set", () => {
  const crashed = result("redis", 1, "incomplete", {
    lost: 3,
    estimate: {
      totalSeconds: 90,
      lowSeconds: 60,
      highSeconds: 120,
      deliveriesPerSecond: 1,
      stoppedBy: "time limit",
      basis: "from the last minute's rate",
    },
  });
  const results = [...syntheticDocument().results, crashed];
  const document = { ...syntheticDocument(), results };
  const html = resultsTable(document);
  assert.deepEqual(
    html.columns,
    columnsIn("html", results).map((c) => ({
      name: c.header,
      numeric: isNumeric(c),
    })),
  );
  const markdown = renderMarkdown(document);
  const table = markdown.split("\n").find((l) => l.startsWith("| Config"))!;
  assert.deepEqual(
    markdownHeaders(table),
    columnsIn("markdown", results).map((c) => c.markdownHeader ?? c.header),
  );
  // Where they differ, the list says so.
  const only = (table: "markdown" | "html") =>
    RESULTS_COLUMNS.filter((c) => c.tables.join() === table)
      .map((c) => c.header);
  assert.deepEqual(only("markdown"), ["Estimated total (bounds)", "= total"]);
  assert.deepEqual(only("html"), [
    "Kind",
    "Driver",
    "Parallelism",
    "Total (estimate)",
    "Log",
  ]);
  // Every legend line of a shown column is under the Markdown table.
  for (const column of columnsIn("markdown", results)) {
    if (column.legend == null) continue;
    assert.ok(
      markdown.includes(`- **${column.legend.term ?? column.header}**: `),
      column.header,
    );
  }
});

Deno.test("a legend line placed after another column's follows it", () => {
  const results = [result("redis", 1, "incomplete", { lost: 3 })];
  const legend = markdownLegend(results);
  const terms = [...legend.matchAll(/^- \*\*(.+?)\*\*/gm)].map((m) => m[1]);
  assert.deepEqual(terms, [
    "Send",
    "Receive",
    "Total",
    "Deliveries/s",
    "p99 latency",
    "Lost",
    "CPU/delivery",
  ]);
  assert.ok(!markdownLegend(syntheticDocument().results).includes("**Lost**"));
});
