/**
 * What a bench run leaves on the machine while it runs: its temporary
 * folders and its child processes.  Each is recorded here, so that every way
 * out removes them: the graceful one removes each folder where it was made,
 * a forced exit calls {@link Leftovers.forceCleanup}, and a bench that was
 * killed outright leaves folders whose names hold its process id, which the
 * next bench sweeps away with {@link Leftovers.sweepStale} (on Linux: it
 * reads `/proc`).
 *
 * A folder is named `fqb-KIND-PID-START-XXXXXX`: KIND says what it is for
 * (`run`, `redis`, …), PID and START are the owning process's id and start
 * time (from `/proc`, against reused ids).
 *
 * @module
 */
import { readEnv } from "./env.ts";
import { join } from "node:path";
import { readStat } from "./procstat.ts";

/** A process, named by its id and its start time in clock ticks since boot. */
export interface ProcessIdentity {
  /** The process id. */
  readonly pid: number;
  /** Field 22 of `/proc/PID/stat`; `"0"` where `/proc` cannot be read. */
  readonly startTime: string;
}

const OWNED = /^fqb-.+-(\d+)-(\d+)-[^-]+$/;

/** This process's identity. */
export function selfIdentity(): ProcessIdentity {
  return { pid: Deno.pid, startTime: readStat(Deno.pid)?.startTime ?? "0" };
}

/**
 * Who owns a temporary folder, from its name, or `undefined` for a name that
 * does not say (folders of older versions, or not the bench's).
 *
 * @param name The folder's base name, e.g. `fqb-run-4242-8812345-a1b2c3`.
 */
export function ownerOf(name: string): ProcessIdentity | undefined {
  const match = OWNED.exec(name);
  return match == null
    ? undefined
    : { pid: Number(match[1]), startTime: match[2] };
}

/**
 * Whether the process still runs.  Without `/proc` (not Linux) every owner
 * counts as alive, so nothing is ever swept by mistake.
 */
export function isRunning(owner: ProcessIdentity): boolean {
  try {
    Deno.statSync("/proc/self/stat");
  } catch {
    return true;
  }
  const stat = readStat(owner.pid);
  if (stat == null || stat.state === "Z" || stat.state === "X") return false;
  return owner.startTime === "0" || stat.startTime === owner.startTime;
}

/** The folder where `Deno.makeTempDir` puts its folders. */
export function tempRoot(): string {
  return readEnv("TMPDIR") ?? "/tmp";
}

/**
 * Processes that still work in `dir`: their working folder or their command
 * line is inside it (a throwaway server of a bench that was killed).
 */
function processesUsing(dir: string): number[] {
  const found: number[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync("/proc")];
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry.name)) continue;
    const pid = Number(entry.name);
    if (pid === Deno.pid) continue;
    try {
      const cwd = Deno.readLinkSync(`/proc/${pid}/cwd`);
      const cmdline = Deno.readTextFileSync(`/proc/${pid}/cmdline`);
      if (
        cwd === dir || cwd.startsWith(dir + "/") ||
        cmdline.split("\0").some((arg) =>
          arg === dir || arg.includes(dir + "/")
        )
      ) {
        found.push(pid);
      }
    } catch { /* gone, or not ours to read */ }
  }
  return found;
}

/**
 * SIGKILLs a process found working in a stale folder, unless it has a
 * controlling terminal: the bench's servers and children run detached, in
 * sessions of their own without one, while a user's shell, `less` or
 * `tail -f` in that folder has one and is spared.  The process group goes
 * too only if the process leads it; otherwise the process alone.
 */
function killStray(pid: number): void {
  const stat = readStat(pid);
  if (stat == null || stat.ttyNr !== 0) return;
  try {
    Deno.kill(stat.pgid === pid ? -pid : pid, "SIGKILL");
  } catch { /* gone */ }
}

/** Sends `signal` to a process group, or to the process if that fails. */
function killGroup(pid: number, signal: Deno.Signal): void {
  try {
    Deno.kill(-pid, signal);
    return;
  } catch { /* not a group leader, or gone */ }
  try {
    Deno.kill(pid, signal);
  } catch { /* gone */ }
}

