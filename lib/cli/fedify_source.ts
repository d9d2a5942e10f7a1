/**
 * `--fedify-source` on the command line, the same for the bench and
 * `deno task dequeue-cost`: the tree is checked before anything is
 * measured, every process of the run is handed the same tree through
 * `FEDIFY_SOURCE`, and the command line a results file records names it
 * relative to the working folder, never by this machine's absolute path.
 *
 * @module
 */
import { isAbsolute, relative } from "node:path";
import { FEDIFY_SOURCE_ENV, FedifySource } from "../../drivers/packages.ts";

/**
 * Makes `dir` (the parsed `--fedify-source`, or `null`) the tree this
 * process and its children load Fedify's queue packages from.  Without
 * one, `FEDIFY_SOURCE` is removed, so that an empty value reaches no child
 * as a tree.
 * @returns The tree, or `null` without one.
 * @throws {Error} When the tree lacks a package's module or version: the
 *   message names the path and the fix (nothing has been measured yet).
 */
export async function useFedifySource(
  dir: string | null | undefined,
): Promise<FedifySource | null> {
  if (dir == null || dir.trim() === "") {
    Deno.env.delete(FEDIFY_SOURCE_ENV);
    return null;
  }
  const source = new FedifySource(dir);
  await source.check();
  Deno.env.set(FEDIFY_SOURCE_ENV, source.dir);
  return source;
}

/**
 * `env` with `FEDIFY_SOURCE` relative to the working folder, for the
 * recorded command line.
 */
export function withRelativeSource(
  env: Readonly<Record<string, string>>,
): Record<string, string> {
  const dir = env[FEDIFY_SOURCE_ENV];
  return dir == null
    ? { ...env }
    : { ...env, [FEDIFY_SOURCE_ENV]: relativeDir(dir) };
}

/**
 * `args` with the value of `--fedify-source` relative to the working
 * folder, for the recorded command line (`--fedify-source DIR` and
 * `--fedify-source=DIR` alike).
 */
export function withRelativeSourceArgs(args: readonly string[]): string[] {
  const flag = "--fedify-source";
  return args.map((arg, i) => {
    if (arg.startsWith(`${flag}=`)) {
      return `${flag}=${relativeDir(arg.slice(flag.length + 1))}`;
    }
    return i > 0 && args[i - 1] === flag ? relativeDir(arg) : arg;
  });
}

/** An absolute folder relative to the working folder; others as they are. */
function relativeDir(dir: string): string {
  return isAbsolute(dir) ? relative(Deno.cwd(), dir) || "." : dir;
}
