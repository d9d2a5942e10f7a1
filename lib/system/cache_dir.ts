/**
 * The one folder the bench keeps downloads in across runs: the app's
 * packages for Node.js and Bun, and the queue servers it fetches when a
 * machine has none installed.
 *
 * @module
 */
import { join } from "node:path";
import { readEnv } from "./env.ts";
import { exists } from "./fs.ts";

/** The environment variable that moves the cache folder. */
export const CACHE_ENV = "BENCH_CACHE_DIR";

/**
 * The bench's cache folder, or a folder inside it: `$BENCH_CACHE_DIR` when
 * set; otherwise `/var/cache/fedify-queue-bench` for root (whose home other
 * users cannot enter, and PostgreSQL runs as another user), and
 * `$XDG_CACHE_HOME/fedify-queue-bench` or `~/.cache/fedify-queue-bench` for
 * everyone else.  Nothing is created.
 *
 * @param parts Folders inside it, e.g. `"servers"`.
 * @returns An absolute path (unless a variable holds a relative one).
 */
export function cacheDir(...parts: string[]): string {
  return join(cacheRoot(), ...parts);
}

function cacheRoot(): string {
  const given = readEnv(CACHE_ENV);
  if (given != null) return given;
  if (isRoot()) return "/var/cache/fedify-queue-bench";
  const base = readEnv("XDG_CACHE_HOME") ??
    join(readEnv("HOME") ?? "/tmp", ".cache");
  return join(base, "fedify-queue-bench");
}

function isRoot(): boolean {
  try {
    return Deno.uid() === 0;
  } catch {
    return false;
  }
}

/**
 * Fills a cache folder once: unless `dir` exists, `build` fills a staging
 * folder beside it, which is then renamed to `dir` in one step, so that a
 * half-filled folder is never taken for a whole one, and two benches that
 * fill it at once keep the first one's.  A failed build leaves nothing.
 *
 * @param dir The folder to fill.
 * @param build Fills the staging folder it is given (already created).
 * @returns Whether this call filled it (`false`: it was there already).
 */
export async function fillOnce(
  dir: string,
  build: (staging: string) => Promise<void>,
): Promise<boolean> {
  if (await exists(dir)) return false;
  const staging = `${dir}.${Deno.pid}.tmp`;
  await Deno.remove(staging, { recursive: true }).catch(() => {});
  await Deno.mkdir(staging, { recursive: true });
  try {
    await build(staging);
    if (await exists(dir)) {
      // Another bench filled it meanwhile: keep theirs.
      await Deno.remove(staging, { recursive: true });
      return false;
    }
    await Deno.rename(staging, dir);
    return true;
  } catch (error) {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
    throw error;
  }
}
