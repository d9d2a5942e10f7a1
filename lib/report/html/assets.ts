/**
 * The browser builds of Vega, Vega-Lite and Vega-Embed that `report.html`
 * inlines, read from the npm packages the charts are rendered with (the
 * versions in deno.json), so the page needs no network and draws what the
 * SVG charts draw.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
// Keeps vega-embed in the module graph, so that Deno installs the package
// whose browser build is read below; nothing of it runs here.
import "vega-embed";

/** One library inlined into the page. */
export interface Library {
  /** The npm package, e.g. `vega-lite`. */
  readonly name: string;
  /** Its version, from its package.json. */
  readonly version: string;
  /** The browser build's text (a UMD script defining a global). */
  readonly script: string;
}

/** The packages, in load order, and their UMD builds inside the package. */
const BUILDS: readonly (readonly [string, string])[] = [
  ["vega", "build/vega.min.js"],
  ["vega-lite", "build/vega-lite.min.js"],
  ["vega-embed", "build/vega-embed.min.js"],
];

/** The folder of an installed npm package: up from its entry to package.json. */
async function packageRoot(name: string): Promise<string> {
  const entry = import.meta.resolve(name);
  if (!entry.startsWith("file:")) {
    throw new Error(
      `cannot find the installed package ${name} (resolved to ${entry}); ` +
        "run `deno install` in the project folder",
    );
  }
  let dir = dirname(fileURLToPath(entry));
  while (dir !== dirname(dir)) {
    try {
      const manifest = JSON.parse(
        await Deno.readTextFile(join(dir, "package.json")),
      );
      if (manifest.name === name) return dir;
    } catch { /* no package.json here: go up */ }
    dir = dirname(dir);
  }
  throw new Error(`cannot find the package.json of ${name} above ${entry}`);
}

let cached: Promise<Library[]> | null = null;

/**
 * Reads the three libraries once per process.
 * @throws {Error} If a package is not installed; the message says how.
 */
export function libraries(): Promise<Library[]> {
  cached ??= Promise.all(BUILDS.map(async ([name, build]) => {
    const root = await packageRoot(name);
    const manifest = JSON.parse(
      await Deno.readTextFile(join(root, "package.json")),
    );
    return {
      name,
      version: String(manifest.version),
      script: await Deno.readTextFile(join(root, build)),
    };
  }));
  cached.catch(() => cached = null);
  return cached;
}
