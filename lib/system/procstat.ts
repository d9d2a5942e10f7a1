/**
 * CPU time and peak memory of processes, read from Linux's `/proc`.  Where
 * `/proc` is missing (not Linux), every reading is `null`.
 *
 * @module
 */

/** Clock ticks per second of `/proc/PID/stat` times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** One reading of a process (or process tree). */
export interface ProcessSample {
  /**
   * User + system CPU seconds so far; for a tree, with the children its
   * members waited for (see {@link sampleTree}).
   */
  readonly cpuSeconds: number;
  /** Peak resident set size (VmHWM) in bytes. */
  readonly peakRssBytes: number;
  /**
   * User + system CPU seconds of the process's main thread alone (the
   * thread whose id is the process id: a Deno process's event loop);
   * absent for a tree and where it cannot be read.
   */
  readonly mainThreadCpuSeconds?: number;
}

/** What `/proc/PID/stat` says of a process, the fields the project reads. */
export interface ProcStat {
  /** Field 2: the command name, without its parentheses (e.g. `beam.smp`). */
  readonly command: string;
  /** Field 3: `R`, `S`, `D`, `Z` (ended, not yet waited for), `X`, … */
  readonly state: string;
  /** Field 4: the parent's process id. */
  readonly ppid: number;
  /** Field 5: the process group's id. */
  readonly pgid: number;
  /** Field 7: the controlling terminal, `0` for none. */
  readonly ttyNr: number;
  /**
   * Field 22: the start time in clock ticks since boot, as written; with the
   * pid it names one process, against reused ids.
   */
  readonly startTime: string;
  /** Its own user + system CPU seconds (fields 14 and 15, utime + stime). */
  readonly cpuSeconds: number;
  /**
   * User + system CPU seconds of its children that have ended and that it
   * waited for (fields 16 and 17, cutime + cstime), with their own such
   * children's.
   */
  readonly reapedChildrenCpuSeconds: number;
}

/**
 * Parses the text of `/proc/PID/stat` (see {@link ProcStat} for the fields
 * it keeps, counted from 1 as in proc(5)).
 * @throws {TypeError} If the text is not in that format.
 */
export function parseStat(text: string): ProcStat {
  // The command name is in parentheses and may hold spaces and parentheses:
  // it ends at the last ")".  fields[0] is field 3, the state.
  const close = text.lastIndexOf(")");
  const fields = text.slice(close + 2).split(" ");
  const numbers = [1, 2, 4, 11, 12, 13, 14, 19].map((i) => Number(fields[i]));
  if (close < 0 || !numbers.every(Number.isFinite)) {
    throw new TypeError(`not a /proc/PID/stat line: ${text.slice(0, 80)}`);
  }
  const [ppid, pgid, ttyNr, utime, stime, cutime, cstime] = numbers;
  return {
    command: text.slice(text.indexOf("(") + 1, close),
    state: fields[0],
    ppid,
    pgid,
    ttyNr,
    startTime: fields[19],
    cpuSeconds: (utime + stime) / TICKS_PER_SECOND,
    reapedChildrenCpuSeconds: (cutime + cstime) / TICKS_PER_SECOND,
  };
}

/**
 * Reads `/proc/PID/stat`; `null` if the process is gone or `/proc` cannot be
 * read.  A zombie (ended, not yet waited for) is still read.
 */
export function readStat(pid: number): ProcStat | null {
  try {
    return parseStat(Deno.readTextFileSync(`/proc/${pid}/stat`));
  } catch {
    return null;
  }
}

/**
 * Reads a process that still runs: `null` also for a zombie (`Z`) or a
 * dying process (`X`).
 */
export function readLiveStat(pid: number): ProcStat | null {
  const stat = readStat(pid);
  return stat == null || stat.state === "Z" || stat.state === "X" ? null : stat;
}

/** A process found in `/proc`: its id, and its stat when it was found. */
export interface ProcEntry {
  /** The process id. */
  readonly pid: number;
  /** Its `/proc/PID/stat` when it was found. */
  readonly stat: ProcStat;
}

