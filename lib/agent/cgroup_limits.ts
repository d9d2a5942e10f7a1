/**
 * The CPU and memory limits this process runs under, read from its control
 * groups (v1 or v2): what an engine such as Docker Swarm set for a replica
 * (`deploy.resources.limits`), which an agent reports with its identity.
 *
 * @module
 */

/** This process's limits; `null` where there is none or it cannot be read. */
export interface CgroupLimits {
  /** CPU limit in cores (CFS quota over period). */
  readonly cpus: number | null;
  /** Memory limit in bytes. */
  readonly memoryBytes: number | null;
}

/** Above this, a v1 memory limit means "none" (the kernel's page-rounded maximum). */
const NO_MEMORY_LIMIT = 2 ** 60;

/** Reads this process's limits. */
export async function cgroupLimits(): Promise<CgroupLimits> {
  const groups = await ownGroups();
  const v2 = await firstText(candidates("", groups.get("") ?? "/", "cpu.max"));
  if (v2 != null) {
    const [quota, period] = v2.trim().split(/\s+/);
    const memory = await firstText(
      candidates("", groups.get("") ?? "/", "memory.max"),
    );
    return {
      cpus: quota === "max" ? null : Number(quota) / Number(period),
      memoryBytes: memory == null || memory.trim() === "max"
        ? null
        : Number(memory),
    };
  }
  const cpuPath = groups.get("cpu") ?? "/";
  const quota = await firstText(candidates("cpu", cpuPath, "cpu.cfs_quota_us"));
  const period = await firstText(
    candidates("cpu", cpuPath, "cpu.cfs_period_us"),
  );
  const memory = await firstText(
    candidates("memory", groups.get("memory") ?? "/", "memory.limit_in_bytes"),
  );
  const quotaUs = Number(quota);
  const memoryBytes = Number(memory);
  return {
    cpus: quota == null || period == null || !(quotaUs > 0)
      ? null
      : quotaUs / Number(period),
    memoryBytes: memory == null || !(memoryBytes < NO_MEMORY_LIMIT)
      ? null
      : memoryBytes,
  };
}

/**
 * This process's group path by controller (`""` for v2's unified one),
 * from `/proc/self/cgroup`.
 */
async function ownGroups(): Promise<Map<string, string>> {
  const groups = new Map<string, string>();
  try {
    for (
      const line of (await Deno.readTextFile("/proc/self/cgroup")).split("\n")
    ) {
      const [, controllers, path] = line.split(":");
      if (path == null) continue;
      for (const controller of controllers.split(",")) {
        groups.set(controller, path);
      }
    }
  } catch { /* not Linux */ }
  return groups;
}

/**
 * Where a group's file may be: under its path, or at the mount's root (a
 * container sees its own group there).
 */
function candidates(controller: string, path: string, file: string): string[] {
  const mount = controller === ""
    ? "/sys/fs/cgroup"
    : `/sys/fs/cgroup/${controller}`;
  const own = `${mount}${path === "/" ? "" : path}/${file}`;
  return [own, `${mount}/${file}`];
}

async function firstText(paths: readonly string[]): Promise<string | null> {
  for (const path of paths) {
    try {
      return await Deno.readTextFile(path);
    } catch { /* try the next */ }
  }
  return null;
}
