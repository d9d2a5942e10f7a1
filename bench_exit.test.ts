/**
 * Nothing lost and nothing left behind, tried as a user would: one Ctrl-C in
 * a terminal through `deno task`, an output folder that cannot be written, a
 * write that fails at the end, and a bench killed outright.  Each bench runs
 * with its own `TMPDIR`, so whatever it leaves there is its own.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { ResultsDocument } from "./lib/results/mod.ts";
import { redisService } from "./drivers/redis/mod.ts";
import {
  namespacesUnavailable,
  staleNamespaces,
} from "./lib/services/netns.ts";
import {
  Output,
  processesUsing,
  runDeno,
  serversMissing,
  spawnDeno,
  survivors,
} from "./lib/testing/mod.ts";
import { toolMissing } from "./lib/testing/tools.ts";
import { selfIdentity } from "./lib/system/leftovers.ts";
import { sleep } from "./lib/system/sleep.ts";

const ROOT = new URL(".", import.meta.url).pathname;
const BENCH = join(ROOT, "bench.ts");

async function entries(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

/** Kills what a failed test may have left working in `base`, removes it. */
async function cleanUp(base: string): Promise<void> {
  for (const pid of processesUsing(base)) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch { /* gone */ }
  }
  await Deno.remove(base, { recursive: true });
}

/** Everything one test's benches use: a TMPDIR and an output folder. */
async function scratch(): Promise<{ tmp: string; out: string; base: string }> {
  const base = await Deno.makeTempDir({ prefix: "bench-exit-test-" });
  const tmp = join(base, "tmp");
  await Deno.mkdir(tmp);
  return { base, tmp, out: join(base, "out") };
}

function benchArgs(out: string, ...args: string[]): string[] {
  return [
    "--out",
    out,
    "--parallel",
    "1",
    "--no-baseline",
    "--no-calibrate",
    ...args,
  ];
}

/** A bench's environment: its own `TMPDIR`, and no sizes from the caller's. */
function benchEnv(tmp: string): Record<string, string> {
  return { TMPDIR: tmp, TOTAL: "", RECIPIENTS: "" };
}

function runBench(tmp: string, args: string[]) {
  return runDeno(["run", "-A", "--unstable-kv", BENCH, ...args], {
    env: benchEnv(tmp),
  });
}

/** Starts a bench and returns it running; its stdout piped unless "null". */
function spawnBench(
  tmp: string,
  args: string[],
  stdout: "piped" | "null" = "piped",
): Deno.ChildProcess {
  return spawnDeno(["run", "-A", "--unstable-kv", BENCH, ...args], {
    env: benchEnv(tmp),
    stdout,
  });
}

