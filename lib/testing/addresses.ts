/**
 * One address per name, the two rules `lib/architecture.test.ts` checks:
 * a module re-exports a name only when it is a folder's face (`mod.ts`),
 * and no two product files share a file name, so that a name read in a
 * stack trace, an import or the docs points at one file.
 *
 * @module
 */
import { basename } from "node:path";

/** A name a module exports from another module. */
export interface ReExport {
  /** The re-exporting module. */
  readonly file: string;
  /** The name as exported (`*` for `export * from`). */
  readonly name: string;
}

/** Whether `path` is a folder's face, the one place a re-export belongs. */
export function isFace(path: string): boolean {
  return basename(path) === "mod.ts";
}

/** The names of a `{ a, type b, c as d }` list: `[local, exported]` pairs. */
function bindings(list: string): [string, string][] {
  return list.split(",")
    .map((item) => item.trim().replace(/^type\s+/, ""))
    .filter((item) => item !== "")
    .map((item) => {
      const [local, exported] = item.split(/\s+as\s+/);
      return [local.trim(), (exported ?? local).trim()];
    });
}

/** The source without its comments, so that a commented example is no code. */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

/**
 * The names `source` (the text of module `file`) re-exports: every name of
 * an `export … from`, and every name of an `export { … }` list that the
 * module imported rather than declared.
 */
export function reExportsOf(file: string, source: string): ReExport[] {
  const code = withoutComments(source);
  const found: ReExport[] = [];
  for (
    const m of code.matchAll(
      /\bexport\s+(?:type\s+)?(\*(?:\s+as\s+(\w+))?|\{([^}]*)\})\s*from\s*["']/g,
    )
  ) {
    if (m[3] == null) found.push({ file, name: m[2] ?? "*" });
    else for (const [, name] of bindings(m[3])) found.push({ file, name });
  }
  const imported = new Set<string>();
  for (
    const m of code.matchAll(
      /\bimport\s+(?:type\s+)?([^;"']*?)\s*from\s*["']/g,
    )
  ) {
    const clause = m[1];
    const list = clause.match(/\{([^}]*)\}/);
    if (list != null) {
      for (const [, local] of bindings(list[1])) imported.add(local);
    }
    const star = clause.match(/\*\s+as\s+(\w+)/);
    if (star != null) imported.add(star[1]);
    const bare = clause.replace(/\{[^}]*\}/, "").replace(/\*\s+as\s+\w+/, "")
      .replace(/,/g, " ").trim();
    if (/^\w+$/.test(bare)) imported.add(bare);
  }
  for (const m of code.matchAll(/\bexport\s+(?:type\s+)?\{([^}]*)\}\s*;/g)) {
    for (const [local, name] of bindings(m[1])) {
      if (imported.has(local)) found.push({ file, name });
    }
  }
  return found;
}

/**
 * The product files among `paths` that share a file name, one sorted list
 * of paths per repeated name, sorted by name.  Faces (`mod.ts`) are left
 * out: every folder has one.
 */
export function sharedNames(paths: readonly string[]): string[][] {
  const byName = new Map<string, string[]>();
  for (const path of paths) {
    if (isFace(path)) continue;
    const name = basename(path);
    byName.set(name, [...byName.get(name) ?? [], path]);
  }
  return [...byName.entries()]
    .filter(([, group]) => group.length > 1)
    .sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
    .map(([, group]) => group.sort());
}
