/**
 * {@link ProcessMeter}: one process of a run (for a queue server, its whole
 * process tree) measured from `/proc`, which yields the one record the
 * results keep of it, a {@link ProcessRecord}: its CPU seconds from the
 * start of sending to the end of the run and its peak memory.  For an idle
 * measurement it also yields an {@link IdleProcess}: CPU share, memory and
 * wake-ups across a window.  The readings stay inside the meter; the pure
 * {@link processRecord} and {@link idleProcess} turn two readings into those
 * records.
 *
 * @module
 */
import type { IdleProcess, ProcessRecord } from "../results/mod.ts";
import {
  type ActivitySample,
  type ProcessSample,
  type RemoteProbe,
  resetPeakRss,
  sampleActivity,
  sampleProcess,
  sampleTree,
  switchesBetween,
} from "../system/procstat.ts";
import { roundTo } from "./stats.ts";

/**
 * The record of a process from its readings at the start and the end:
 * CPU seconds between them (2 decimals), peak RSS at the end; `null` for a
 * figure whose reading is missing (never taken, unreadable, or dropped).
 */
export function processRecord(
  role: string,
  pid: number,
  start: ProcessSample | null | undefined,
  end: ProcessSample | null | undefined,
): ProcessRecord {
  return {
    role,
    pid,
    cpuSeconds: start != null && end != null
      ? roundTo(end.cpuSeconds - start.cpuSeconds, 2)
      : null,
    peakRssBytes: end?.peakRssBytes ?? null,
    ...(start?.mainThreadCpuSeconds != null &&
        end?.mainThreadCpuSeconds != null
      ? {
        mainThreadCpuSeconds: roundTo(
          end.mainThreadCpuSeconds - start.mainThreadCpuSeconds,
          2,
        ),
      }
      : {}),
  };
}

/**
 * A process's idle figures from its readings at the start and the end of a
 * window of `seconds`: CPU as a share of one core (percent, 2 decimals),
 * RSS at the end, and wake-ups in between.
 */
export function idleProcess(
  role: string,
  pid: number,
  seconds: number,
  start: ActivitySample | null | undefined,
  end: ActivitySample | null | undefined,
): IdleProcess {
  const both = start != null && end != null;
  return {
    role,
    pid,
    cpuPercent: both
      ? roundTo((end.cpuSeconds - start.cpuSeconds) * 100 / seconds, 2)
      : null,
    rssBytes: end?.rssBytes ?? null,
    wakeups: both
      ? switchesBetween(start.threadSwitches, end.threadSwitches)
      : null,
  };
}

/**
 * Measures one process of a run: {@link start} when sending begins,
 * {@link finish} at the end, then {@link record}.  A meter with `tree` reads
 * the process and all its descendants (a queue server's backends).
 */
export class ProcessMeter {
  /** `inbox`, `sender`, `worker` or `server`. */
  readonly role: string;
  /** Its process id. */
  readonly pid: number;
  readonly #tree: boolean;
  readonly #remote: RemoteProbe | undefined;
  #start: ProcessSample | null | undefined;
  #end: ProcessSample | null | undefined;
  #idleStart: ActivitySample | null | undefined;
  /** Its network namespace when not the bench's (`--worker-hosts`). */
  #network: string | undefined;

  /**
   * A meter of the process `pid`, which plays `role` in the run.
   * @param tree Whether to read its whole process tree (a server).
   * @param remote Reads it where it runs, for a process on an agent's host;
   *   this host's `/proc` when absent.
   */
  constructor(role: string, pid: number, tree = false, remote?: RemoteProbe) {
    this.role = role;
    this.pid = pid;
    this.#tree = tree;
    this.#remote = remote;
  }

  /** Takes the first reading (a tree's peak RSS is reset first). */
  async start(): Promise<void> {
    if (this.#tree) resetPeakRss(this.pid);
    this.#start = await this.#read();
    this.#network = this.#remote == null ? otherNetwork(this.pid) : undefined;
  }

  /**
   * Drops the first reading: after a server crash its processes are others,
   * whose CPU time does not compare.
   */
  forgetStart(): void {
    this.#start = null;
  }

  /** Takes the last reading. */
  async finish(): Promise<void> {
    this.#end = await this.#read();
  }

  /** The process's record from the readings taken so far. */
  record(): ProcessRecord {
    const record = processRecord(this.role, this.pid, this.#start, this.#end);
    return {
      ...record,
      ...(this.#network == null ? {} : { network: this.#network }),
      ...(this.#remote == null ? {} : { agent: this.#remote.agent }),
    };
  }

  /** Takes the reading at the start of an idle window. */
  async startIdle(): Promise<void> {
    this.#idleStart = this.#remote == null
      ? sampleActivity(this.pid, this.#tree)
      : await this.#remote.activity();
  }

  /**
   * Reads the process again and returns its figures over the idle window
   * since {@link startIdle}, taken to last `seconds`.
   */
  async idle(seconds: number): Promise<IdleProcess> {
    const end = this.#remote == null
      ? sampleActivity(this.pid, this.#tree)
      : await this.#remote.activity();
    return idleProcess(this.role, this.pid, seconds, this.#idleStart, end);
  }

  #read(): Promise<ProcessSample | null> | ProcessSample | null {
    if (this.#remote != null) return this.#remote.sample();
    return this.#tree ? sampleTree(this.pid) : sampleProcess(this.pid);
  }
}

/**
 * Process `pid`'s network namespace (`net:[INODE]`) when it is not this
 * process's; `undefined` when it is, or where `/proc` cannot tell.
 */
export function otherNetwork(pid: number): string | undefined {
  try {
    const theirs = Deno.readLinkSync(`/proc/${pid}/ns/net`);
    return theirs === Deno.readLinkSync("/proc/self/ns/net")
      ? undefined
      : theirs;
  } catch {
    return undefined;
  }
}
