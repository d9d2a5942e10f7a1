/**
 * Plumbing for throwaway servers: free ports, binaries on `PATH`, launching
 * a server and waiting until it serves, and servers that can be killed hard
 * and restarted on the same data.  The service modules build on it, and so
 * can a driver of your own (it is exported from the package's `mod.ts`).
 *
 * @module
 */
import {
  isStillRunning,
  liveDescendants,
  type ProcEntry,
} from "../system/procstat.ts";
import { sleep } from "../system/sleep.ts";
import type { StartedServer } from "./service_types.ts";
import { errorMessage } from "../results/error_message.ts";
import {
  type LoggedProcess,
  logTail,
  spawnLogged,
  type SpawnLoggedOptions,
} from "../system/logged_process.ts";
import { findBinary } from "./binaries.ts";

/**
 * Finds a free TCP port on 127.0.0.1 by listening on port 0.  Another
 * process may take it before it is used; that is unlikely enough here.
 *
 * @returns A port number.
 */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    return (listener.addr as Deno.NetAddr).port;
  } finally {
    listener.close();
  }
}

/**
 * Lists the executables that are neither on `PATH` nor in `folders`.
 *
 * @param names Executable names.
 * @param folders Where else to look (a server's `binaryFolders`).
 * @returns Those not found, in the given order.
 */
export function missingBinaries(
  names: readonly string[],
  folders: readonly string[] = [],
): string[] {
  return names.filter((name) => findBinary(name, folders) == null);
}

/**
 * Tells whether every executable is on `PATH` or in `folders`.
 *
 * @param names Executable names.
 * @param folders Where else to look (a server's `binaryFolders`).
 */
export function hasBinaries(
  names: readonly string[],
  folders: readonly string[] = [],
): boolean {
  return missingBinaries(names, folders).length === 0;
}

/** How {@link waitUntilServing} checks on a server it has just spawned. */
export interface ServingCheck<T> {
  /** The server's name in errors, e.g. `redis-server`. */
  readonly name: string;
  /** The spawned process: if it exits, the wait fails at once. */
  readonly process: LoggedProcess;
  /** The process's log; errors quote its last lines. */
  readonly logPath: string;
  /** What the probe waits for, e.g. `no answer to PING on port 6379`. */
  readonly awaited: string;
  /** Longest wait in milliseconds. */
  readonly timeoutMs: number;
  /** Pause between probes in milliseconds. */
  readonly intervalMs: number;
  /** Aborts the wait. */
  readonly signal?: AbortSignal;
  /** Resolves once the server serves; rejects while it does not yet. */
  probe(): Promise<T>;
  /** Words to add to the error when the process exits, read from its log. */
  exitHint?(log: string): string;
}

/**
 * Probes a freshly spawned server until it serves, it exits, or the time is
 * up.  Does not stop the process on failure: the caller does.
 *
 * @param check The process and how to probe it.
 * @returns What the first successful probe resolved to.
 * @throws {Error} Naming the server, why it is not serving, and its log's
 *   last lines.
 */
export async function waitUntilServing<T>(check: ServingCheck<T>): Promise<T> {
  const { name, process, logPath } = check;
  const deadline = Date.now() + check.timeoutMs;
  while (true) {
    if (process.exited) {
      const { code } = await process.status;
      const log = await Deno.readTextFile(logPath).catch(() => "");
      const hint = check.exitHint?.(log) ?? "";
      throw await startError(name, `exited (${code})${hint}`, logPath);
    }
    try {
      return await check.probe();
    } catch (error) {
      if (Date.now() > deadline) {
        throw await startError(
          name,
          `${check.awaited} within ${check.timeoutMs} ms ` +
            `(${errorMessage(error)})`,
          logPath,
        );
      }
    }
    await sleep(check.intervalMs, check.signal);
  }
}

/**
 * One life of a throwaway server's process, as a service module's launch
 * function returns it to {@link restartableServer}.
 */
