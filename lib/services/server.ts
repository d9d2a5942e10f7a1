/**
 * Plumbing for throwaway servers: free ports, binaries on `PATH`, waiting
 * until a freshly spawned server serves, and servers that can be killed hard
 * and restarted on the same data.  The service modules build on it, and so
 * can a driver of your own (it is exported from the package's `mod.ts`).
 *
 * @module
 */
import type { StartedServer } from "./types.ts";
import {
  errorMessage,
  findBinary,
  type LoggedProcess,
  sleep,
  startError,
} from "./util.ts";

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
 * Lists the executables that are not on `PATH`.
 *
 * @param names Executable names.
 * @returns Those not found, in the given order.
 */
export function missingBinaries(names: readonly string[]): string[] {
  return names.filter((name) => findBinary(name) == null);
}

/**
 * Tells whether every executable is on `PATH`.
 *
 * @param names Executable names.
 */
export function hasBinaries(names: readonly string[]): boolean {
  return missingBinaries(names).length === 0;
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

/** A process, identified by its id and start time (against pid reuse). */
interface ProcessId {
  readonly pid: number;
  readonly startTime: string;
}

/** Reads a live process's parent and start time from `/proc`. */
function readStat(
  pid: number,
): { ppid: number; startTime: string } | undefined {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // Fields after the command: state, ppid, …; starttime is field 22.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] === "Z" || fields[0] === "X") return undefined;
    return { ppid: Number(fields[1]), startTime: fields[19] };
  } catch {
    return undefined;
  }
}

/** Every live descendant of `root`, found through `/proc`. */
function processTree(root: number): ProcessId[] {
  const children = new Map<number, ProcessId[]>();
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const pid = Number(entry.name);
    const stat = readStat(pid);
    if (stat == null) continue;
    const siblings = children.get(stat.ppid) ?? [];
    siblings.push({ pid, startTime: stat.startTime });
    children.set(stat.ppid, siblings);
  }
  const found: ProcessId[] = [];
  const pending = [root];
  while (pending.length > 0) {
    for (const child of children.get(pending.pop()!) ?? []) {
      found.push(child);
      pending.push(child.pid);
    }
  }
  return found;
}

/** Sends a signal to the very process `id` names, if it still lives. */
function signalProcess(id: ProcessId, signal: Deno.Signal): void {
  if (readStat(id.pid)?.startTime !== id.startTime) return;
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
  const frozen = new Map<number, ProcessId>();
  while (true) {
    const found = processTree(root.pid).filter((id) => !frozen.has(id.pid));
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
    alive = alive.filter((id) => readStat(id.pid)?.startTime === id.startTime);
    if (alive.length === 0) return;
    if (Date.now() > deadline) {
      throw new Error(
        `processes ${alive.map((id) => id.pid).join(", ")} survived SIGKILL`,
      );
    }
    await sleep(10);
  }
}
