/**
 * A share of a core for each of the app's workers, as Docker gives a
 * container (`deploy.resources.limits.cpus: 0.25`): one Linux cgroup per
 * worker with a CFS quota of `cpus` × the period (cgroup v1's
 * `cpu.cfs_quota_us` / `cpu.cfs_period_us`, cgroup v2's `cpu.max`), and a
 * launcher wrapper that starts a process inside one.  The wrapper is a
 * shell that writes its own id into the group's `cgroup.procs` and then
 * `exec`s the program: the process id the bench sees is the program's.
 *
 * Which cgroup version holds the cpu controller is found at run time, from
 * `/proc/mounts`: a cgroup v1 hierarchy mounted with the `cpu` option, or
 * else a cgroup v2 one whose `cgroup.controllers` lists `cpu` (where the
 * groups' parent gets `+cpu` in its `cgroup.subtree_control`).
 *
 * Group names carry the bench's process id and start time
 * (`fqb-cpu-PID-START-TAGgK`) so that a bench that was killed leaves nothing
 * another cannot find: {@link sweepStaleCpuGroups} removes them.  Every
 * group is also recorded with `leftovers`, whose forced exit removes it.
 *
 * @module
 */
import { join } from "node:path";
import type { Launcher } from "../system/process.ts";
import {
  isRunning,
  leftovers,
  ownerOf,
  selfIdentity,
} from "../system/leftovers.ts";
import { sleep } from "../system/sleep.ts";

/** The CFS period every group gets, in microseconds: Docker's. */
export const CPU_PERIOD_MICROS = 100_000;

/** The smallest quota the kernel takes, in microseconds. */
const MIN_QUOTA_MICROS = 1_000;

/** How long {@link CpuQuotaGroups.close} retries removing a group. */
const REMOVE_TRIES = 20;

/** The cgroup version that holds the cpu controller. */
export type CgroupVersion = "v1" | "v2";

/** Where groups with a CPU quota are made. */
export interface CpuHierarchy {
  /** The cgroup version. */
  readonly version: CgroupVersion;
  /** The folder of the hierarchy's root group, e.g. `/sys/fs/cgroup/cpu`. */
  readonly root: string;
  /** Whether it is mounted read-only (no group can be made then). */
  readonly readOnly: boolean;
}

/** What {@link cpuQuotaUnavailable} and the groups ask the system. */
export interface CpuQuotaProbe {
  /** The bench's user id. */
  uid(): number | null;
  /** Where the cpu controller is, or `null` where none is mounted. */
  hierarchy(): CpuHierarchy | null;
  /** The machine's cores. */
  cores(): number;
}

/**
 * The hierarchy of the cpu controller, from the text of `/proc/mounts`:
 * a cgroup v1 mount with the `cpu` option (alone or with `cpuacct`), or
 * else a cgroup2 mount for which `controllers` (its `cgroup.controllers`)
 * lists `cpu`; `null` when neither.
 */
export function findCpuHierarchy(
  mounts: string,
  controllers: (root: string) => string | null,
): CpuHierarchy | null {
  const entries = mounts.split("\n").map((line) => line.split(" "))
    .filter((fields) => fields.length >= 4)
    .map(([, root, type, options]) => ({
      root: root.replaceAll("\\040", " "),
      type,
      options: options.split(","),
    }));
  const v1 = entries.find((m) =>
    m.type === "cgroup" && m.options.includes("cpu")
  );
  if (v1 != null) {
    return {
      version: "v1",
      root: v1.root,
      readOnly: v1.options.includes("ro"),
    };
  }
  for (const m of entries.filter((m) => m.type === "cgroup2")) {
    if (controllers(m.root)?.trim().split(/\s+/).includes("cpu")) {
      return {
        version: "v2",
        root: m.root,
        readOnly: m.options.includes("ro"),
      };
    }
  }
  return null;
}

function readText(path: string): string | null {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return null;
  }
}

/** The system itself. */
export const CPU_QUOTA_PROBE: CpuQuotaProbe = {
  uid: () => Deno.uid(),
  hierarchy: () =>
    findCpuHierarchy(
      readText("/proc/mounts") ?? "",
      (root) => readText(join(root, "cgroup.controllers")),
    ),
  cores: () => navigator.hardwareConcurrency,
};

/**
 * Why groups with a CPU quota cannot be made here, or `null` when they
 * can: they need root and a writable cpu controller.
 */
export function cpuQuotaUnavailable(
  probe: CpuQuotaProbe = CPU_QUOTA_PROBE,
): string | null {
  const uid = probe.uid();
  if (uid !== 0) {
    return `a CPU quota per worker needs root: the bench runs as uid ${
      uid ?? "unknown"
    }; run it as root (sudo) or run without the quota`;
  }
  const hierarchy = probe.hierarchy();
  if (hierarchy == null) {
    return "a CPU quota per worker needs the cgroup cpu controller, which " +
      "no mount offers (neither a cgroup v1 hierarchy mounted with -o cpu " +
      "nor a cgroup2 one listing cpu in cgroup.controllers); mount it " +
      "(mount -t cgroup -o cpu cgroup /sys/fs/cgroup/cpu) or run without " +
      "the quota";
  }
  if (hierarchy.readOnly) {
    return `a CPU quota per worker needs a writable cgroup cpu controller, ` +
      `but ${hierarchy.root} is mounted read-only (a container's); run ` +
      "the bench on the host or in a privileged container, or run without " +
      "the quota";
  }
  return null;
}

