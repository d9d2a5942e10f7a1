/**
 * The distribution's packages without root, on Debian and Ubuntu: package
 * lists of the bench's own (`apt-get update` into a folder of its own), the
 * packages asked for and those they depend on that dpkg does not list as
 * installed (`apt-get download`), unpacked with `dpkg-deb -x` into a folder
 * whose libraries go on `LD_LIBRARY_PATH`.  Redis's fetch and the app's
 * Node.js (whose binary from npm needs `libatomic.so.1`) use it.
 *
 * @module
 */
import { join } from "node:path";
import { outputTail, runToEnd } from "../system/run_to_end.ts";
import { readEnv } from "../system/env.ts";
import { findBinary } from "./binaries.ts";

/** How long each apt command may take. */
const APT_TIMEOUT_MS = 300_000;

/** The tools a fetch runs. */
const TOOLS = [
  "apt-get",
  "apt-cache",
  "dpkg-deb",
  "dpkg-query",
  "ldd",
] as const;

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
 * The shared libraries `ldd` cannot find for `binary`, with the libraries
 * unpacked under `root` on the library path.
 *
 * @param binary The executable.
 * @param root The folder packages were unpacked into.
 * @param signal Aborts `ldd`.
 */
export async function missingLibraries(
  binary: string,
  root: string,
  signal?: AbortSignal,
): Promise<string[]> {
  const result = await runToEnd("ldd", [binary], {
    env: { LD_LIBRARY_PATH: libraryPath(root) },
    timeoutMs: APT_TIMEOUT_MS,
    signal,
  });
  if (result.code !== 0) {
    throw new Error(`ldd failed on ${binary}: ${outputTail(result)}`);
  }
  return [...result.stdout.matchAll(/^\s*(\S+) => not found/gm)]
    .map((match) => match[1]);
}

/**
 * `roots` and every package they depend on, transitively, that dpkg does
 * not list as installed: of each group of alternatives, none where one is
 * installed, else its first real package (virtual ones are left to their
 * alternatives).  Pre-dependencies count as dependencies.
 */
async function packagesToFetch(
  roots: readonly string[],
  options: readonly string[],
  cwd: string,
  signal?: AbortSignal,
): Promise<string[]> {
  const wanted = new Set(roots);
  let next = [...roots];
  while (next.length > 0) {
    const out = await apt(
      "apt-cache",
      [
        ...options,
        "depends",
        "--no-recommends",
        "--no-suggests",
        "--no-conflicts",
        "--no-breaks",
        "--no-replaces",
        "--no-enhances",
        ...next,
      ],
      cwd,
      signal,
    );
    const groups = dependencyGroups(out);
    const installed = await installedAmong(groups.flat(), signal);
    next = [];
    for (const group of groups) {
      if (group.some((name) => installed.has(name) || wanted.has(name))) {
        continue;
      }
      const real = group.find((name) => !name.startsWith("<"));
      if (real == null) continue;
      wanted.add(real);
      next.push(real);
    }
  }
  return [...wanted];
}

/**
 * The dependency groups in `apt-cache depends` output: each a list of
 * alternatives (a line ` |Depends: a` continues into the next), virtual
 * packages written `<name>`.
 */
export function dependencyGroups(output: string): string[][] {
  const groups: string[][] = [];
  let open: string[] | undefined;
  for (const line of output.split("\n")) {
    const match = /^ {1,2}(\|)?(?:Pre)?Depends: (\S+)/.exec(line);
    if (match == null) continue;
    const [, alternative, name] = match;
    if (open == null) {
      open = [];
      groups.push(open);
    }
    open.push(name);
    if (alternative == null) open = undefined;
  }
  return groups;
}

/** The packages among `names` that dpkg lists as installed. */
async function installedAmong(
  names: readonly string[],
  signal?: AbortSignal,
): Promise<Set<string>> {
  const real = [...new Set(names.filter((name) => !name.startsWith("<")))];
  if (real.length === 0) return new Set();
  // Exits 1 when a name is unknown, still printing the known ones.
  const result = await runToEnd(
    "dpkg-query",
    ["-W", "-f=${Package}:${db:Status-Status}\n", ...real],
    { timeoutMs: APT_TIMEOUT_MS, signal },
  );
  const installed = new Set<string>();
  for (const line of result.stdout.split("\n")) {
    const [name, status] = line.split(":");
    if (status === "installed") installed.add(name);
  }
  return installed;
}

/**
 * The multiarch library folders (`lib/x86_64-linux-gnu`,
 * `usr/lib/x86_64-linux-gnu`, …) under `root` that exist.
 *
 * @param root A file system's root: `/`, or a folder packages were
 *   unpacked into.
 */
export function multiarchFolders(root: string): string[] {
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
  return folders;
}

/**
 * The folders of the libraries unpacked under `root`, then any
 * `LD_LIBRARY_PATH` already set: the value for `LD_LIBRARY_PATH`.
 *
 * @param root The folder packages were unpacked into.
 */
export function libraryPath(root: string): string {
  return [...multiarchFolders(root), readEnv("LD_LIBRARY_PATH")]
    .filter((f) => f != null).join(":");
}

/**
 * Why the distribution's packages cannot be fetched here, or `undefined`.
 *
 * @param what What would be fetched, for the reason, e.g. `Redis`.
 */
export function debianFetchUnavailable(what: string): string | undefined {
  if (Deno.build.os !== "linux") {
    return `${what} is fetched only from Debian's or Ubuntu's packages, and ` +
      `this is ${Deno.build.os}`;
  }
  const missing = TOOLS.filter((tool) => findBinary(tool) == null);
  if (missing.length === 0) return undefined;
  return `fetching ${what} takes the distribution's packages with apt-get ` +
    `(Debian, Ubuntu), and ${missing.join(", ")} ` +
    `${missing.length > 1 ? "are" : "is"} not on PATH`;
}

/**
 * Downloads `roots` and the packages they depend on that the machine lacks,
 * and unpacks them into `staging/root`; the package lists and downloads
 * are removed after.
 *
 * @param roots The packages asked for; fetched even where installed.
 * @param staging An empty folder.
 * @param signal Aborts the downloads.
 * @returns Each package fetched, as `name version`, sorted.
 * @throws {Error} When the mirror cannot be reached or a package not
 *   unpacked.
 */
export async function fetchDebianPackages(
  roots: readonly string[],
  staging: string,
  signal?: AbortSignal,
): Promise<string[]> {
  const work = join(staging, "apt");
  for (const folder of ["lists/partial", "cache/archives/partial", "debs"]) {
    await Deno.mkdir(join(work, folder), { recursive: true });
  }
  const options = aptOptions(work);
  const debs = join(work, "debs");
  await apt("apt-get", [...options, "update"], work, signal);
  const wanted = await packagesToFetch(roots, options, work, signal);
  await apt("apt-get", [...options, "download", ...wanted], debs, signal);
  const fetched: string[] = [];
  for (const entry of Deno.readDirSync(debs)) {
    if (!entry.name.endsWith(".deb")) continue;
    const [name, version] = decodeURIComponent(entry.name).split("_");
    fetched.push(`${name} ${version}`);
    const result = await runToEnd(
      "dpkg-deb",
      ["-x", join(debs, entry.name), join(staging, "root")],
      { timeoutMs: APT_TIMEOUT_MS, signal },
    );
    if (result.code !== 0) {
      throw new Error(
        `dpkg-deb could not unpack ${entry.name}: ${outputTail(result)}`,
      );
    }
  }
  await Deno.remove(work, { recursive: true });
  return fetched.sort();
}
