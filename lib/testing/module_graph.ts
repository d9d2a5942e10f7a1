/**
 * The project's module graph as `deno info --json` reports it, and the two
 * rules `lib/architecture.test.ts` checks on it: no import cycle, and every
 * import pointing down a {@link Layering}.  `deno info` reports a type-only
 * import (`import type`, `export type … from`, `typeof import(…)`) as a
 * dependency with a `type` side and no `code` side, so type-only imports
 * are arrows like any other here.
 *
 * @module
 */
import { join, relative } from "node:path";

/** One import: `from` imports `to` (paths from the repository's root). */
export interface Arrow {
  /** The importing module. */
  readonly from: string;
  /** The imported module. */
  readonly to: string;
  /** Whether every import of `to` in `from` is type-only. */
  readonly typeOnly: boolean;
}

/** The project's own modules and the imports between them. */
export interface ModuleGraph {
  /** Every module of the repository reached, sorted. */
  readonly modules: readonly string[];
  /** Every import between two of them, sorted. */
  readonly arrows: readonly Arrow[];
}

/** A folder order: see `layers.ts`. */
export interface Layering {
  /** The layers, top first; each a list of folders. */
  readonly layers: readonly (readonly string[])[];
  /** Folders that may import only the folders listed (and their own). */
  readonly only: Readonly<Record<string, readonly string[]>>;
  /** The folder only test files may import. */
  readonly testsOnly: string;
}

/** An import against a {@link Layering}, and the rule it breaks. */
export interface Breach {
  /** The import. */
  readonly arrow: Arrow;
  /** The rule, in words. */
  readonly rule: string;
}

/** Whether `path` is a test module. */
function isTest(path: string): boolean {
  return path.endsWith(".test.ts");
}

/**
 * Every non-test `.ts` module under `folders` of `root` (recursively), as
 * paths from `root`, sorted.
 */
export async function sourceModules(
  root: string,
  folders: readonly string[],
): Promise<string[]> {
  const found: string[] = [];
  const walk = async (folder: string) => {
    for await (const entry of Deno.readDir(join(root, folder))) {
      const path = `${folder}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (path.endsWith(".ts") && !isTest(path)) found.push(path);
    }
  };
  for (const folder of folders) await walk(folder);
  return found.sort();
}

interface InfoDependency {
  readonly code?: { readonly specifier?: string };
  readonly type?: { readonly specifier?: string };
}

interface InfoModule {
  readonly specifier: string;
  readonly error?: string;
  readonly dependencies?: readonly InfoDependency[];
}

/** `deno info --json` of one module, run from `root`, npm and remote left out. */
async function denoInfo(root: string, entry: string): Promise<InfoModule[]> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--no-npm", "--no-remote", entry],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(
      `deno info ${entry} failed: ${new TextDecoder().decode(output.stderr)}`,
    );
  }
  return JSON.parse(new TextDecoder().decode(output.stdout)).modules;
}

/**
 * The graph of the modules `entries` reach (paths from `root`), read with
 * `deno info --json`; only the repository's own modules are kept.
 * @throws {Error} If a module of the repository cannot be resolved or read.
 */
export async function readModuleGraph(
  root: string,
  entries: readonly string[],
): Promise<ModuleGraph> {
  const prefix = new URL(`file://${root.replace(/\/?$/, "/")}`).href;
  const own = (specifier: string | undefined) =>
    specifier?.startsWith(prefix)
      ? relative(root, decodeURIComponent(new URL(specifier).pathname))
      : undefined;
  const modules = new Set<string>();
  const arrows = new Map<string, Arrow>();
  for (const entry of entries) {
    if (modules.has(entry)) continue;
    for (const module of await denoInfo(root, entry)) {
      const from = own(module.specifier);
      if (from == null) continue;
      if (module.error != null) throw new Error(`${from}: ${module.error}`);
      modules.add(from);
      for (const dependency of module.dependencies ?? []) {
        const code = own(dependency.code?.specifier);
        const type = own(dependency.type?.specifier);
        const to = code ?? type;
        if (to == null) continue;
        arrows.set(`${from}\0${to}`, { from, to, typeOnly: code == null });
      }
    }
  }
  return {
    modules: [...modules].sort(),
    arrows: [...arrows.values()].sort((a, b) =>
      a.from === b.from ? cmp(a.to, b.to) : cmp(a.from, b.from)
    ),
  };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Every import cycle of `graph`: one cycle per strongly connected group of
 * modules, as a path that starts and ends with the same module
 * (`[a, b, a]`); none when the graph is acyclic.
 */
export function findCycles(graph: ModuleGraph): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of graph.arrows) {
    next.set(from, [...next.get(from) ?? [], to]);
  }
  // Tarjan's strongly connected components.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || (next.get(v) ?? []).includes(v)) {
      groups.push(group.sort());
    }
  };
  for (const module of graph.modules) if (!index.has(module)) visit(module);
  return groups.map((group) => cycleThrough(group, next)).sort((a, b) =>
    cmp(a[0], b[0])
  );
}

