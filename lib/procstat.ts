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
  /** User + system CPU seconds so far. */
  readonly cpuSeconds: number;
  /** Peak resident set size (VmHWM) in bytes. */
  readonly peakRssBytes: number;
}

function readStat(pid: number): { cpuSeconds: number; ppid: number } | null {
  try {
    const text = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    const ppid = Number(fields[1]);
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return { cpuSeconds: (utime + stime) / TICKS_PER_SECOND, ppid };
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
 * seconds and peak RSS are summed over the tree.
 */
export function sampleTree(pid: number): ProcessSample | null {
  let cpuSeconds = 0;
  let peakRssBytes = 0;
  let any = false;
  for (const member of processTree(pid)) {
    const sample = sampleProcess(member);
    if (sample == null) continue;
    any = true;
    cpuSeconds += sample.cpuSeconds;
    peakRssBytes += sample.peakRssBytes;
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
