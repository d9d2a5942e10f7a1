/**
 * `deno task docs`: writes docs/options.md, the option list of every
 * command, from the parameter tables, and the table of drivers in
 * docs/library.md from the registry (each driver's `docs` row).
 * `lib/params/params.test.ts` and `lib/cli/docs.test.ts` fail when the
 * files differ from what this would write.
 *
 * @module
 */
import { builtinDrivers, type Driver } from "../../drivers/mod.ts";
import {
  ADVISE,
  AGENT,
  BENCH,
  DEQUEUE_COST,
  FRESH_CHECK,
  IMAGE,
  renderOptionsDoc,
} from "../params/mod.ts";
import { alignedTable } from "../report/markdown_table.ts";

/** Where the option list lives, from the repository root. */
export const OPTIONS_DOC = new URL("../../docs/options.md", import.meta.url);

/** Where the table of drivers lives, from the repository root. */
export const LIBRARY_DOC = new URL("../../docs/library.md", import.meta.url);

/** The line before the table of drivers in {@link LIBRARY_DOC}. */
const TABLE_START = "<!-- The table of drivers: written by `deno task docs` " +
  "from the registry (each driver's `docs`); do not edit it by hand. -->";

/** The line after it. */
const TABLE_END = "<!-- End of the table of drivers. -->";

/** The option list's text. */
export function optionsDoc(): string {
  return renderOptionsDoc([
    BENCH,
    DEQUEUE_COST,
    ADVISE,
    FRESH_CHECK,
    AGENT,
    IMAGE,
  ]);
}

/**
 * The Markdown table of `drivers`, in their order: one row per driver, its
 * name, then its `docs` row's Queue and Notes (its description and no
 * notes when it declares none); drivers next to each other whose rows are
 * equal share one.  Columns are padded as `deno fmt` pads them.
 *
 * @param drivers The registry's drivers.
 */
export function driversTable(drivers: readonly Driver[]): string {
  const rows: { names: string[]; queue: string; notes: string }[] = [];
  for (const driver of drivers) {
    const { queue, notes } = driver.docs ??
      { queue: driver.description, notes: "" };
    const last = rows.at(-1);
    if (last != null && last.queue === queue && last.notes === notes) {
      last.names.push(driver.name);
    } else rows.push({ names: [driver.name], queue, notes });
  }
  const cell = (text: string) => text.replaceAll("|", "\\|");
  return alignedTable(
    ["Driver", "Queue", "Notes"],
    rows.map(({ names, queue, notes }) => [
      names.map((name) => `\`${name}\``).join(", "),
      cell(queue),
      cell(notes),
    ]),
    [0, 1, 2],
  );
}

/**
 * `text` (docs/library.md's) with the table between its markers written
 * anew from `drivers`.
 *
 * @param text The document.
 * @param drivers The registry's drivers.
 * @throws {Error} When the document lacks the markers, naming them.
 */
export function withDriversTable(
  text: string,
  drivers: readonly Driver[],
): string {
  const start = text.indexOf(TABLE_START);
  const end = text.indexOf(TABLE_END, start);
  if (start < 0 || end < 0) {
    throw new Error(
      `docs/library.md has no table of drivers between the lines ` +
        `${TABLE_START} and ${TABLE_END}; put them back around the table`,
    );
  }
  return `${text.slice(0, start + TABLE_START.length)}\n\n${
    driversTable(drivers)
  }\n\n${text.slice(end)}`;
}

if (import.meta.main) {
  await Deno.writeTextFile(OPTIONS_DOC, optionsDoc());
  console.log(`wrote ${OPTIONS_DOC.pathname}`);
  const library = await Deno.readTextFile(LIBRARY_DOC);
  await Deno.writeTextFile(
    LIBRARY_DOC,
    withDriversTable(library, builtinDrivers),
  );
  console.log(`wrote the table of drivers in ${LIBRARY_DOC.pathname}`);
}
