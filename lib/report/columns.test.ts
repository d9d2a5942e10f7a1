import assert from "node:assert/strict";
import {
  columnTable,
  figureColumn,
  numberColumn,
  runsColumn,
  textColumn,
} from "./columns.ts";
import { seconds } from "./cells.ts";
import { result } from "../testing/chart_fixtures.ts";

interface Row {
  readonly name: string;
  readonly count: number;
  readonly time: number | null;
}

const COLUMNS = [
  textColumn<Row>("Name", (r) => r.name),
  numberColumn<Row>("Count", (r) => String(r.count)),
  figureColumn<Row>(
    "Time",
    seconds,
    (r) => r.time,
    (r) => r.time == null ? undefined : { min: r.time - 1, max: r.time + 1 },
  ),
];
const ROWS: Row[] = [
  { name: "a", count: 1200, time: 2 },
  { name: "longer", count: 3, time: null },
];

Deno.test("a table of columns: words left, figures right, each column as wide as its widest cell", () => {
  assert.equal(
    columnTable(COLUMNS, ROWS),
    [
      "| Name   | Count |               Time |",
      "| ------ | ----: | -----------------: |",
      "| a      |  1200 | 2.00 s (1.00–3.00) |",
      "| longer |     3 |                  — |",
    ].join("\n"),
  );
});

Deno.test("an unpadded table: cells as they are, rules as wide as the headers", () => {
  assert.equal(
    columnTable(COLUMNS, ROWS, { padded: false }),
    [
      "| Name | Count | Time |",
      "| ---- | ----: | ---: |",
      "| a | 1200 | 2.00 s (1.00–3.00) |",
      "| longer | 3 | — |",
    ].join("\n"),
  );
});

Deno.test("a figure over the runs has the runs' min–max", () => {
  const runs = [1, 3, 2].map((totalSeconds) =>
    result("redis", 1, "ok", { totalSeconds })
  );
  const row = { ...result("redis", 1, "ok", { totalSeconds: 2 }), runs };
  const column = runsColumn("Total", seconds, (run) => run.totalSeconds);
  assert.equal(column.cell(row), "2.00 s (1.00–3.00)");
  assert.equal(column.align, "right");
});
