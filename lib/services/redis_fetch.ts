/**
 * Redis without a system install: no npm package ships its binaries, so on
 * Debian and Ubuntu the distribution's own packages are downloaded without
 * root (`apt-get download`, with package lists of the bench's own) and
 * unpacked (`dpkg-deb -x`) into the bench's cache, with the libraries they
 * need that the machine lacks.
 *
 * @module
 */
import { join } from "node:path";
import { outputTail, runToEnd } from "../system/run_to_end.ts";
import { readEnv } from "../system/env.ts";
import { findBinary } from "./binaries.ts";
import type { ServerFetcher } from "./fetched.ts";

/** How long each apt command may take. */
const APT_TIMEOUT_MS = 300_000;

/** The tools the fetch runs. */
const TOOLS = ["apt-get", "dpkg-deb", "ldd"] as const;

/** `apt-get` options that keep its lists and downloads in `dir`. */
function aptOptions(dir: string): string[] {
  return [
    "-q",
    "-o",
    `Dir::State::Lists=${join(dir, "lists")}`,
    "-o",
    `Dir::Cache=${join(dir, "cache")}`,
    "-o",
    "Debug::NoLocking=true",
  ];
}

async function apt(
  command: string,
  args: readonly string[],
  cwd: string,
  signal?: AbortSignal,
): Promise<string> {
  const result = await runToEnd(command, args, {
    cwd,
    timeoutMs: APT_TIMEOUT_MS,
    signal,
  });
  if (result.code !== 0) {
    throw new Error(
      `${command} ${args.filter((a) => !a.startsWith("-")).join(" ")} ` +
        `failed (${result.code ?? "killed"}): ${outputTail(result, 4)}; ` +
        "it needs the distribution's package mirror",
    );
  }
  return result.stdout;
}

/**
 * The shared libraries `ldd` cannot find for the unpacked `redis-server`.
 */
async function missingLibraries(
  root: string,
  signal?: AbortSignal,
): Promise<string[]> {
  const result = await runToEnd("ldd", [
    join(root, "usr", "bin", "redis-server"),
  ], {
    env: { LD_LIBRARY_PATH: libraryPath(root) },
    timeoutMs: APT_TIMEOUT_MS,
    signal,
  });
  if (result.code !== 0) {
    throw new Error(`ldd failed on redis-server: ${outputTail(result)}`);
  }
  return [...result.stdout.matchAll(/^\s*(\S+) => not found/gm)]
    .map((match) => match[1]);
}

/**
 * The names Debian's policy gives the package of a shared library
 * (`libjemalloc.so.2` → `libjemalloc2`, `libfoo1.so.2` → `libfoo1-2`), and
 * the same after the 64-bit time transition (`libssl3t64`).
 */
export function libraryPackages(soname: string): string[] {
  const match = /^(.+)\.so\.([0-9.]+)$/.exec(soname);
  if (match == null) return [];
  const [, base, version] = match;
  const name = (/[0-9]$/.test(base) ? `${base}-${version}` : base + version)
    .toLowerCase().replaceAll("_", "-");
  return [name, `${name}t64`];
}

/** Downloads the first of `names` the mirror has; `undefined` if none. */
async function downloadOneOf(
  names: readonly string[],
  options: readonly string[],
  dir: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  for (const name of names) {
    const result = await runToEnd("apt-get", [...options, "download", name], {
      cwd: dir,
      timeoutMs: APT_TIMEOUT_MS,
      signal,
    });
    if (result.code === 0) return name;
  }
  return undefined;
}

/** The folders of the unpacked libraries, for `LD_LIBRARY_PATH`. */
function libraryPath(root: string): string {
  const folders: string[] = [];
  for (const base of ["lib", "usr/lib"]) {
    try {
      for (const entry of Deno.readDirSync(join(root, base))) {
        if (entry.isDirectory && entry.name.endsWith("-linux-gnu")) {
          folders.push(join(root, base, entry.name));
        }
      }
    } catch { /* none there */ }
  }
  return [...folders, readEnv("LD_LIBRARY_PATH")].filter((f) => f != null)
    .join(":");
}

/** Redis from the distribution's packages, unpacked without root. */
export const redisFetcher: ServerFetcher = {
  what: "Redis from the distribution's redis-server package",
  plan() {
    if (Deno.build.os !== "linux") {
      return {
        reason: `Redis is fetched only from Debian's or Ubuntu's packages, ` +
          `and this is ${Deno.build.os}`,
      };
    }
    const missing = TOOLS.filter((tool) => findBinary(tool) == null);
    if (missing.length > 0) {
      return {
        reason: `fetching Redis takes the distribution's packages with ` +
          `apt-get (Debian, Ubuntu), and ${missing.join(", ")} ` +
          `${missing.length > 1 ? "are" : "is"} not on PATH`,
      };
    }
    return { folder: `redis-apt-${Deno.build.arch}` };
  },
  async fill(staging, signal) {
    const work = join(staging, "apt");
    for (const folder of ["lists/partial", "cache/archives/partial", "debs"]) {
      await Deno.mkdir(join(work, folder), { recursive: true });
    }
    const options = aptOptions(work);
    const debs = join(work, "debs");
    const root = join(staging, "root");
    await apt("apt-get", [...options, "update"], work, signal);
    const fetched: string[] = [];
    const unpack = async () => {
      for (const entry of Deno.readDirSync(debs)) {
        if (!entry.name.endsWith(".deb")) continue;
        const [name, version] = decodeURIComponent(entry.name).split("_");
        fetched.push(`${name} ${version}`);
        const result = await runToEnd(
          "dpkg-deb",
          ["-x", join(debs, entry.name), root],
          { timeoutMs: APT_TIMEOUT_MS, signal },
        );
        if (result.code !== 0) {
          throw new Error(
            `dpkg-deb could not unpack ${entry.name}: ${outputTail(result)}`,
          );
        }
        await Deno.remove(join(debs, entry.name));
      }
    };
    await apt(
      "apt-get",
      [...options, "download", "redis-server", "redis-tools"],
      debs,
      signal,
    );
    await unpack();
    // The libraries the machine lacks, by the names Debian gives their
    // packages (libjemalloc.so.2 is in libjemalloc2), until none is missing.
    const tried = new Set<string>();
    for (let round = 0; round < 4; round++) {
      const missing = await missingLibraries(root, signal);
      if (missing.length === 0) {
        await Deno.remove(work, { recursive: true });
        return `the distribution's packages ${fetched.sort().join(", ")}`;
      }
      for (const library of missing) {
        const found = await downloadOneOf(
          libraryPackages(library).filter((name) => !tried.has(name)),
          options,
          debs,
          signal,
        );
        if (found == null) {
          throw new Error(
            `redis-server needs ${library}, and no package of the name ` +
              `Debian gives it (${libraryPackages(library).join(", ")}) ` +
              "could be downloaded",
          );
        }
        tried.add(found);
      }
      await unpack();
    }
    throw new Error(
      `redis-server still misses ${
        (await missingLibraries(root, signal)).join(", ")
      } after four rounds of downloads`,
    );
  },
  layout: (dir) => ({
    binDir: join(dir, "root", "usr", "bin"),
    env: { LD_LIBRARY_PATH: libraryPath(join(dir, "root")) },
  }),
  version: ["redis-server", "--version"],
};