/** The temporary folders and child processes of this process's bench runs. */
export class Leftovers {
  readonly #dirs = new Set<string>();
  readonly #processes = new Set<number>();
  readonly #cleanups = new Set<() => void>();
  #owner: ProcessIdentity | undefined;

  /**
   * @param owner The process whose id goes into folder names; this one's,
   *   read when first needed (so that importing this module on a runtime
   *   the app runs on, `--runtime`, reads nothing of Deno).
   */
  constructor(owner?: ProcessIdentity) {
    this.#owner = owner;
  }

  /**
   * Makes a temporary folder owned by this process and records it.
   *
   * @param kind What the folder is for, e.g. `run` or `redis`.
   * @returns The folder's path.
   */
  async makeTempDir(kind: string): Promise<string> {
    const { pid, startTime } = this.#owner ??= selfIdentity();
    const dir = await Deno.makeTempDir({
      prefix: `fqb-${kind}-${pid}-${startTime}-`,
    });
    this.#dirs.add(dir);
    return dir;
  }

  /** Removes a folder from {@link makeTempDir}; never throws. */
  async removeTempDir(dir: string): Promise<void> {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    this.#dirs.delete(dir);
  }

  /** The recorded folders that still exist. */
  tempDirs(): string[] {
    return [...this.#dirs];
  }

  /**
   * Records a child process that {@link forceCleanup} must kill.  Children
   * are spawned in their own process group (`detached`), so the whole group
   * is killed.
   *
   * @param pid The child's id.
   * @param exited Settles when the child has exited; it is then forgotten.
   */
  trackProcess(pid: number, exited: Promise<unknown>): void {
    this.#processes.add(pid);
    exited.finally(() => this.#processes.delete(pid)).catch(() => {});
  }

  /**
   * Records a synchronous cleanup that {@link forceCleanup} must run (it
   * removes what is neither a folder nor a process: network namespaces).
   *
   * @returns Forgets the cleanup: call it once the thing is removed.
   */
  trackCleanup(cleanup: () => void): () => void {
    this.#cleanups.add(cleanup);
    return () => this.#cleanups.delete(cleanup);
  }

  /**
   * The last resort of a forced exit, synchronous so it can run just before
   * `Deno.exit`: SIGKILLs every running child's process group, runs every
   * recorded cleanup and removes every recorded folder.  Best effort; never
   * throws.
   */
  forceCleanup(): void {
    for (const pid of this.#processes) killGroup(pid, "SIGKILL");
    this.#processes.clear();
    for (const cleanup of this.#cleanups) {
      try {
        cleanup();
      } catch { /* best effort */ }
    }
    this.#cleanups.clear();
    for (const dir of this.#dirs) {
      try {
        Deno.removeSync(dir, { recursive: true });
      } catch { /* gone, or busy: the next bench sweeps it */ }
    }
    this.#dirs.clear();
  }

  /**
   * Removes the `fqb-*` folders in `root` whose owning process no longer
   * runs (a bench that was killed, or exited by force).  First it SIGKILLs
   * each process still working in one (its working folder or command line
   * is inside it: the dead bench's throwaway server) that has no controlling
   * terminal, with its process group if it leads one; a process with a
   * terminal (a user's shell or `tail -f` there) is never killed.  Folders
   * of running benches, and folders whose names do not say their owner,
   * stay.  Only on Linux: without `/proc` nothing is swept.
   *
   * @param root The temporary folder; {@link tempRoot} by default.
   * @returns The folders removed.
   */
  async sweepStale(root: string = tempRoot()): Promise<string[]> {
    const removed: string[] = [];
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(root)];
    } catch {
      return removed;
    }
    for (const entry of entries) {
      if (!entry.isDirectory) continue;
      const owner = ownerOf(entry.name);
      if (owner == null || isRunning(owner)) continue;
      const dir = join(root, entry.name);
      for (const pid of processesUsing(dir)) killStray(pid);
      try {
        await Deno.remove(dir, { recursive: true });
        removed.push(dir);
      } catch { /* another bench swept it first, or it is busy */ }
    }
    return removed;
  }
}

/** This process's leftovers: what the runner and the service manager record. */
export const leftovers: Leftovers = new Leftovers();