/**
 * The quota in microseconds per {@link CPU_PERIOD_MICROS} for `cpus`
 * cores.
 * @throws {RangeError} When `cpus` is not above 0, or is above the
 *   machine's `cores`, or gives a quota under the kernel's 1 ms; the
 *   message names the fix.
 */
export function cpuQuotaMicros(cpus: number, cores: number): number {
  const quota = Math.round(cpus * CPU_PERIOD_MICROS);
  if (!Number.isFinite(cpus) || cpus <= 0 || cpus > cores) {
    throw new RangeError(
      `a CPU quota of ${cpus} cores: give a number above 0 and at most ` +
        `${cores}, this machine's cores (e.g. 0.25, as Docker's cpus: 0.25)`,
    );
  }
  if (quota < MIN_QUOTA_MICROS) {
    throw new RangeError(
      `a CPU quota of ${cpus} cores is under the kernel's least, ` +
        `${MIN_QUOTA_MICROS / CPU_PERIOD_MICROS} cores: give at least that`,
    );
  }
  return quota;
}

/**
 * A launcher that starts what `launcher` starts inside the cgroup whose
 * `cgroup.procs` file is `procs`: a shell writes its id there and `exec`s
 * the program, so the process id is the program's.  If the write fails,
 * the program is not started (the shell exits with an error).  Every other
 * part of `launcher` is kept, so it composes with the runtimes' launchers,
 * `pinnedLauncher` and `namespacedLauncher`.
 */
