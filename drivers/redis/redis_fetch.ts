/**
 * Redis without a system install: no npm package ships its binaries, so on
 * Debian and Ubuntu the distribution's own packages are fetched without root
 * (`debian_packages.ts`) into the bench's cache, with the libraries they
 * need that the machine lacks.
 *
 * @module
 */
import { join } from "node:path";
import {
  debianFetchUnavailable,
  fetchDebianPackages,
  libraryPath,
  missingLibraries,
} from "../../lib/services/debian_packages.ts";
import type { ServerFetcher } from "../../lib/services/fetched.ts";

/** Redis from the distribution's packages, unpacked without root. */
export const redisFetcher: ServerFetcher = {
  what: "Redis from the distribution's redis-server package",
  plan() {
    const reason = debianFetchUnavailable("Redis");
    return reason == null
      ? { folder: `redis-apt-${Deno.build.arch}` }
      : { reason };
  },
  async fill(staging, signal) {
    const fetched = await fetchDebianPackages(
      ["redis-server", "redis-tools"],
      staging,
      signal,
    );
    const root = join(staging, "root");
    const missing = await missingLibraries(
      join(root, "usr", "bin", "redis-server"),
      root,
      signal,
    );
    if (missing.length > 0) {
      throw new Error(
        `the unpacked redis-server still misses ${missing.join(", ")}, ` +
          `though every package it depends on that dpkg does not list as ` +
          `installed was fetched (${fetched.join(", ")})`,
      );
    }
    return `the distribution's packages ${fetched.join(", ")}`;
  },
  layout: (dir) => ({
    binDir: join(dir, "root", "usr", "bin"),
    env: { LD_LIBRARY_PATH: libraryPath(join(dir, "root")) },
  }),
  version: ["redis-server", "--version"],
};
