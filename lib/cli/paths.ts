/**
 * Path helpers: module paths given on the command line, and where results
 * go: the published results in `results/` (only with `--out results`), a
 * plain run's in a new folder of `runs/` with `runs/latest` pointing at the
 * newest.
 *
 * @module
 */
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * Turns a module path given on the command line into a URL string; URLs
 * (`file:`, `npm:`, `https:`) pass through.
 */
export function toFileUrl(specifier: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(specifier) && !isAbsolute(specifier)) {
    return specifier;
  }
  return pathToFileURL(resolve(specifier)).href;
}

/**
 * Where `--out results` writes: the published results, tracked in git.  A
 * plain `deno task bench` never writes here.
 */
export const PUBLISHED_DIR = "results";

/**
 * Where a plain `deno task bench` writes: a new folder per run, named by
 * its UTC start time, under this folder (ignored by git), and
 * `runs/latest` pointing at the newest.
 */
export const RUNS_DIR = "runs";

/** The name under {@link RUNS_DIR} that points at the newest run. */
export const LATEST = "latest";

/** `2026-11-26T01-02-03Z`: a run folder's name for its UTC start time. */
export function runFolderName(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d+Z$/, "Z").replace(/:/g, "-");
}

/**
 * Makes a new, empty run folder under `root` named by the time (with a
 * suffix when a run of the same second has it) and returns its path.
 */
export async function makeRunDir(
  root: string = RUNS_DIR,
  date: Date = new Date(),
): Promise<string> {
  await Deno.mkdir(root, { recursive: true });
  const name = runFolderName(date);
  for (let n = 1;; n++) {
    const path = join(root, n === 1 ? name : `${name}-${n}`);
    try {
      await Deno.mkdir(path);
      return path;
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists) || n >= 100) {
        throw error;
      }
    }
  }
}

/**
 * Points `root/latest` at the run folder `dir` (a folder of `root`): a
 * relative symbolic link, or where links cannot be made, a text file
 * holding the folder's name, which {@link latestRun} reads as well.
 */
export async function pointLatest(
  dir: string,
  root: string = RUNS_DIR,
): Promise<void> {
  const path = join(root, LATEST);
  await Deno.remove(path).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  try {
    await Deno.symlink(basename(dir), path, { type: "dir" });
  } catch {
    await Deno.writeTextFile(path, basename(dir) + "\n");
  }
}

/**
 * The newest run folder under `root` (what `root/latest` points at), or
 * `null` when there is none.
 */
export async function latestRun(
  root: string = RUNS_DIR,
): Promise<string | null> {
  const path = join(root, LATEST);
  let name: string;
  try {
    const info = await Deno.lstat(path);
    if (info.isDirectory) return path;
    name = info.isSymlink
      ? await Deno.readLink(path)
      : await Deno.readTextFile(path);
  } catch {
    return null;
  }
  name = name.trim();
  if (name === "" || /[\\/]/.test(name)) return null;
  const run = join(root, name);
  try {
    return (await Deno.stat(run)).isDirectory ? run : null;
  } catch {
    return null;
  }
}

/**
 * The results file a path names: a folder's `latest.json` (so that
 * `runs/latest` and `results` name their results), a file itself.  A text
 * file `runs/latest` (where links cannot be made) names its run's folder.
 */
export async function resultsFile(path: string): Promise<string> {
  try {
    if ((await Deno.stat(path)).isDirectory) return join(path, "latest.json");
  } catch {
    return path;
  }
  if (basename(path) === LATEST && !path.endsWith(".json")) {
    const run = await latestRun(dirname(path));
    if (run != null) return join(run, "latest.json");
  }
  return path;
}
