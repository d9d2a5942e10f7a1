/**
 * Imports point one way: the module graph (`deno info --json`, type-only
 * imports included) has no cycle and no import against the layers of
 * `lib/testing/layers.ts`, and docs/architecture.md lists
 * those layers.  Each name has one address: only a folder's `mod.ts`
 * re-exports, and no two product files share a file name.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  type ReExport,
  reExportsOf,
  sharedNames,
} from "./testing/addresses.ts";
import { LAYERS, ONLY, TESTS_ONLY } from "./testing/layers.ts";
import {
  type Arrow,
  checkLayers,
  findCycles,
  folderName,
  foldersOfItem,
  formatArrow,
  type Layering,
  type ModuleGraph,
  numberedList,
  onlyRule,
  readModuleGraph,
  sourceModules,
} from "./testing/module_graph.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const LAYERING: Layering = {
  layers: LAYERS,
  only: ONLY,
  testsOnly: TESTS_ONLY,
};

/**
 * TEMPORARY: imports against the layers that another change removes.  Each
 * entry is exactly one arrow; the test fails once an entry's arrow is gone,
 * so the list only shrinks.  Empty: keep it so.
 */
const TEMPORARY_ALLOWED: readonly Pick<Arrow, "from" | "to">[] = [];

/** The folders of the product's modules (and, in `lib/`, the test helpers). */
const PRODUCT_FOLDERS = ["lib", "drivers", "fake_inbox", "examples"];

let graph: Promise<ModuleGraph> | undefined;

/** The graph from every entry point, read once for all the tests below. */
function projectGraph(): Promise<ModuleGraph> {
  graph ??= (async () =>
    readModuleGraph(ROOT, [
      "bench.ts",
      "mod.ts",
      ...await sourceModules(ROOT, PRODUCT_FOLDERS),
    ]))();
  return graph;
}

/** The product modules: every non-test module but the test helpers'. */
async function productModules(): Promise<string[]> {
  return (await sourceModules(ROOT, PRODUCT_FOLDERS))
    .filter((path) => !path.startsWith(`${TESTS_ONLY}/`));
}

const isAllowed = (arrow: Arrow) =>
  TEMPORARY_ALLOWED.some((a) => a.from === arrow.from && a.to === arrow.to);

Deno.test("the module graph has no import cycle, type-only imports included", async () => {
  const cycles = findCycles(await projectGraph());
  assert.deepEqual(
    cycles.map((cycle) => cycle.join(" → ")),
    [],
    "import cycles (move the shared type to the lower module or below it)",
  );
});

Deno.test("every import points down the layers of lib/testing/layers.ts", async () => {
  const breaches = checkLayers(await projectGraph(), LAYERING)
    .filter((b) => !isAllowed(b.arrow));
  assert.deepEqual(
    breaches.map((b) => `${formatArrow(b.arrow)}: ${b.rule}`),
    [],
    "imports against the layers",
  );
});

Deno.test("every temporarily allowed import still exists", async () => {
  const { arrows } = await projectGraph();
  const gone = TEMPORARY_ALLOWED.filter((a) =>
    !arrows.some((arrow) => arrow.from === a.from && arrow.to === a.to)
  );
  assert.deepEqual(
    gone.map((a) => `${a.from} → ${a.to}`),
    [],
    "gone: remove these from TEMPORARY_ALLOWED in lib/architecture.test.ts",
  );
});

Deno.test("the graph reaches every entry point and sees type-only imports", async () => {
  const { modules, arrows } = await projectGraph();
  for (const module of ["bench.ts", "mod.ts", "lib/cli/report.ts"]) {
    assert.ok(modules.includes(module), module);
  }
  // `lib/run/outcome.ts` imports only types from the results.
  assert.ok(
    arrows.some((a) =>
      a.from === "lib/run/outcome.ts" && a.to === "lib/results/mod.ts" &&
      a.typeOnly
    ),
  );
});

Deno.test("docs/architecture.md lists the same layers", async () => {
  const readme = await Deno.readTextFile(`${ROOT}docs/architecture.md`);
  const items = numberedList(readme, "# Architecture");
  assert.deepEqual(
    items.map(foldersOfItem),
    LAYERS.map((layer) => [...layer]),
    "docs/architecture.md's layers, one numbered item each: " +
      LAYERS.map((l, i) => `${i + 1}. ${l.map(folderName).join(", ")}`)
        .join("; "),
  );
  for (const [folder, allowed] of Object.entries(ONLY)) {
    const item = items.find((i) => foldersOfItem(i).includes(folder)) ?? "";
    const rule = onlyRule(folder, allowed);
    assert.ok(
      item.includes(rule),
      `docs/architecture.md's layer should say "${rule}"`,
    );
  }
});