/** A shortest cycle from the group's first module back to it, within the group. */
function cycleThrough(
  group: readonly string[],
  next: ReadonlyMap<string, readonly string[]>,
): string[] {
  const start = group[0];
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of next.get(v) ?? []) {
      if (!group.includes(w)) continue;
      if (w === start) {
        const path = [start];
        for (let u = v; u !== start; u = cameFrom.get(u)!) path.splice(1, 0, u);
        return [...path, start];
      }
      if (!cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  }
  return [...group, start];
}

/**
 * The folder of `layering` a module belongs to: the longest folder that is
 * the module itself or holds it; `undefined` when none does.
 */
export function folderOf(
  module: string,
  layering: Layering,
): string | undefined {
  let found: string | undefined;
  for (const folder of [...layering.layers.flat(), layering.testsOnly]) {
    if (module !== folder && !module.startsWith(`${folder}/`)) continue;
    if (found == null || folder.length > found.length) found = folder;
  }
  return found;
}

/** How a folder is written in prose: `lib/run/`, `mod.ts`. */
export function folderName(folder: string): string {
  return folder.endsWith(".ts") ? `\`${folder}\`` : `\`${folder}/\``;
}

/** `a`, `a and b`, `a, b and c`. */
function inWords(items: readonly string[]): string {
  return items.length < 2
    ? items.join("")
    : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/** The sentence that states an {@link Layering.only} rule. */
export function onlyRule(folder: string, allowed: readonly string[]): string {
  return `${folderName(folder)} imports only ${
    inWords(allowed.map(folderName))
  }`;
}

/**
 * Every import of `graph` against `layering`, with the rule it breaks.
 * Imports made by test modules and by the tests-only folder are not
 * checked: tests may import anything.
 */
export function checkLayers(graph: ModuleGraph, layering: Layering): Breach[] {
  const layerOf = new Map<string, number>();
  layering.layers.forEach((folders, i) => {
    for (const folder of folders) layerOf.set(folder, i);
  });
  const breaches: Breach[] = [];
  for (const arrow of graph.arrows) {
    if (isTest(arrow.from)) continue;
    const from = folderOf(arrow.from, layering);
    const to = folderOf(arrow.to, layering);
    if (from === layering.testsOnly) continue;
    const breach = (rule: string) => breaches.push({ arrow, rule });
    if (from == null || to == null) {
      breach(
        `${from == null ? arrow.from : arrow.to} is in no folder of the ` +
          "layers: add its folder to lib/testing/layers.ts and docs/architecture.md",
      );
      continue;
    }
    if (from === to) continue;
    if (to === layering.testsOnly) {
      breach(`${folderName(to)} is imported by tests only`);
      continue;
    }
    const only = layering.only[from];
    if (only != null && !only.includes(to)) {
      breach(onlyRule(from, only));
      continue;
    }
    const above = layerOf.get(from)!;
    const below = layerOf.get(to)!;
    if (below === above) {
      breach(
        `${folderName(from)} and ${folderName(to)} are one layer ` +
          `(${above + 1}): a folder does not import its layer's other folders`,
      );
    } else if (below < above) {
      breach(
        `${folderName(from)} (layer ${above + 1}) imports upward, from ` +
          `${folderName(to)} (layer ${below + 1})`,
      );
    }
  }
  return breaches;
}

/** An arrow in words: `lib/run/suite.ts → lib/report/markdown.ts (type)`. */
export function formatArrow(arrow: Arrow): string {
  return `${arrow.from} → ${arrow.to}${arrow.typeOnly ? " (type only)" : ""}`;
}

/**
 * The numbered list of the section `heading` of a Markdown text (lines
 * `1. …` and their indented continuations, joined by single spaces), one
 * string per item; `[]` when the section has none.
 */
export function numberedList(markdown: string, heading: string): string[] {
  const lines = markdown.split("\n");
  const start = lines.indexOf(heading);
  if (start < 0) return [];
  const level = heading.match(/^#+/)?.[0] ?? "#";
  const items: string[] = [];
  for (const line of lines.slice(start + 1)) {
    const h = line.match(/^#+ /)?.[0].trim();
    if (h != null && h.length <= level.length) break;
    if (/^\d+\. /.test(line)) items.push(line.replace(/^\d+\. /, ""));
    else if (/^ {2,}\S/.test(line) && items.length > 0) {
      items[items.length - 1] += ` ${line.trim()}`;
    } else if (items.length > 0 && line.trim() !== "") break;
  }
  return items;
}

/**
 * The folders a layer's list item names: the backquoted paths before its
 * first colon, without trailing slashes.
 */
export function foldersOfItem(item: string): string[] {
  const head = item.split(/:\s/)[0];
  return [...head.matchAll(/`([^`]+)`/g)].map((m) => m[1].replace(/\/$/, ""));
}