Deno.test({
  name:
    "one Ctrl-C in a terminal through deno task: a graceful stop, the finished configuration kept, nothing left",
  ignore: toolMissing(
    "script",
    "skipping the test of one Ctrl-C in a terminal",
    "apt-get install bsdextrautils (Debian 13; bsdutils holds it on 12)",
  ) || serversMissing(redisService) != null,
  sanitizeResources: false,
  async fn() {
    const { base, tmp, out } = await scratch();
    // As root, redis's worker runs on a host of its own: its namespace and
    // link must go too.
    const hosts = namespacesUnavailable() == null
      ? ["--worker-hosts", "1"]
      : [];
    // Only a bench that has exited leaves stale ones; other test files'
    // benches may hold namespaces of their own meanwhile.
    const staleBefore = await staleNamespaces();
    try {
      const command = [Deno.execPath(), "task", "bench"].concat(
        benchArgs(out, "--drivers", "in-process,redis", "--total", "100"),
        // A seed whose order runs in-process first, then redis.
        ["--recipients", "30", "--order-seed", "1", ...hosts],
      ).map((a) => `'${a}'`).join(" ");
      // `script` gives the bench a terminal; ^C written to it makes the
      // terminal send SIGINT to the whole foreground process group, and
      // `deno task` (and `npx`) pass it on once more.  Two copies that
      // arrive together may merge into one, so the test sends the second
      // a little later, as a slow wrapper would.
      const child = new Deno.Command("script", {
        args: ["-qec", command, "/dev/null"],
        cwd: ROOT,
        env: { NO_COLOR: "1", ...benchEnv(tmp) },
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const terminal = new Output(child.stdout);
      const errors = new Output(child.stderr);
      await terminal.waitFor(/\[in-process\] ok/);
      await terminal.waitFor(/\[redis[^\]]*\] \d+\/3000 delivered/);
      const writer = child.stdin.getWriter();
      await writer.write(new Uint8Array([3]));
      await sleep(300);
      // A bench that already stopped has closed the terminal: nothing to do.
      await writer.write(new Uint8Array([3])).catch((error) => {
        if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
      });
      const status = await child.status;
      await writer.close().catch(() => {});
      await Promise.all([terminal.done, errors.done]);
      const text = terminal.text + errors.text;
      assert.equal(status.code, 130, text);
      assert.match(text, /interrupted: stopping processes and servers/);
      assert.doesNotMatch(text, /forced exit/);
      const document: ResultsDocument = JSON.parse(
        await Deno.readTextFile(join(out, "latest.json")),
      );
      const [inProcess, redis] = document.results;
      assert.equal(inProcess.status, "ok", "the finished one is kept");
      assert.equal(inProcess.delivered, 3000);
      assert.equal(redis.status, "incomplete");
      assert.equal(redis.reason, "interrupted");
      assert.ok(redis.processes.some((p) => p.role === "server"));
      const pids = document.results.flatMap((r) =>
        r.processes.map((p) => p.pid)
      );
      assert.deepEqual(await survivors(pids), [], "every process is gone");
      assert.deepEqual(processesUsing(tmp), [], "no server is left");
      assert.deepEqual(await entries(tmp), [], "no temporary folder is left");
      if (hosts.length > 0) {
        assert.ok(
          redis.processes.some((p) => p.role === "worker" && p.network != null),
          "redis's worker ran on a host of its own",
        );
      }
      assert.deepEqual(
        await staleNamespaces(),
        staleBefore,
        "no namespace or link is left",
      );
    } finally {
      await cleanUp(base);
    }
  },
});

Deno.test("an output folder that cannot be written: exit 2 naming it and the cause, nothing run", async () => {
  const { base, tmp } = await scratch();
  try {
    const file = join(base, "a-file");
    await Deno.writeTextFile(file, "");
    const cases: [string, RegExp][] = [
      ["/proc/nope", /cannot write results to \/proc\/nope: .*mkdir/],
      [join(file, "out"), /cannot write results to .*a-file\/out: /],
    ];
    for (const [out, message] of cases) {
      const result = await runBench(
        tmp,
        benchArgs(out, "--drivers", "in-process", "--total", "2")
          .concat("--recipients", "2"),
      );
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
      assert.match(result.stderr, /--out/, "the message names the fix");
      assert.doesNotMatch(result.stderr, /\[in-process\]/, "nothing ran");
      assert.deepEqual(await entries(tmp), []);
    }
  } finally {
    await cleanUp(base);
  }
});

Deno.test({
  name:
    "a write that fails at the end puts the results into a fallback file, keeps the previous latest.json whole, and exits 1",
  sanitizeResources: false,
  async fn() {
    const { base, tmp, out } = await scratch();
    try {
      const child = spawnBench(tmp, [
        ...benchArgs(out, "--drivers", "in-process", "--total", "20"),
        "--recipients",
        "20",
      ]);
      const stdout = new Output(child.stdout);
      const stderr = new Output(child.stderr);
      // The folder passed the start check; now writing latest.json fails
      // (its temporary file's name is taken by a folder), as on a full disk.
      await stderr.waitFor(/\[in-process\] \d+\/400 delivered/);
      const previous = '{"previous": true}\n';
      await Deno.writeTextFile(join(out, "latest.json"), previous);
      const blocker = join(out, `latest.json.tmp-${child.pid}`);
      await Deno.mkdir(blocker);
      await Deno.writeTextFile(join(blocker, "keep"), "");
      const status = await child.status;
      await Promise.all([stdout.done, stderr.done]);
      assert.equal(status.code, 1, stderr.text);
      const match = /the results are in (\S+) instead/.exec(stderr.text);
      assert.ok(match, stderr.text);
      assert.match(stderr.text, /cannot write results to /);
      assert.ok(match[1].startsWith(tmp + "/"), "in the temporary folder");
      const document: ResultsDocument = JSON.parse(
        await Deno.readTextFile(match[1]),
      );
      assert.equal(document.results[0].status, "ok");
      assert.equal(document.results[0].delivered, 400);
      assert.ok(document.finishedAt);
      assert.equal(
        await Deno.readTextFile(join(out, "latest.json")),
        previous,
        "the previous latest.json is whole",
      );
    } finally {
      await cleanUp(base);
    }
  },
});

Deno.test({
  name:
    "a bench killed outright leaves folders and a server that the next bench removes, saying so",
  ignore: serversMissing(redisService) != null,
  sanitizeResources: false,
  async fn() {
    const { base, tmp, out } = await scratch();
    try {
      const child = spawnBench(tmp, [
        ...benchArgs(out, "--drivers", "redis", "--total", "100"),
        "--recipients",
        "30",
      ], "null");
      const stderr = new Output(child.stderr);
      await stderr.waitFor(/\[redis\] \d+\/3000 delivered/);
      child.kill("SIGKILL");
      await child.status;
      await stderr.done;
      const left = await entries(tmp);
      assert.equal(left.length, 2, `a run folder and a redis folder: ${left}`);
      assert.notDeepEqual(processesUsing(tmp), [], "redis-server lives");
      // A folder of a bench that still runs (this process), and one whose
      // name does not say its owner, stay.
      const { pid, startTime } = selfIdentity();
      const alive = `fqb-run-${pid}-${startTime}-abc123`;
      await Deno.mkdir(join(tmp, alive));
      await Deno.mkdir(join(tmp, "fqb-run-unknownowner"));

      const next = await runBench(
        tmp,
        benchArgs(
          out,
          "--drivers",
          "none",
          "--total",
          "1",
          "--recipients",
          "1",
        ),
      );
      assert.equal(next.code, 0, next.stderr);
      assert.match(
        next.stderr,
        /removed 2 temporary folders left by a bench that no longer runs: /,
      );
      assert.deepEqual(await survivors(processesUsing(tmp)), []);
      assert.deepEqual(await entries(tmp), [alive, "fqb-run-unknownowner"]);
    } finally {
      await cleanUp(base);
    }
  },
});
