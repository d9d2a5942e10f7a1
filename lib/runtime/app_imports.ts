/**
 * How the app's bare imports resolve on Node.js and Bun, where there is no
 * `deno.json`: the environment variable {@link APP_IMPORTS_ENV} holds the
 * map (`AppImports`), which the bench writes and Node's resolve hook
 * (`node_hooks.ts`) reads.  (Bun's runtime plugins do not see bare
 * imports; on Bun the same names resolve through NODE_PATH, which
 * `lib/services/app_runtimes.ts` sets, and a source tree's subpath imports
 * (`#sqlite`) through {@link rewriteSubpathImports}, which the preload
 * plugin `bun_plugin.ts` applies as it loads the tree's modules.)  A bare specifier imported
 * from outside a `node_modules` folder (this project's modules and a Fedify
 * source tree's) resolves as `deno.json` resolves it: a name deno.json maps
 * to a module of this project goes there; a package resolves from the
 * installed `node_modules` whose `package.json` is `parent`, where the
 * bench installed each at the version deno.json pins.  Imports made inside
 * `node_modules` resolve as the runtime resolves them.
 *
 * @module
 */

/** The environment variable that carries the map, as JSON. */
export const APP_IMPORTS_ENV = "FQB_APP_IMPORTS";

/** The map of the app's bare imports. */
export interface AppImports {
  /** The file URL of the installed packages' `package.json`. */
  readonly parent: string;
  /** Names deno.json maps to modules of this project, as file URLs. */
  readonly local: Readonly<Record<string, string>>;
}

/** Reads the map from `text` (the environment variable's value). */
export function parseAppImports(text: string | undefined): AppImports {
  if (text == null || text === "") {
    throw new Error(
      `${APP_IMPORTS_ENV} is not set: start the app's processes through ` +
        "the bench (--runtime), which installs their packages and sets it",
    );
  }
  return JSON.parse(text) as AppImports;
}

/** Whether `specifier` is bare: neither relative, absolute nor a URL. */
export function isBare(specifier: string): boolean {
  return !/^(?:\.{0,2}\/|[a-z][a-z0-9+.-]*:)/i.test(specifier);
}

/**
 * Where the hook sends `specifier` imported from `parentURL`: a file URL
 * (a module of this project), the parent to resolve it from (an installed
 * package), or `null` to leave it to the runtime.
 */
export function redirect(
  imports: AppImports,
  specifier: string,
  parentURL: string | undefined,
): { url: string } | { parent: string } | null {
  if (!isBare(specifier)) return null;
  if (parentURL != null && parentURL.includes("/node_modules/")) return null;
  const local = imports.local[specifier];
  if (local != null) return { url: local };
  if (specifier.startsWith("#")) return null;
  return { parent: imports.parent };
}

/**
 * `source` (a module's text) with each import of a subpath specifier that
 * `imports.local` maps (`"#sqlite"`) pointed at the mapped file instead,
 * for Bun: it resolves a subpath import by the package's `package.json`,
 * whose targets in a source tree are the built `dist/` files that the tree
 * does not have, and its plugins do not see such imports.  Only the
 * specifier of a static `import … from`, `export … from` or dynamic
 * `import()` changes; the code is the tree's own.
 */
export function rewriteSubpathImports(
  imports: AppImports,
  source: string,
): string {
  return source.replace(
    /(\bfrom\s*|\bimport\s*\(\s*)(["'])(#[^"'\s]+)\2/g,
    (whole, before: string, _quote: string, specifier: string) => {
      const url = imports.local[specifier];
      if (url == null || !url.startsWith("file:")) return whole;
      const path = decodeURIComponent(new URL(url).pathname);
      return `${before}${JSON.stringify(path)}`;
    },
  );
}
