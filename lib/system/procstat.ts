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
}

/** What `/proc/PID/stat` says of a process's parent and CPU time. */
export interface ProcStat {
  /** The parent's process id. */
  readonly ppid: number;
  /** Its own user + system CPU seconds (utime + stime). */
  readonly cpuSeconds: number;
  /**
   * User + system CPU seconds of its children that have ended and that it
   * waited for (cutime + cstime), with their own such children's.
   */
  readonly reapedChildrenCpuSeconds: number;
}

/**
 * Parses the text of `/proc/PID/stat`: fields 4 (ppid) and 14–17 (utime,
 * stime, cutime, cstime), counting from 1.
 * @throws {TypeError} If the text is not in that format.
 */
export function parseStat(text: string): ProcStat {
  // Fields after the command name, which is in parentheses and may hold
  // spaces and parentheses: fields[0] is field 3, the state.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const [ppid, utime, stime, cutime, cstime] = [1, 11, 12, 13, 14].map((i) =>
    Number(fields[i])
  );
  if (![ppid, utime, stime, cutime, cstime].every(Number.isFinite)) {
    throw new TypeError(`not a /proc/PID/stat line: ${text.slice(0, 80)}`);
  }
  return {
    ppid,
    cpuSeconds: (utime + stime) / TICKS_PER_SECOND,
    reapedChildrenCpuSeconds: (cutime + cstime) / TICKS_PER_SECOND,
  };
}

function readStat(pid: number): ProcStat | null {
  try {
    return parseStat(Deno.readTextFileSync(`/proc/${pid}/stat`));
  } catch {
    return null;
  }
}

function readPeakRss(pid: number): number | null {
  try {
    const text = Deno.readTextFileSync(`/proc/${pid}/status`);
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(text);
    return match == null ? null : Number(match[1]) * 1024;
  } catch {
    return null;
  }
}

/** Reads one process; `null` if it is gone or `/proc` is unreadable. */
export function sampleProcess(pid: number): ProcessSample | null {
  const stat = readStat(pid);
  const peak = readPeakRss(pid);
  if (stat == null || peak == null) return null;
  return { cpuSeconds: stat.cpuSeconds, peakRssBytes: peak };
}

/** The process ids of `pid` and all its descendants. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  try {
    for (const entry of Deno.readDirSync("/proc")) {
      if (!/^\d+$/.test(entry.name)) continue;
      const child = Number(entry.name);
      const stat = readStat(child);
      if (stat == null) continue;
      const list = children.get(stat.ppid) ?? [];
      list.push(child);
      children.set(stat.ppid, list);
    }
  } catch {
    return [pid];
  }
  const tree: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.shift()!;
    tree.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return tree;
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