export function cpuQuotaLauncher<L extends Launcher>(
  launcher: L,
  procs: string,
): L {
  const command = launcher.command;
  const quoted = `'${procs.replaceAll("'", `'\\''`)}'`;
  return {
    ...launcher,
    command: "/bin/sh",
    args: (script: string, spec: string) => [
      "-c",
      `echo $$ > ${quoted} && exec "$0" "$@"`,
      command,
      ...launcher.args(script, spec),
    ],
  };
}

/** What a results row records of a CPU quota. */
export interface CpuQuotaRecord {
  /** The quota in cores (Docker's `cpus`), e.g. `0.25`. */
  readonly cpus: number;
  /** The quota per period, in microseconds. */
  readonly quotaMicros: number;
  /** The CFS period, in microseconds. */
  readonly periodMicros: number;
  /** The cgroup version that enforced it. */
  readonly cgroup: CgroupVersion;
}

/** The groups with a CPU quota of one run, made by {@link CpuQuotaGroups.create}. */
export class CpuQuotaGroups {
  readonly #hierarchy: CpuHierarchy;
  readonly #record: CpuQuotaRecord;
  readonly #groups: string[] = [];
  #untrack: () => void = () => {};
  #closed = false;

  private constructor(hierarchy: CpuHierarchy, record: CpuQuotaRecord) {
    this.#hierarchy = hierarchy;
    this.#record = record;
  }

  /**
   * Makes `count` cgroups, each with a quota of `cpus` cores.  On failure,
   * removes what it made.
   * @throws {RangeError} For a `count` below 1 or a `cpus` out of range
   *   (see {@link cpuQuotaMicros}).
   * @throws {Error} When groups cannot be made here (the reason names the
   *   fix) or the kernel refuses one.
   */
  static async create(
    count: number,
    cpus: number,
    probe: CpuQuotaProbe = CPU_QUOTA_PROBE,
  ): Promise<CpuQuotaGroups> {
    if (!Number.isInteger(count) || count < 1) {
      throw new RangeError(`${count} CPU quota groups: give 1 or more`);
    }
    const quotaMicros = cpuQuotaMicros(cpus, probe.cores());
    const unavailable = cpuQuotaUnavailable(probe);
    if (unavailable != null) throw new Error(unavailable);
    const hierarchy = probe.hierarchy()!;
    const groups = new CpuQuotaGroups(hierarchy, {
      cpus,
      quotaMicros,
      periodMicros: CPU_PERIOD_MICROS,
      cgroup: hierarchy.version,
    });
    groups.#untrack = leftovers.trackCleanup(() => groups.removeSync());
    try {
      if (hierarchy.version === "v2") enableCpuController(hierarchy.root);
      const { pid, startTime } = selfIdentity();
      const tag = crypto.randomUUID().slice(0, 6);
      for (let k = 0; k < count; k++) {
        const dir = join(
          hierarchy.root,
          `fqb-cpu-${pid}-${startTime}-${tag}g${k}`,
        );
        Deno.mkdirSync(dir);
        groups.#groups.push(dir);
        groups.#limit(dir);
      }
      return groups;
    } catch (error) {
      await groups.close().catch(() => {});
      throw error;
    }
  }

  /** The groups' folders, in order. */
  get groups(): readonly string[] {
    return this.#groups;
  }

  /** `launcher` inside group `index` modulo the groups: round-robin. */
  launcher<L extends Launcher>(launcher: L, index: number): L {
    const group = this.#groups[index % this.#groups.length];
    return cpuQuotaLauncher(launcher, join(group, "cgroup.procs"));
  }

  /** What a results row records of the quota. */
  record(): CpuQuotaRecord {
    return this.#record;
  }

  /**
   * Removes every group.  Processes still in one are moved to the
   * hierarchy's root group (where they run without a quota) first.
   * @throws {Error} When a group cannot be removed, naming it and the fix.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const failures: string[] = [];
    for (const group of this.#groups) {
      const error = await removeGroup(group, this.#hierarchy.root);
      if (error != null) failures.push(error);
    }
    this.#untrack();
    if (failures.length > 0) throw new Error(failures.join("; "));
  }

  /** {@link close}, synchronous and without retries: for a forced exit. */
  removeSync(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const group of this.#groups) {
      try {
        evacuate(group, this.#hierarchy.root);
        Deno.removeSync(group);
      } catch { /* the next bench sweeps it */ }
    }
  }

  #limit(dir: string): void {
    const { quotaMicros, periodMicros } = this.#record;
    if (this.#hierarchy.version === "v1") {
      Deno.writeTextFileSync(join(dir, "cpu.cfs_period_us"), `${periodMicros}`);
      Deno.writeTextFileSync(join(dir, "cpu.cfs_quota_us"), `${quotaMicros}`);
    } else {
      Deno.writeTextFileSync(
        join(dir, "cpu.max"),
        `${quotaMicros} ${periodMicros}`,
      );
    }
  }
}

/**
 * Adds `+cpu` to a cgroup v2 root's `cgroup.subtree_control`, so that its
 * children have `cpu.max`.
 * @throws {Error} When the kernel refuses, naming the fix.
 */
function enableCpuController(root: string): void {
  const control = join(root, "cgroup.subtree_control");
  if (readText(control)?.split(/\s+/).includes("cpu")) return;
  try {
    Deno.writeTextFileSync(control, "+cpu");
  } catch (error) {
    throw new Error(
      `cannot enable the cpu controller for the groups under ${root} ` +
        `(echo +cpu > ${control}: ${(error as Error).message}); run the ` +
        "bench where the cgroup2 root is its own (on the host, or with " +
        "--cgroupns=private) or run without the quota",
    );
  }
}

/** Moves every process of `group` to the root group `root`. */
function evacuate(group: string, root: string): void {
  const procs = readText(join(group, "cgroup.procs")) ?? "";
  for (const pid of procs.split("\n").filter((line) => line !== "")) {
    try {
      Deno.writeTextFileSync(join(root, "cgroup.procs"), pid);
    } catch { /* it exited meanwhile */ }
  }
}

/**
 * Removes a group, moving its processes to `root` first and retrying while
 * the kernel still counts an exiting one; the reason it failed, or `null`.
 */
async function removeGroup(
  group: string,
  root: string,
): Promise<string | null> {
  let last: unknown;
  for (let attempt = 0; attempt < REMOVE_TRIES; attempt++) {
    try {
      evacuate(group, root);
      Deno.removeSync(group);
      return null;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      last = error;
    }
    await sleep(50);
  }
  return `cannot remove the cgroup ${group}: ${(last as Error).message}; ` +
    `move its processes out (to ${join(root, "cgroup.procs")}) and ` +
    `rmdir it`;
}

/**
 * The bench's CPU quota groups that exist now (their folders), those of
 * benches still running included; empty without a cpu controller.
 */
export function benchCpuGroups(
  probe: CpuQuotaProbe = CPU_QUOTA_PROBE,
): string[] {
  const hierarchy = probe.hierarchy();
  if (hierarchy == null) return [];
  try {
    return [...Deno.readDirSync(hierarchy.root)]
      .filter((entry) => entry.isDirectory && entry.name.startsWith("fqb-cpu-"))
      .map((entry) => join(hierarchy.root, entry.name));
  } catch {
    return [];
  }
}

/**
 * Removes the CPU quota groups of benches that no longer run (killed
 * outright), moving any process still in one to the root group first;
 * those of running benches stay.  Does nothing when groups cannot be made
 * here (not root, no cpu controller).
 *
 * @returns The folders removed.
 */
export async function sweepStaleCpuGroups(
  probe: CpuQuotaProbe = CPU_QUOTA_PROBE,
): Promise<string[]> {
  if (cpuQuotaUnavailable(probe) != null) return [];
  const root = probe.hierarchy()!.root;
  const removed: string[] = [];
  for (const group of benchCpuGroups(probe)) {
    const owner = ownerOf(group.slice(group.lastIndexOf("/") + 1));
    if (owner == null || isRunning(owner)) continue;
    if (await removeGroup(group, root) == null) removed.push(group);
  }
  return removed;
}
