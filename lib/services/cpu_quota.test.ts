import assert from "node:assert/strict";
import { join } from "node:path";
import { missingBecause } from "../testing/tools.ts";
import { leftovers } from "../system/leftovers.ts";
import { readStat } from "../system/procstat.ts";
import { sleep } from "../system/sleep.ts";
import { DENO_LAUNCHER, type Launcher } from "../system/process.ts";
import { pinnedLauncher } from "./cpu_pinning.ts";
import {
  benchCpuGroups,
  CPU_QUOTA_PROBE,
  type CpuHierarchy,
  CpuQuotaGroups,
  cpuQuotaLauncher,
  type CpuQuotaProbe,
  cpuQuotaUnavailable,
  findCpuHierarchy,
  sweepStaleCpuGroups,
} from "./cpu_quota.ts";

const canMake = !missingBecause(
  "the CPU quota tests",
  cpuQuotaUnavailable(),
);

/** A launcher running `sh -c SCRIPT` (the script is the launcher's script). */
const SHELL: Launcher = {
  command: "/bin/sh",
  args: (script: string, _spec: string) => ["-c", script],
};

/** Starts `script` in `/bin/sh` through `launcher`. */
function start(launcher: Launcher, script: string): Deno.ChildProcess {
  return new Deno.Command(launcher.command, {
    args: launcher.args(script, ""),
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
}

/** The cpu cgroup of a process, from `/proc/PID/cgroup` (v1 or v2). */
function cgroupOf(pid: number): string {
  const lines = Deno.readTextFileSync(`/proc/${pid}/cgroup`).split("\n");
  const v1 = lines.find((line) => /^\d+:([^:]*,)?cpu(,[^:]*)?:/.test(line));
  const line = v1 ?? lines.find((l) => l.startsWith("0::"))!;
  return line.slice(line.indexOf(":", line.indexOf(":") + 1) + 1);
}

/** Waits until `check` holds, for up to 5 s. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (check()) return;
    await sleep(50);
  }
  assert.fail(`timed out waiting until ${what}`);
}

Deno.test("the cpu controller is found in cgroup v1 and v2 mount tables", () => {
  const hybrid = [
    "tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0",
    "cgroup /sys/fs/cgroup/cpuset cgroup rw,relatime,cpuset 0 0",
    "cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,relatime,cpu,cpuacct 0 0",
    "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0",
  ].join("\n");
  assert.deepEqual(findCpuHierarchy(hybrid, () => "hugetlb\n"), {
    version: "v1",
    root: "/sys/fs/cgroup/cpu,cpuacct",
    readOnly: false,
  });
  const unified = "cgroup2 /sys/fs/cgroup cgroup2 ro,nosuid 0 0\n";
  assert.deepEqual(findCpuHierarchy(unified, () => "cpuset cpu io\n"), {
    version: "v2",
    root: "/sys/fs/cgroup",
    readOnly: true,
  });
  assert.equal(findCpuHierarchy(unified, () => "cpuset io\n"), null);
  assert.equal(findCpuHierarchy(hybrid.split("\n")[1], () => null), null);
});

Deno.test("without root or a writable controller, quotas are unavailable and say the fix", async () => {
  const v1: CpuHierarchy = { version: "v1", root: "/c", readOnly: false };
  const probe = (
    uid: number,
    hierarchy: CpuHierarchy | null,
  ): CpuQuotaProbe => ({
    uid: () => uid,
    hierarchy: () => hierarchy,
    cores: () => 2,
  });
  assert.match(
    cpuQuotaUnavailable(probe(1000, v1))!,
    /^a CPU quota per worker needs root: the bench runs as uid 1000; run it as root \(sudo\)/,
  );
  assert.match(
    cpuQuotaUnavailable(probe(0, null))!,
    /needs the cgroup cpu controller.*mount -t cgroup -o cpu/,
  );
  assert.match(
    cpuQuotaUnavailable(probe(0, { ...v1, readOnly: true }))!,
    /\/c is mounted read-only.*privileged container/,
  );
  await assert.rejects(
    () => CpuQuotaGroups.create(1, 0.25, probe(1000, v1)),
    /needs root/,
  );
  assert.deepEqual(await sweepStaleCpuGroups(probe(1000, v1)), []);
});

Deno.test("invalid cpus throw a RangeError naming the fix", async () => {
  const probe: CpuQuotaProbe = { ...CPU_QUOTA_PROBE, cores: () => 2 };
  for (const cpus of [0, -1, 2.5, NaN, Infinity]) {
    await assert.rejects(
      () => CpuQuotaGroups.create(1, cpus, probe),
      (error: Error) => {
        assert.ok(error instanceof RangeError);
        assert.match(
          error.message,
          /cores: give a number above 0 and at most 2, this machine's cores \(e\.g\. 0\.25/,
        );
        return true;
      },
    );
  }
  await assert.rejects(
    () => CpuQuotaGroups.create(1, 0.001, probe),
    /under the kernel's least, 0\.01 cores: give at least that/,
  );
  await assert.rejects(() => CpuQuotaGroups.create(0, 0.25), /give 1 or more/);
});

Deno.test("the quota launcher wraps others and keeps the program's argv", () => {
  const launcher = pinnedLauncher(
    cpuQuotaLauncher(DENO_LAUNCHER, "/c/fqb-cpu-1-2-abc'd/cgroup.procs"),
    [0],
    "/usr/bin/taskset",
  );
  const args = launcher.args("/s.ts", "{}");
  assert.deepEqual(args.slice(0, 6), [
    "-c",
    "0",
    "/bin/sh",
    "-c",
    `echo $$ > '/c/fqb-cpu-1-2-abc'\\''d/cgroup.procs' && exec "$0" "$@"`,
    Deno.execPath(),
  ]);
  assert.deepEqual(args.slice(-2), ["/s.ts", "{}"]);
});

Deno.test({
  name:
    "a launched process runs in its group under the quota, and close removes the groups",
  ignore: !canMake,
  async fn() {
    const groups = await CpuQuotaGroups.create(2, 0.25);
    const record = groups.record();
    const children: Deno.ChildProcess[] = [];
    try {
      assert.equal(groups.groups.length, 2);
      assert.match(groups.groups[1], /\/fqb-cpu-\d+-\d+-[0-9a-f]{6}g1$/);
      assert.deepEqual(
        { ...record, cgroup: undefined },
        {
          cpus: 0.25,
          quotaMicros: 25000,
          periodMicros: 100000,
          cgroup: undefined,
        },
      );
      const group = groups.groups[1];
      const limit = record.cgroup === "v1"
        ? Deno.readTextFileSync(join(group, "cpu.cfs_quota_us")).trim() + " " +
          Deno.readTextFileSync(join(group, "cpu.cfs_period_us")).trim()
        : Deno.readTextFileSync(join(group, "cpu.max")).trim();
      assert.equal(limit, "25000 100000");

      // The process the bench spawns is the program itself (the wrapper
      // execs it), in group 1 (index 3 modulo 2 groups).
      const busy = start(groups.launcher(SHELL, 3), "while :; do :; done");
      children.push(busy);
      await until(
        () =>
          Deno.readTextFileSync(`/proc/${busy.pid}/cmdline`) ===
            "/bin/sh\0-c\0while :; do :; done\0",
        "the wrapper has exec'd the busy loop",
      );
      assert.equal(cgroupOf(busy.pid), group.slice(group.lastIndexOf("/")));

      // A busy loop under 0.25 cores gets about a quarter of one.
      const before = readStat(busy.pid)!.cpuSeconds;
      const t0 = performance.now();
      await sleep(2000);
      const used = readStat(busy.pid)!.cpuSeconds - before;
      const cores = used / ((performance.now() - t0) / 1000);
      console.log(`busy loop under 0.25 cores: ${cores.toFixed(3)} cores`);
      assert.ok(cores < 0.5 && cores > 0.1, `${cores} cores`);

      // A process still in a group at close is moved out, not left behind.
      await groups.close();
      assert.equal(cgroupOf(busy.pid), "/");
    } finally {
      for (const child of children) {
        child.kill("SIGKILL");
        await child.status;
        await child.stderr.cancel();
      }
      await groups.close();
    }
    for (const group of groups.groups) {
      assert.ok(!benchCpuGroups().includes(group), group);
    }
  },
});

Deno.test({
  name: "a forced exit removes the groups, and a failed write starts nothing",
  ignore: !canMake,
  async fn() {
    const groups = await CpuQuotaGroups.create(1, 0.5);
    assert.ok(benchCpuGroups().includes(groups.groups[0]));
    leftovers.forceCleanup();
    assert.ok(!benchCpuGroups().includes(groups.groups[0]));
    await groups.close();
    // The group is gone: the wrapper fails instead of running unlimited.
    const child = start(groups.launcher(SHELL, 0), "echo ran >&2");
    const status = await child.status;
    const stderr = new TextDecoder().decode(
      await new Response(child.stderr).arrayBuffer(),
    );
    assert.ok(!status.success);
    assert.doesNotMatch(stderr, /ran/);
  },
});

Deno.test({
  name: "sweepStaleCpuGroups removes a killed bench's groups only",
  ignore: !canMake,
  async fn() {
    const module = new URL("./cpu_quota.ts", import.meta.url).href;
    // A bench that makes two groups, starts a process in one, and is
    // killed outright.
    const bench = new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        `import { CpuQuotaGroups } from ${JSON.stringify(module)};
         const g = await CpuQuotaGroups.create(2, 0.25);
         const l = g.launcher({ command: "sleep", args: () => ["60"] }, 0);
         const c = new Deno.Command(l.command, { args: l.args("", "") })
           .spawn();
         console.log(JSON.stringify({ groups: g.groups, pid: c.pid }));
         await new Promise(() => {});`,
      ],
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const reader = bench.stdout.pipeThrough(new TextDecoderStream())
      .getReader();
    const first = await Promise.race([
      reader.read(),
      sleep(30_000).then(() => ({ value: undefined })),
    ]);
    bench.kill("SIGKILL");
    await bench.status;
    await reader.cancel();
    assert.ok(first.value != null, "the bench said nothing in 30 s");
    const { groups, pid } = JSON.parse(first.value) as {
      groups: string[];
      pid: number;
    };
    const live = await CpuQuotaGroups.create(1, 0.25);
    try {
      await until(
        () => cgroupOf(pid) === groups[0].slice(groups[0].lastIndexOf("/")),
        "the killed bench's child is in its group",
      );
      assert.deepEqual(
        benchCpuGroups().filter((g) => groups.includes(g)).sort(),
        [...groups].sort(),
      );
      const removed = await sweepStaleCpuGroups();
      assert.deepEqual(
        removed.filter((g) => groups.includes(g)).sort(),
        [
          ...groups,
        ].sort(),
      );
      assert.deepEqual(benchCpuGroups().filter((g) => groups.includes(g)), []);
      assert.equal(cgroupOf(pid), "/");
      // This bench's, which still runs, stays.
      assert.ok(!removed.includes(live.groups[0]));
      assert.ok(benchCpuGroups().includes(live.groups[0]));
    } finally {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch { /* gone */ }
      await live.close();
    }
  },
});