Deno.test("checkLayers names the rule each import breaks", () => {
  const layering: Layering = {
    layers: [["top.ts"], ["a", "b"], ["low"]],
    only: { a: ["low"] },
    testsOnly: "t",
  };
  const arrow = (from: string, to: string): Arrow => ({
    from,
    to,
    typeOnly: false,
  });
  const breaches = checkLayers({
    modules: [],
    arrows: [
      arrow("top.ts", "a/x.ts"),
      arrow("a/x.ts", "a/y.ts"),
      arrow("b/x.ts", "low/x.ts"),
      arrow("b/x.ts", "a/x.ts"),
      arrow("a/x.ts", "b/x.ts"),
      arrow("low/x.ts", "top.ts"),
      arrow("low/x.ts", "t/x.ts"),
      arrow("t/x.ts", "top.ts"),
      arrow("low/x.test.ts", "top.ts"),
      arrow("other/x.ts", "low/x.ts"),
    ],
  }, layering);
  assert.deepEqual(breaches.map((b) => `${formatArrow(b.arrow)}: ${b.rule}`), [
    "b/x.ts → a/x.ts: `b/` and `a/` are one layer (2): a folder does not " +
    "import its layer's other folders",
    "a/x.ts → b/x.ts: `a/` imports only `low/`",
    "low/x.ts → top.ts: `low/` (layer 3) imports upward, from `top.ts` " +
    "(layer 1)",
    "low/x.ts → t/x.ts: `t/` is imported by tests only",
    "other/x.ts → low/x.ts: other/x.ts is in no folder of the layers: add " +
    "its folder to lib/testing/layers.ts and docs/architecture.md",
  ]);
});

Deno.test("findCycles finds each cycle once, through type-only imports too", () => {
  const arrow = (from: string, to: string, typeOnly = true): Arrow => ({
    from,
    to,
    typeOnly,
  });
  assert.deepEqual(
    findCycles({
      modules: ["a", "b", "c", "d", "e"],
      arrows: [
        arrow("a", "b"),
        arrow("b", "c", false),
        arrow("c", "a"),
        arrow("c", "d"),
        arrow("e", "e"),
      ],
    }),
    [["a", "b", "c", "a"], ["e", "e"]],
  );
});

Deno.test("numberedList reads a section's items, wrapped lines joined", () => {
  const markdown = [
    "## Other",
    "",
    "1. `nope/`: another section",
    "",
    "## Architecture",
    "",
    "Some prose.",
    "",
    "9. `a/`, `b.ts`: the first,",
    "   wrapped `c/`",
    "10. `d/`: the second, wrapped",
    "    further",
    "",
    "Prose after the list.",
    "",
    "1. `later/`: not the layers",
  ].join("\n");
  const items = numberedList(markdown, "## Architecture");
  assert.deepEqual(items, [
    "`a/`, `b.ts`: the first, wrapped `c/`",
    "`d/`: the second, wrapped further",
  ]);
  assert.deepEqual(items.map(foldersOfItem), [["a", "b.ts"], ["d"]]);
});

Deno.test("re-exports only in mod.ts files", async () => {
  const found: ReExport[] = [];
  for (const file of ["bench.ts", ...await productModules()]) {
    if (file.endsWith("/mod.ts")) continue;
    found.push(...reExportsOf(file, await Deno.readTextFile(ROOT + file)));
  }
  assert.deepEqual(
    found.map(({ file, name }) => `${file}: ${name}`),
    [],
    "re-exports outside a folder's mod.ts: import each name from its home " +
      "file (or its folder's mod.ts) instead",
  );
});

Deno.test("no two product files share a name", async () => {
  assert.deepEqual(
    sharedNames(await productModules()).map((paths) => paths.join(" ")),
    [],
    "product files of one name: rename them so that each name says its " +
      "file's job (e.g. a suffix per folder: _params.ts, _record.ts)",
  );
});

Deno.test("reExportsOf finds `export … from` and exported imports only", () => {
  const source = [
    '/** `export { a } from "./doc.ts"` in a comment is no code. */',
    'import { imported, type Kind as Alias } from "./a.ts";',
    'import * as all from "./b.ts";',
    'import fallback from "./c.ts";',
    "const own = 1;",
    'export { x, type Y as Z } from "./d.ts";',
    'export * from "./e.ts";',
    'export * as space from "./f.ts";',
    "export { imported, own, Alias as Kind, all, fallback };",
  ].join("\n");
  assert.deepEqual(
    reExportsOf("x.ts", source).map(({ name }) => name),
    ["x", "Z", "*", "space", "imported", "Kind", "all", "fallback"],
  );
});

Deno.test("sharedNames groups files of one name, mod.ts apart", () => {
  assert.deepEqual(
    sharedNames([
      "lib/a/types.ts",
      "lib/a/mod.ts",
      "lib/b/mod.ts",
      "lib/b/types.ts",
      "lib/b/own.ts",
      "drivers/types.ts",
    ]),
    [["drivers/types.ts", "lib/a/types.ts", "lib/b/types.ts"]],
  );
});
