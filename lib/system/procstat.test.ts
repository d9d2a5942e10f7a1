import assert from "node:assert/strict";
import {
  parseStat,
  sampleActivity,
  sampleTree,
  switchesBetween,
} from "./procstat.ts";

Deno.test("parseStat: ppid, own CPU and reaped children's CPU", () => {
  // Fields 14–17 (utime, stime, cutime, cstime) are 250 75 30 12 ticks; the
  // command name holds spaces and parentheses.  Field 5 (pgid) is 1234,
  // field 7 (tty) 0 and field 22 (start time) 100.
  const line = "1234 (postgres: (autovacuum) x) S 1 1234 1234 0 -1 4194560 " +
    "1000 0 0 0 250 75 30 12 20 0 5 0 100 123456789 2000 18446744073709551615" +
    "\n";
  assert.deepEqual(parseStat(line), {
    command: "postgres: (autovacuum) x",
    state: "S",
    ppid: 1,
    pgid: 1234,
    ttyNr: 0,
    startTime: "100",
    cpuSeconds: 3.25,
    reapedChildrenCpuSeconds: 0.42,
  });
  assert.throws(() => parseStat("1234 (cut) S 1 2 3"), TypeError);
  assert.throws(() => parseStat(""), TypeError);
});

Deno.test({
  name: "sampleTree: a child that ends between two samples is counted",
  ignore: Deno.build.os !== "linux",
  async fn() {
    // The shell waits for "go", runs a CPU-bound subshell (a fork it then
    // waits for), says "reaped", and idles as `sleep`.
    const child = new Deno.Command("sh", {
      args: [
        "-c",
        "read go; (i=0; while [ $i -lt 200000 ]; do i=$((i + 1)); done); " +
        "echo reaped; exec sleep 30",
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    try {
      const start = sampleTree(child.pid);
      assert.ok(start != null);
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode("go\n"));
      await writer.close();
      const decoded = child.stdout.pipeThrough(new TextDecoderStream());
      const reader = decoded.getReader();
      let output = "";
      while (!output.includes("reaped")) {
        const { value, done } = await reader.read();
        if (done) break;
        output += value;
      }
      assert.match(output, /reaped/);
      const end = sampleTree(child.pid);
      assert.ok(end != null);
      assert.ok(
        end.cpuSeconds - start.cpuSeconds >= 0.05,
        `the subshell's CPU counts: ${start.cpuSeconds} → ${end.cpuSeconds}`,
      );
      await reader.cancel();
    } finally {
      child.kill("SIGKILL");
      await child.status;
    }
  },
});

Deno.test("switchesBetween counts each live thread's switches, never below 0", () => {
  assert.equal(
    switchesBetween({ "1/1": 10, "1/2": 5, "1/3": 7 }, {
      "1/1": 14, // +4
      "1/4": 3, // born in between: +3
      // 1/2 and 1/3 ended in between: not counted
    }),
    7,
  );
  assert.equal(switchesBetween(null, { "1/1": 1 }), null);
});

Deno.test("sampleActivity reads this process: CPU, RSS, its threads' switches", () => {
  const sample = sampleActivity(Deno.pid, false);
  assert.ok(sample != null);
  assert.ok(sample.rssBytes > 1_000_000);
  assert.ok(sample.threadSwitches != null);
  assert.ok(`${Deno.pid}/${Deno.pid}` in sample.threadSwitches);
  assert.equal(sampleActivity(2 ** 22 + 7, false), null);
});
