/**
 * The table of drivers in docs/library.md is the one the registry writes
 * (`deno task docs`), from each driver's own `docs` row.
 */
import assert from "node:assert/strict";
import { builtinDrivers, type Driver } from "../../drivers/mod.ts";
import { driversTable, LIBRARY_DOC, withDriversTable } from "./docs.ts";

Deno.test("docs/library.md's table of drivers is the one the registry writes", async () => {
  const onDisk = await Deno.readTextFile(LIBRARY_DOC);
  assert.ok(
    onDisk === withDriversTable(onDisk, builtinDrivers),
    "docs/library.md's table of drivers differs from the drivers' docs " +
      "rows: run deno task docs",
  );
});

Deno.test("every built-in driver declares its row of the table", () => {
  const table = driversTable(builtinDrivers);
  for (const driver of builtinDrivers) {
    assert.ok(driver.docs != null, `${driver.name} declares no docs row`);
    assert.ok(table.includes(`\`${driver.name}\``), driver.name);
  }
});

Deno.test("the table of drivers: shared rows, a driver without a row, markers", () => {
  const row = { queue: "a queue", notes: "a | note" };
  const drivers: Driver[] = [
    { name: "a", description: "A", crossProcess: false, docs: row },
    { name: "b", description: "B", crossProcess: false, docs: { ...row } },
    { name: "c", description: "only a description", crossProcess: true },
  ];
  assert.equal(
    driversTable(drivers),
    [
      "| Driver   | Queue              | Notes     |",
      "| -------- | ------------------ | --------- |",
      "| `a`, `b` | a queue            | a \\| note |",
      "| `c`      | only a description |           |",
    ].join("\n"),
  );
  const start = "<!-- The table of drivers: written by `deno task docs` " +
    "from the registry (each driver's `docs`); do not edit it by hand. -->";
  const end = "<!-- End of the table of drivers. -->";
  assert.equal(
    withDriversTable(`before\n\n${start}\n\nstale\n\n${end}\n\nafter\n`, [
      drivers[2],
    ]),
    `before\n\n${start}\n\n| Driver | Queue              | Notes |\n` +
      `| ------ | ------------------ | ----- |\n` +
      `| \`c\`    | only a description |       |\n\n${end}\n\nafter\n`,
  );
  assert.throws(
    () => withDriversTable("no markers", drivers),
    /put them back around the table/,
  );
});
