/**
 * The order of the project's folders, top first: the one place it is
 * written as data.  A module may import from its own folder and from the
 * folders of the layers below its own; never from above, and never from
 * another folder of its own layer.  `lib/architecture.test.ts` checks every
 * import of the module graph (type-only imports included) against it, and
 * checks that docs/architecture.md lists the same layers.
 *
 * A folder is a path from the repository's root without a trailing slash
 * (`lib/run` holds every module under `lib/run/`); a top-level module is
 * its file name (`bench.ts`).
 *
 * @module
 */

/** The layers, top first; each is a list of folders. */
export const LAYERS: readonly (readonly string[])[] = [
  ["examples"],
  ["bench.ts", "mod.ts"],
  ["lib/cli"],
  ["lib/report", "lib/fresh", "lib/deploy"],
  ["lib/analysis"],
  ["lib/run"],
  ["lib/child"],
  ["lib/workload", "drivers", "lib/queue", "fake_inbox", "lib/agent"],
  ["lib/measure", "lib/services"],
  ["lib/system"],
  ["lib/ipc"],
  ["lib/runtime"],
  ["lib/params"],
  ["lib/results", "results"],
];

/**
 * Folders that may import only some of the folders below them (besides
 * their own): a driver of your own sees the library's face; a report reads
 * results and what was found in them (`lib/analysis/`), never the code that
 * made them; and the fresh-machine check, which stands with the report,
 * imports none of the report, the analysis or the run stage (only what
 * stands below the run stage).
 */
export const ONLY: Readonly<Record<string, readonly string[]>> = {
  examples: ["mod.ts"],
  "lib/report": ["lib/analysis", "lib/params", "lib/results"],
  "lib/fresh": LAYERS.slice(
    LAYERS.findIndex((layer) => layer.includes("lib/run")) + 1,
  ).flat(),
};

/** The folder of test helpers: imported by `*.test.ts` files only. */
export const TESTS_ONLY = "lib/testing";