/**
 * Whether the very process `entry` names still runs: a live process with
 * that id and the same start time (not another one that reuses the id).
 */
export function isStillRunning(entry: ProcEntry): boolean {
  return readLiveStat(entry.pid)?.startTime === entry.stat.startTime;
}

/**
 * Every process in `/proc` (only live ones when `live`), by parent id;
 * `null` where `/proc` cannot be listed.
 */
function childrenByParent(live: boolean): Map<number, ProcEntry[]> | null {
  const read = live ? readLiveStat : readStat;
  const children = new Map<number, ProcEntry[]>();
  try {
    for (const entry of Deno.readDirSync("/proc")) {
      if (!/^\d+$/.test(entry.name)) continue;
      const pid = Number(entry.name);
      const stat = read(pid);
      if (stat == null) continue;
      const siblings = children.get(stat.ppid) ?? [];
      siblings.push({ pid, stat });
      children.set(stat.ppid, siblings);
    }
  } catch {
    return null;
  }
  return children;
}

/** The entries below `root` in `children`, breadth first. */
function below(
  root: number,
  children: ReadonlyMap<number, readonly ProcEntry[]>,
): ProcEntry[] {
  const found: ProcEntry[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/**
 * The live descendants of `root` (not `root` itself), breadth first, each
 * with its stat; zombies are left out.  Empty where `/proc` cannot be read.
 */
export function liveDescendants(root: number): ProcEntry[] {
  const children = childrenByParent(true);
  return children == null ? [] : below(root, children);
}

function readPeakRss(pid: number): number | null {
  try {
    const kib = statusField(
      Deno.readTextFileSync(`/proc/${pid}/status`),
      "VmHWM",
    );
    return kib == null ? null : kib * 1024;
  } catch {
    return null;
  }
}

/**
 * Reads one process, and its main thread's CPU time; `null` if it is gone
 * or `/proc` is unreadable.
 */
export function sampleProcess(pid: number): ProcessSample | null {
  const stat = readStat(pid);
  const peak = readPeakRss(pid);
  if (stat == null || peak == null) return null;
  let main: number | undefined;
  try {
    main = parseStat(
      Deno.readTextFileSync(`/proc/${pid}/task/${pid}/stat`),
    ).cpuSeconds;
  } catch { /* no per-thread reading: the process's own still counts */ }
  return {
    cpuSeconds: stat.cpuSeconds,
    peakRssBytes: peak,
    ...(main == null ? {} : { mainThreadCpuSeconds: main }),
  };
}

/**
 * The process ids of `pid` and all its descendants, zombies included (they
 * still hold their CPU time); just `[pid]` where `/proc` cannot be read.
 */
export function processTree(pid: number): number[] {
  const children = childrenByParent(false);
  if (children == null) return [pid];
  return [pid, ...below(pid, children).map((entry) => entry.pid)];
}

/**
 * Reads a process and its descendants (e.g. PostgreSQL's backends): CPU
 * seconds and peak RSS are summed over the tree.  The CPU seconds of each
 * live member include those of its children that ended and that it waited
 * for, so short-lived children (PostgreSQL's autovacuum workers, Redis's
 * save forks) count, and a member that ends between two samples moves its
 * time into its parent's instead of taking it away.  (A child whose parent
 * ignores `SIGCHLD`, or that outlives its parent, is still lost.)
 */
export function sampleTree(pid: number): ProcessSample | null {
  let cpuSeconds = 0;
  let peakRssBytes = 0;
  let any = false;
  for (const member of processTree(pid)) {
    const stat = readStat(member);
    if (stat == null) continue;
    any = true;
    cpuSeconds += stat.cpuSeconds + stat.reapedChildrenCpuSeconds;
    // A zombie (ended, not yet waited for) has its CPU time but no memory.
    peakRssBytes += readPeakRss(member) ?? 0;
  }
  return any ? { cpuSeconds, peakRssBytes } : null;
}

/**
 * Resets the peak RSS (VmHWM) of a process tree to its current RSS, so a
 * long-lived server's peak can be read per run.  Best effort: needs
 * permission to write `/proc/PID/clear_refs`.
 */
export function resetPeakRss(pid: number): void {
  for (const member of processTree(pid)) {
    try {
      Deno.writeTextFileSync(`/proc/${member}/clear_refs`, "5");
    } catch { /* not permitted or gone */ }
  }
}

/** A reading of what a process (or tree) costs while it waits. */
export interface ActivitySample {
  /** User + system CPU seconds so far (a tree's as {@link sampleTree}'s). */
  readonly cpuSeconds: number;
  /** Resident set size now (VmRSS), bytes, summed over a tree. */
  readonly rssBytes: number;
  /**
   * Context switches so far, voluntary and not, of each thread alive now,
   * keyed `PID/TID`; `null` where the kernel does not tell.
   */
  readonly threadSwitches: Readonly<Record<string, number>> | null;
}

/** The first number after `label:` in a `/proc/.../status` text. */
function statusField(text: string, label: string): number | null {
  const match = new RegExp(`^${label}:\\s+(\\d+)`, "m").exec(text);
  return match == null ? null : Number(match[1]);
}

/** Adds each live thread's context switches to `into`; `false` if unreadable. */
function readThreadSwitches(
  pid: number,
  into: Record<string, number>,
): boolean {
  try {
    for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
      try {
        const text = Deno.readTextFileSync(
          `/proc/${pid}/task/${task.name}/status`,
        );
        into[`${pid}/${task.name}`] =
          (statusField(text, "voluntary_ctxt_switches") ?? 0) +
          (statusField(text, "nonvoluntary_ctxt_switches") ?? 0);
      } catch { /* the thread ended */ }
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * Context switches between two readings: for every thread alive at the
 * second, its count then minus its count at the first (0 if it was not
 * alive yet).  Threads that ended in between are not counted, so this is a
 * lower bound; `null` when either reading could not tell.
 */
export function switchesBetween(
  start: ActivitySample["threadSwitches"],
  end: ActivitySample["threadSwitches"],
): number | null {
  if (start == null || end == null) return null;
  let sum = 0;
  for (const [thread, count] of Object.entries(end)) {
    sum += Math.max(0, count - (start[thread] ?? 0));
  }
  return sum;
}

/**
 * Reads a process, or with `tree` its whole tree, for an idle measurement:
 * CPU time, current RSS and each thread's context switches; `null` if it is
 * gone.
 */
export function sampleActivity(
  pid: number,
  tree: boolean,
): ActivitySample | null {
  let cpuSeconds = 0;
  let rssBytes = 0;
  const switches: Record<string, number> = {};
  let readable = true;
  let any = false;
  for (const member of tree ? processTree(pid) : [pid]) {
    const stat = readStat(member);
    if (stat == null) continue;
    any = true;
    cpuSeconds += stat.cpuSeconds + (tree ? stat.reapedChildrenCpuSeconds : 0);
    try {
      const status = Deno.readTextFileSync(`/proc/${member}/status`);
      rssBytes += (statusField(status, "VmRSS") ?? 0) * 1024;
    } catch { /* ended meanwhile */ }
    readable = readThreadSwitches(member, switches) && readable;
  }
  return any
    ? { cpuSeconds, rssBytes, threadSwitches: readable ? switches : null }
    : null;
}

/**
 * Readings of a process on another host, taken there (by the agent that
 * started it, `lib/agent/`) and carried back.
 */
export interface RemoteProbe {
  /** The agent's address, which the process's record names. */
  readonly agent: string;
  /** What `sampleProcess` reads there; `null` once it is gone. */
  sample(): Promise<ProcessSample | null>;
  /** What `sampleActivity` reads there; `null` once it is gone. */
  activity(): Promise<ActivitySample | null>;
}
