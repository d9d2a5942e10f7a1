/**
 * `--cpus`: CPU lists, the split between the app and the rest, a process
 * started through the pinned launcher that reports where it may run, and a
 * running process tree pinned whole.
 */
import assert from "node:assert/strict";
import { DENO_LAUNCHER } from "../system/process.ts";
import { processTree } from "../system/procstat.ts";
import {
  allowedCpus,
  formatCpuList,
  parseCpuList,
  pinnedLauncher,
  pinProcessTree,
  splitCpus,
} from "./cpu_pinning.ts";

Deno.test("CPU lists read and write as taskset and /proc write them", () => {
  assert.deepEqual(parseCpuList("0-2,4"), [0, 1, 2, 4]);
  assert.deepEqual(parseCpuList(" 3,1,1 "), [1, 3]);
  assert.equal(formatCpuList([4, 0, 1, 2]), "0-2,4");
  assert.equal(formatCpuList([1]), "1");
  assert.equal(formatCpuList([]), "");
  assert.throws(() => parseCpuList("2-1"), /not a CPU list/);
  assert.throws(() => parseCpuList("a"), /not a CPU list/);
  assert.ok(allowedCpus().length >= 1);
});

Deno.test("--cpus N gives the app the first N CPUs and the rest to the others; too many names the fix", () => {
  assert.deepEqual(splitCpus([0, 1], 1), { app: [0], rest: [1] });
  assert.deepEqual(splitCpus([0, 1], 2), { app: [0, 1], rest: [] });
  assert.deepEqual(splitCpus([2, 3, 5], 2), { app: [2, 3], rest: [5] });
  assert.throws(
    () => splitCpus([0, 1], 3),
    /--cpus 3: the bench may use 2 CPUs \(0-1\); give --cpus from 1 to 2/,
  );
  assert.throws(() => splitCpus([0, 1], 0), /give --cpus from 1 to 2/);
});

Deno.test("a process started through the pinned launcher may run on its CPUs only", async () => {
  const cpu = allowedCpus().at(-1)!;
  const dir = await Deno.makeTempDir();
  try {
    const script = `${dir}/affinity.ts`;
    await Deno.writeTextFile(
      script,
      "const status = Deno.readTextFileSync('/proc/self/status');\n" +
        "console.log(/^Cpus_allowed_list:\\s*(.+)$/m.exec(status)![1]);\n",
    );
    const launcher = pinnedLauncher(
      { ...DENO_LAUNCHER, command: DENO_LAUNCHER.command, extra: "kept" },
      [cpu],
    );
    assert.equal(launcher.extra, "kept");
    assert.match(launcher.command, /taskset$/);
    const output = await new Deno.Command(launcher.command, {
      args: launcher.args(script, "{}"),
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(output.success, new TextDecoder().decode(output.stderr));
    assert.equal(new TextDecoder().decode(output.stdout).trim(), `${cpu}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("pinning a running process pins its children too, every thread", async () => {
  const cpu = allowedCpus()[0];
  const shell = new Deno.Command("sh", {
    args: ["-c", "sleep 30 & wait"],
    stdout: "null",
    stderr: "null",
  }).spawn();
  let child: number | undefined;
  try {
    // Until the shell has forked its sleep.
    for (let i = 0; i < 100 && child == null; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      child = processTree(shell.pid)[1];
    }
    assert.ok(child != null, "the shell started its child");
    assert.equal(await pinProcessTree(shell.pid, [cpu]), 2);
    assert.deepEqual(allowedCpus(shell.pid), [cpu]);
    assert.deepEqual(allowedCpus(child), [cpu]);
  } finally {
    if (child != null) {
      try {
        Deno.kill(child, "SIGKILL");
      } catch { /* gone */ }
    }
    shell.kill("SIGKILL");
    await shell.status;
  }
});
