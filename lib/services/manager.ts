/**
 * The service manager: hands out the user's server (from its URL variable)
 * or a throwaway one it starts on a free port, from the machine's programs
 * or from a copy it fetched into the bench's cache, and stops what it
 * started.
 *
 * @module
 */
import { errorMessage } from "../results/error_message.ts";
import { readEnv } from "../system/env.ts";
import { leftovers } from "../system/leftovers.ts";
import type {
  Availability,
  ServiceDefinition,
  StartedServer,
} from "./service_types.ts";
import { registerSecrets } from "./secrets.ts";
import { freePort, missingBinaries } from "./server.ts";
import {
  FETCH_ENV,
  fetchedDir,
  fetchingAllowed,
  isFetched,
  serverTools,
} from "./fetched.ts";

/** Options for a {@link ServiceManager}. */
export interface ServiceManagerOptions {
  /**
   * Told each time a server's programs are downloaded (which can take a
   * minute); `console.error` by default.
   */
  readonly onFetch?: (line: string) => void;
}

/** A server ready for use, from {@link ServiceManager.acquire}. */
export interface AcquiredService {
  /** The URL to connect to; may hold a password when user-given. */
  readonly url: string;
  /** The server's version, as it reports it. */
  readonly version: string;
  /** Whether the bench started this server (it is throwaway). */
  readonly startedByBench: boolean;
  /**
   * Where it came from: `$REDIS_URL`, `PATH: /usr/bin/redis-server`, or
   * what the bench fetched and the folder it is cached in.
   */
  readonly origin: string;
  /**
   * The server's main process id, when the bench started it.  After
   * {@link ServiceManager.crash}, acquire again to get the new one.
   */
  readonly pid?: number;
}

/** A throwaway server the manager started, or is starting. */
interface Entry {
  readonly controller: AbortController;
  promise?: Promise<AcquiredService>;
  dir?: string;
  server?: StartedServer;
}

/** How long a user-given server may take to answer the probe. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * Hands out servers: the user's (from the definition's URL variable) when
 * given, otherwise one throwaway server per definition, started on first use
 * and shared after that.  Call {@link ServiceManager.stopAll} when done.
 */
export class ServiceManager {
  readonly #entries = new Map<ServiceDefinition, Entry>();
  readonly #userGiven = new Map<ServiceDefinition, Promise<AcquiredService>>();
  readonly #onFetch: (line: string) => void;

  /**
   * @param options Where to tell of downloads.
   */
  constructor(options: ServiceManagerOptions = {}) {
    this.#onFetch = options.onFetch ?? ((line) => console.error(line));
  }

  /**
   * Says whether a definition's server can be had here: from its URL
   * variable, or by starting one from the machine's programs, from those in
   * the cache, or from those it would fetch (without fetching: see
   * {@link provision}).  When it cannot, the reason names what was tried
   * and the fix.
   *
   * @param def The server kind.
   */
  availability(def: ServiceDefinition): Availability {
    if (readEnv(def.urlEnv) != null) {
      return { available: true, note: `uses $${def.urlEnv}` };
    }
    const server = def.binaries.at(-1) ?? def.name;
    const missing = missingBinaries(def.binaries, binaryFolders(def));
    if (missing.length === 0) {
      return { available: true, note: `starts a throwaway ${server}` };
    }
    const notFound = `${missing.join(", ")} not found`;
    const fix = installFix(def, missing);
    const fetcher = def.fetcher;
    if (fetcher == null) {
      return { available: false, reason: `${notFound}; ${fix}` };
    }
    const found = fetchedDir(fetcher);
    if ("reason" in found) {
      return {
        available: false,
        reason:
          `${notFound}, and it cannot be fetched here: ${found.reason}; ${fix}`,
      };
    }
    if (isFetched(fetcher)) {
      return {
        available: true,
        note: `starts a throwaway ${server} fetched into ${found.dir}`,
      };
    }
    if (!fetchingAllowed()) {
      return {
        available: false,
        reason: `${notFound}, and fetching is off (${FETCH_ENV}); ${fix}, ` +
          `or unset ${FETCH_ENV} to fetch ${fetcher.what}`,
      };
    }
    return {
      available: true,
      note: `fetches ${fetcher.what} into ${found.dir}, then starts a ` +
        `throwaway ${server}`,
    };
  }

