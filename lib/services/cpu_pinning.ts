/**
 * Fewer cores for the app (`--cpus N`), with `taskset`: which CPUs the
 * bench may use, how they split between the app (its first N) and the rest
 * (the queue server, the inbox and the bench itself), a launcher that starts
 * a process on given CPUs, and pinning processes that already run.
 * Pinning sets where a process may run; it does not cap its share of a CPU
 * (a cgroup quota would).
 *
 * @module
 */
import type { Launcher } from "../system/process.ts";
import { processTree } from "../system/procstat.ts";
import { findBinary } from "./binaries.ts";

/**
 * The CPUs of a list like `0-2,4`, ascending and each once.
 * @throws {SyntaxError} For text that is no CPU list.
 */
export function parseCpuList(text: string): number[] {
  const cpus = new Set<number>();
  for (const part of text.trim().split(",")) {
    const match = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (match == null) {
      throw new SyntaxError(`not a CPU list: ${JSON.stringify(text)}`);
    }
    const first = Number(match[1]);
    const last = match[2] == null ? first : Number(match[2]);
    if (last < first) {
      throw new SyntaxError(`not a CPU list: ${JSON.stringify(text)}`);
    }
    for (let cpu = first; cpu <= last; cpu++) cpus.add(cpu);
  }
  return [...cpus].sort((a, b) => a - b);
}

/** A CPU list as `taskset` and `/proc` write it: `[0, 1, 2, 4]` → `0-2,4`. */
export function formatCpuList(cpus: readonly number[]): string {
  const sorted = [...new Set(cpus)].sort((a, b) => a - b);
  const ranges: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    ranges.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return ranges.join(",");
}

/**
 * The CPUs a process may run on (`Cpus_allowed_list` of
 * `/proc/PID/status`): the bench's own by default.
 * @throws {Error} Where `/proc` cannot be read.
 */
export function allowedCpus(pid: number | "self" = "self"): number[] {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const line = /^Cpus_allowed_list:\s*(.+)$/m.exec(status);
  if (line == null) {
    throw new Error(`/proc/${pid}/status has no Cpus_allowed_list`);
  }
  return parseCpuList(line[1]);
}

/** How `--cpus N` splits the CPUs the bench may use. */
export interface CpuSplit {
  /** The app's processes (the sender and the workers): the first N. */
  readonly app: readonly number[];
  /**
   * The rest, for the queue server, the inbox and the bench's own process;
   * empty when N is every CPU (nothing is then pinned apart).
   */
  readonly rest: readonly number[];
}

/**
 * Splits `allowed` into the app's first `cpus` CPUs and the rest.
 * @throws {RangeError} When `cpus` is below 1 or above `allowed.length`;
 *   the message names the fix.
 */
export function splitCpus(allowed: readonly number[], cpus: number): CpuSplit {
  if (!Number.isInteger(cpus) || cpus < 1 || cpus > allowed.length) {
    throw new RangeError(
      `--cpus ${cpus}: the bench may use ${allowed.length} CPU` +
        `${allowed.length === 1 ? "" : "s"} (${formatCpuList(allowed)}); ` +
        `give --cpus from 1 to ${allowed.length}`,
    );
  }
  return { app: allowed.slice(0, cpus), rest: allowed.slice(cpus) };
}

/**
 * The `taskset` executable (util-linux).
 * @throws {Error} When it is nowhere on `PATH`, naming the fix.
 */
export function tasksetPath(): string {
  const path = findBinary("taskset");
  if (path == null) {
    throw new Error(
      "--cpus needs taskset, which is not on PATH; install util-linux " +
        "(apt-get install util-linux) or drop --cpus",
    );
  }
  return path;
}

/**
 * A launcher that starts what `launcher` starts on `cpus` only, through
 * `taskset -c` (which then runs it in its own place: the process id is the
 * runtime's).  Every other part of the launcher (a runtime's identity and
 * packages) is kept.
 *
 * @param launcher How the process is started otherwise.
 * @param cpus The CPUs it may run on.
 * @param taskset The `taskset` executable; {@link tasksetPath} by default.
 */
export function pinnedLauncher<L extends Launcher>(
  launcher: L,
  cpus: readonly number[],
  taskset: string = tasksetPath(),
): L {
  const list = formatCpuList(cpus);
  const command = launcher.command;
  return {
    ...launcher,
    command: taskset,
    args: (script: string, spec: string) => [
      "-c",
      list,
      command,
      ...launcher.args(script, spec),
    ],
  };
}

/**
 * Sets which CPUs every thread of process `pid` may run on
 * (`taskset -a -p -c`).
 * @throws {Error} When `taskset` fails (the process is gone, no
 *   permission), with its message.
 */
export async function pinProcess(
  pid: number,
  cpus: readonly number[],
  taskset: string = tasksetPath(),
): Promise<void> {
  const output = await new Deno.Command(taskset, {
    args: ["-a", "-p", "-c", formatCpuList(cpus), String(pid)],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!output.success) {
    const message = new TextDecoder().decode(output.stderr).trim();
    throw new Error(
      `taskset could not pin process ${pid} to CPUs ${formatCpuList(cpus)}` +
        (message === "" ? "" : `: ${message}`),
    );
  }
}

/**
 * Pins process `pid` and every process below it (a server's workers,
 * PostgreSQL's backends), every thread of each, to `cpus`; processes forked
 * later inherit it.  A descendant that exits meanwhile is skipped.
 *
 * @returns How many processes it pinned.
 * @throws {Error} When `pid` itself cannot be pinned.
 */
export async function pinProcessTree(
  pid: number,
  cpus: readonly number[],
  taskset: string = tasksetPath(),
): Promise<number> {
  await pinProcess(pid, cpus, taskset);
  let pinned = 1;
  for (const member of processTree(pid).slice(1)) {
    try {
      await pinProcess(member, cpus, taskset);
      pinned++;
    } catch { /* exited meanwhile */ }
  }
  return pinned;
}