export interface ServerProcess {
  /** The process the bench spawned: the root of the server's process tree. */
  readonly process: LoggedProcess;
  /**
   * The server's main process id: `process.pid`, or one of its descendants
   * when the spawned process is a wrapper script.
   */
  readonly pid: number;
  /** Stops this life gracefully and waits for all of its processes. */
  stop(): Promise<void>;
}

/**
 * Runs a server's one-off setup program (`initdb`, `mariadb-install-db`) to
 * its end, its output appended to a log file.  An abort sends it SIGTERM,
 * which lets it end the bootstrap server it may have started (a SIGKILL
 * would orphan that one).
 *
 * @param name The program's name in errors.
 * @param command The executable.
 * @param args Its arguments.
 * @param options Its log file, folder, user and environment.
 * @param signal Aborts the setup.
 * @throws {Error} When it exits with another code than 0 (with its log's
 *   last lines), or the signal's reason when aborted.
 */
export async function runSetup(
  name: string,
  command: string,
  args: readonly string[],
  options: SpawnLoggedOptions,
  signal?: AbortSignal,
): Promise<void> {
  signal?.throwIfAborted();
  const setup = await spawnLogged(command, args, options);
  const onAbort = () => void setup.stop("SIGTERM", 5000);
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) onAbort();
  try {
    const { code } = await setup.status;
    signal?.throwIfAborted();
    if (code !== 0) {
      throw await startError(name, `exited (${code})`, options.logPath);
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * How {@link launchServer} starts one life of a server and tells when it
 * serves: the spawn, the wait of {@link waitUntilServing}, and the stop.
 */
export interface LaunchSpec<T> {
  /** The server's name in errors, e.g. `redis-server`. */
  readonly name: string;
  /** The executable (a name on `PATH` or a path). */
  readonly command: string;
  /** Its arguments. */
  readonly args: readonly string[];
  /** Its log file (errors quote its last lines), folder, user, environment. */
  readonly spawn: SpawnLoggedOptions;
  /** What the probe waits for, e.g. `no answer to PING on port 6379`. */
  readonly awaited: string;
  /** Longest wait in milliseconds. */
  readonly timeoutMs: number;
  /** Pause between probes in milliseconds. */
  readonly intervalMs: number;
  /** Aborts the wait (the process is then stopped). */
  readonly signal?: AbortSignal;
  /** The signal that shuts the server down gracefully (default `SIGTERM`). */
  readonly stopSignal?: Deno.Signal;
  /** How long it may take to exit after that signal before `SIGKILL`. */
  readonly stopGraceMs: number;
  /**
   * Resolves once the server serves; rejects while it does not yet.
   * @param process The spawned process (e.g. to stop waiting once it exits).
   */
  probe(process: LoggedProcess): Promise<T>;
  /** Words to add to the error when the process exits, read from its log. */
  exitHint?(log: string): string;
  /**
   * Checks, once, what the first successful probe resolved to; throws (the
   * process is then stopped) when it is not the server just launched, e.g.
   * another one answers on its port.
   */
  accept?(served: T): void | Promise<void>;
  /**
   * Stops this life and waits for all of its processes, instead of sending
   * {@link stopSignal} and waiting {@link stopGraceMs} for the process.
   */
  stop?(process: LoggedProcess): Promise<void>;
}

/**
 * Starts one life of a throwaway server: spawns it in the foreground with
 * {@link spawnLogged}, waits with {@link waitUntilServing} until it serves,
 * and stops it again when it does not (or the wait is aborted).  What it
 * returns is what {@link restartableServer} wants from a launch function.
 *
 * @param spec The command, the probe, and how to stop it.
 * @returns The running process; its `stop()` runs once however often it is
 *   called.
 * @throws {Error} Naming the server, why it is not serving, and its log's
 *   last lines; or the signal's reason when the wait is aborted.
 */
export async function launchServer<T>(
  spec: LaunchSpec<T>,
): Promise<ServerProcess> {
  const server = await spawnLogged(spec.command, spec.args, spec.spawn);
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    stopping ??= spec.stop?.(server) ??
      server.stop(spec.stopSignal ?? "SIGTERM", spec.stopGraceMs);
  try {
    const served = await waitUntilServing({
      name: spec.name,
      process: server,
      logPath: spec.spawn.logPath,
      awaited: spec.awaited,
      timeoutMs: spec.timeoutMs,
      intervalMs: spec.intervalMs,
      signal: spec.signal,
      probe: () => spec.probe(server),
      exitHint: (log) => spec.exitHint?.(log) ?? "",
    });
    await spec.accept?.(served);
  } catch (error) {
    await stop();
    throw error;
  }
  return { process: server, pid: server.pid, stop };
}

/**
 * Builds a {@link StartedServer} that can be killed and restarted, for the
 * service modules.  `launch` starts the server's process on the same folder
 * and port as `first` and resolves once it accepts connections (stopping
 * what it spawned when it fails).  `stop()`, `kill()` and `restart()` run
 * one at a time, in call order; `pid` always names the current life's
 * process.
 *
 * @param url The server's URL, the same in every life.
 * @param first The running process, from the first launch.
 * @param launch Starts the process again.
 */
export function restartableServer(
  url: string,
  first: ServerProcess,
  launch: () => Promise<ServerProcess>,
): StartedServer {
  let current = first;
  let stopped = false;
  let queue: Promise<unknown> = Promise.resolve();
  const serially = (task: () => Promise<void>): Promise<void> => {
    const done = queue.then(task);
    queue = done.catch(() => {});
    return done;
  };
  let stopping: Promise<void> | undefined;
  return {
    url,
    get pid(): number {
      return current.pid;
    },
    stop(): Promise<void> {
      stopped = true;
      stopping ??= serially(() => current.stop());
      return stopping;
    },
    kill(): Promise<void> {
      return serially(() => killProcessTree(current.process));
    },
    restart(): Promise<void> {
      return serially(async () => {
        if (stopped) throw new Error(`${url} was stopped; it cannot restart`);
        if (!current.process.exited) await current.stop();
        current = await launch();
      });
    },
  };
}

/** How long SIGKILLed processes may take to vanish (a D-state fsync). */
const KILL_WAIT_MS = 30_000;

/** Sends a signal to the very process `id` names, if it still lives. */
function signalProcess(id: ProcEntry, signal: Deno.Signal): void {
  if (!isStillRunning(id)) return;
  try {
    Deno.kill(id.pid, signal);
  } catch {
    // Gone meanwhile.
  }
}

/**
 * Kills a process and all its descendants hard, as a power cut would:
 * freezes the whole tree first (SIGSTOP, so nothing forks, exits or writes
 * in between), then SIGKILLs every process, and waits until each is gone
 * (zombies count as gone).  Data the processes had written to the kernel
 * but not fsynced survives, unlike in a real power cut.  Does nothing if
 * the process has exited.
 *
 * @param root The process the bench spawned.
 * @throws {Error} When a process survives SIGKILL for 30 seconds.
 */
export async function killProcessTree(root: LoggedProcess): Promise<void> {
  if (root.exited) return;
  root.kill("SIGSTOP");
  const frozen = new Map<number, ProcEntry>();
  while (true) {
    const found = liveDescendants(root.pid).filter((id) => !frozen.has(id.pid));
    if (found.length === 0) break;
    for (const id of found) {
      signalProcess(id, "SIGSTOP");
      frozen.set(id.pid, id);
    }
  }
  root.kill("SIGKILL");
  for (const id of frozen.values()) signalProcess(id, "SIGKILL");
  await root.status;
  const deadline = Date.now() + KILL_WAIT_MS;
  let alive = [...frozen.values()];
  while (true) {
    alive = alive.filter(isStillRunning);
    if (alive.length === 0) return;
    if (Date.now() > deadline) {
      throw new Error(
        `processes ${alive.map((id) => id.pid).join(", ")} survived SIGKILL`,
      );
    }
    await sleep(10);
  }
}

/** Builds an error for a server that failed to start, with its log tail. */
export async function startError(
  what: string,
  reason: string,
  logPath: string,
): Promise<Error> {
  const tail = await logTail(logPath);
  return new Error(
    `${what} failed to start: ${reason}` +
      (tail ? `\n--- ${logPath} (last lines) ---\n${tail}` : ""),
  );
}