  /**
   * Like {@link availability}, but where the server's programs must be
   * fetched, fetches them first (once; later calls and {@link acquire}
   * reuse them), so that a fetch that fails makes the server unavailable,
   * with what was tried, rather than failing a measurement.
   *
   * @param def The server kind.
   * @param signal Aborts the fetch.
   */
  async provision(
    def: ServiceDefinition,
    signal?: AbortSignal,
  ): Promise<Availability> {
    const availability = this.availability(def);
    if (
      !availability.available || def.fetcher == null ||
      readEnv(def.urlEnv) != null ||
      missingBinaries(def.binaries, binaryFolders(def)).length === 0
    ) return availability;
    try {
      await serverTools(def.binaries, def.fetcher, {
        onFetch: this.#onFetch,
        signal,
        folders: binaryFolders(def),
      });
      return this.availability(def);
    } catch (error) {
      signal?.throwIfAborted();
      const missing = missingBinaries(def.binaries, binaryFolders(def));
      return {
        available: false,
        reason: `${missing.join(", ")} not found, and fetching ` +
          `${def.fetcher.what} failed: ${errorMessage(error)}; ` +
          installFix(def, missing),
      };
    }
  }

  /**
   * Gets a server of the given kind.  With the URL variable set, probes it
   * (10 seconds at most) and returns it.  Otherwise starts a throwaway server
   * in a fresh temporary folder, once per definition; concurrent and later
   * calls share it.
   *
   * @param def The server kind.
   * @param signal Stops this call's wait (a start in progress goes on, for
   *   other callers; {@link stopAll} ends it).
   * @returns The server's URL and version.
   * @throws {Error} When the server cannot be reached or started; the
   *   message names the (redacted) URL or the log's last lines.
   */
  acquire(
    def: ServiceDefinition,
    signal?: AbortSignal,
  ): Promise<AcquiredService> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const url = readEnv(def.urlEnv);
    let promise: Promise<AcquiredService>;
    if (url != null) {
      registerSecrets(url);
      promise = this.#userGiven.get(def) ?? this.#probeUserGiven(def, url);
    } else {
      promise = this.#entries.get(def)?.promise ?? this.#start(def);
    }
    return signal == null ? promise : abortable(promise, signal);
  }

  #probeUserGiven(
    def: ServiceDefinition,
    url: string,
  ): Promise<AcquiredService> {
    const promise = def.probe(url, PROBE_TIMEOUT_MS).then(
      ({ version }): AcquiredService => ({
        url,
        version,
        startedByBench: false,
        origin: `$${def.urlEnv}`,
      }),
      (error: unknown) => {
        this.#userGiven.delete(def);
        throw new Error(
          `$${def.urlEnv} is not usable: ${errorMessage(error)}`,
          { cause: error },
        );
      },
    );
    this.#userGiven.set(def, promise);
    return promise;
  }

  #start(def: ServiceDefinition): Promise<AcquiredService> {
    const entry: Entry = { controller: new AbortController() };
    const promise = this.#run(def, entry);
    entry.promise = promise;
    this.#entries.set(def, entry);
    return promise;
  }

  async #run(def: ServiceDefinition, entry: Entry): Promise<AcquiredService> {
    const dir = await leftovers.makeTempDir(def.name);
    entry.dir = dir;
    try {
      const signal = entry.controller.signal;
      const tools = await serverTools(def.binaries, def.fetcher, {
        onFetch: this.#onFetch,
        signal,
        folders: binaryFolders(def),
      });
      const server = await def.start({ dir, port: freePort(), signal, tools });
      entry.server = server;
      const { version } = await def.probe(server.url, PROBE_TIMEOUT_MS);
      return {
        url: server.url,
        version,
        startedByBench: true,
        origin: tools.origin,
        pid: server.pid,
      };
    } catch (error) {
      if (this.#entries.get(def) === entry) this.#entries.delete(def);
      await entry.server?.stop().catch(() => {});
      entry.server = undefined;
      entry.dir = undefined;
      await leftovers.removeTempDir(dir);
      throw error;
    }
  }

  /**
   * Crashes a throwaway server this manager started and brings it back: kills
   * its whole process tree hard (as a power cut would), then starts it again
   * on the same data folder and port, so it recovers whatever it had made
   * durable.  Callers that {@link acquire} meanwhile wait for the restart;
   * later calls return the new process id.
   *
   * @param def The server kind; its server must have been acquired.
   * @returns The id of the restarted server's main process.
   * @throws {Error} When the definition's URL variable is set (the bench
   *   cannot crash a user's server), when no server of that kind was
   *   acquired, when the definition's servers cannot be killed and restarted,
   *   or when the server does not come back.
   */
  async crash(def: ServiceDefinition): Promise<{ restartedPid: number }> {
    if (readEnv(def.urlEnv) != null) {
      throw new Error(
        "--crash-server-at needs a server the bench starts itself; " +
          `unset $${def.urlEnv}`,
      );
    }
    const entry = this.#entries.get(def);
    if (entry?.promise == null) {
      throw new Error(
        `no throwaway ${def.name} server to crash; acquire it first`,
      );
    }
    const acquired = await entry.promise;
    const server = entry.server;
    if (server == null || this.#entries.get(def) !== entry) {
      throw new Error(`the throwaway ${def.name} server was stopped`);
    }
    if (server.kill == null || server.restart == null) {
      throw new Error(
        `the ${def.name} server cannot be crashed: its definition's start() ` +
          "returns a server without kill() and restart()",
      );
    }
    const kill = server.kill.bind(server);
    const restart = server.restart.bind(server);
    const crashed = (async (): Promise<AcquiredService> => {
      await kill();
      await restart();
      return { ...acquired, pid: server.pid };
    })();
    entry.promise = crashed;
    return { restartedPid: (await crashed).pid! };
  }

  /** The process ids of the running throwaway servers. */
  startedPids(): number[] {
    const pids: number[] = [];
    for (const entry of this.#entries.values()) {
      if (entry.server != null) pids.push(entry.server.pid);
    }
    return pids;
  }

  /** The temporary folders of the throwaway servers, removed by {@link stopAll}. */
  tempDirs(): string[] {
    const dirs: string[] = [];
    for (const entry of this.#entries.values()) {
      if (entry.dir != null) dirs.push(entry.dir);
    }
    return dirs;
  }

  /**
   * Stops every throwaway server this manager started, waits for them to
   * exit, and removes their folders.  Starts in progress are aborted.
   * Servers that already died are fine.  Safe to call more than once; the
   * manager can be used again afterwards.
   */
  async stopAll(): Promise<void> {
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    this.#userGiven.clear();
    await Promise.all(entries.map(async (entry) => {
      entry.controller.abort(new Error("the service manager is stopping"));
      await entry.promise?.catch(() => {});
      await entry.server?.stop().catch(() => {});
      entry.server = undefined;
      if (entry.dir != null) {
        await leftovers.removeTempDir(entry.dir);
      }
    }));
  }
}

/** The fix for a server whose `missing` programs are not installed. */
function installFix(def: ServiceDefinition, missing: readonly string[]) {
  return `install ${missing.length > 1 ? "them" : "it"} ` +
    `(${def.installHint}) or set ${def.urlEnv}`;
}

/** Races `promise` against `signal`. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() =>
      signal.removeEventListener("abort", onAbort)
    );
  });
}

/** Where `def`'s executables may be besides `PATH`. */
function binaryFolders(def: ServiceDefinition): readonly string[] {
  return def.binaryFolders?.() ?? [];
}
