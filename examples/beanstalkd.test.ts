/**
 * The example beanstalkd driver, through the bench's public API only: its
 * queue and server on their own, then whole benchmark runs (programmatic
 * and from the command line) with exact accounting and no process left
 * behind.  Skipped when beanstalkd is neither installed nor given by
 * `BEANSTALKD_URL`.
 */
import assert from "node:assert/strict";
import { freePort, type ResultsDocument, runBenchmark, sleep } from "../mod.ts";
import beanstalkdDriver, {
  beanstalkdService,
  probeBeanstalkd,
} from "./beanstalkd.ts";
import { BeanstalkdMessageQueue } from "./beanstalkd_queue.ts";

/** Whether an executable is on `PATH`. */
function onPath(name: string): boolean {
  return (Deno.env.get("PATH") ?? "").split(":").some((folder) => {
    try {
      return Deno.statSync(`${folder}/${name}`).isFile;
    } catch {
      return false;
    }
  });
}

const installed = onPath("beanstalkd");
const available = installed || Deno.env.get("BEANSTALKD_URL") != null;
const skipped = available ? "" : " (skipped: beanstalkd not installed)";

/** Whether a process exists and is not a zombie. */
function isAlive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const state = stat[stat.lastIndexOf(")") + 2];
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** Waits up to 5 s for every pid to be gone; returns those still alive. */
async function survivors(pids: readonly number[]): Promise<number[]> {
  const deadline = Date.now() + 5000;
  let alive = pids.filter(isAlive);
  while (alive.length > 0 && Date.now() < deadline) {
    await sleep(100);
    alive = alive.filter(isAlive);
  }
  return alive;
}

/** Asserts that every run was `ok` and delivered each message exactly once. */
function assertExact(document: ResultsDocument, recipients: number): number[] {
  assert.deepEqual(
    document.results.map((r) => r.id),
    ["beanstalkd", "beanstalkd-x2"],
  );
  for (const r of document.results) {
    assert.equal(r.status, "ok", `${r.id}: ${r.reason}`);
    assert.equal(r.expected, 4 * recipients, r.id);
    assert.equal(r.delivered, r.expected, r.id);
    assert.equal(r.duplicates, 0, r.id);
    assert.equal(r.missing, 0, r.id);
    // The sender, a separate worker (the queue is shared across processes),
    // the fake inbox, and the throwaway server unless BEANSTALKD_URL is set.
    const roles = r.processes.map((p) => p.role).sort();
    const server = r.server?.startedByBench ? ["server"] : [];
    assert.deepEqual(roles, ["inbox", "sender", ...server, "worker"].sort());
  }
  return document.results.flatMap((r) => r.processes.map((p) => p.pid));
}

Deno.test({
  name: `beanstalkd example: queue and throwaway server${
    installed ? "" : " (skipped: beanstalkd not installed)"
  }`,
  ignore: !installed,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "fqb-beanstalkd-test-" });
    const server = await beanstalkdService.start({ dir, port: freePort() });
    const queue = new BeanstalkdMessageQueue({
      url: server.url,
      tube: "example.test",
      retryDelaySeconds: 0,
    });
    try {
      const { version } = await probeBeanstalkd(server.url, 10_000);
      assert.match(version, /^\d+\.\d+/);

      await queue.enqueue({ n: 1 });
      await queue.enqueueMany([{ n: 2 }, { n: 3, fail: true }, { n: 4 }]);
      await queue.enqueue({ n: 5 }, {
        delay: Temporal.Duration.from({ milliseconds: 300 }),
      });
      assert.deepEqual(await queue.getDepth(), {
        queued: 5,
        ready: 4,
        delayed: 1,
      });

      // A handler that throws gets its job back (after retryDelaySeconds);
      // the delayed job comes after its delay, rounded up to 1 s.
      const seen: number[] = [];
      const controller = new AbortController();
      const started = Date.now();
      let failed = false;
      const listening = queue.listen((message) => {
        const { n, fail } = message as { n: number; fail?: boolean };
        if (fail && !failed) {
          failed = true;
          throw new Error("first attempt fails");
        }
        seen.push(n);
        if (seen.length === 5) controller.abort();
      }, { signal: controller.signal });
      await listening;
      assert.deepEqual(seen.toSorted(), [1, 2, 3, 4, 5]);
      assert.ok(failed);
      assert.ok(Date.now() - started >= 800, "the delay was honoured");
      assert.equal((await queue.getDepth()).queued, 0);

      // Aborting stops a listener that is waiting for a job at once, not
      // at the end of its reserve (20 s here, so that a busy machine's
      // slowness cannot pass for it).
      const patient = new BeanstalkdMessageQueue({
        url: server.url,
        tube: "example.test",
        reserveTimeoutSeconds: 20,
      });
      const idle = new AbortController();
      const waiting = patient.listen(() => {}, { signal: idle.signal });
      await sleep(100);
      const stopping = Date.now();
      idle.abort();
      await waiting;
      const stopMs = Date.now() - stopping;
      await patient.close();
      assert.ok(stopMs < 10_000, `listen() took ${stopMs} ms to stop`);

      // Jobs survive a crash of the server, through its binlog.
      await queue.enqueueMany([{ n: 6 }, { n: 7 }]);
      const pid = server.pid;
      await server.kill!();
      assert.ok(!isAlive(pid));
      await server.restart!();
      assert.notEqual(server.pid, pid);
      assert.equal((await queue.getDepth()).queued, 2);
      assert.equal(await queue.drain(), 2);
      assert.equal((await queue.getDepth()).queued, 0);
    } finally {
      await queue.close();
      await server.stop();
      await server.stop(); // Idempotent.
      await Deno.remove(dir, { recursive: true });
    }
    assert.deepEqual(await survivors([server.pid]), []);
    await assert.rejects(
      () => probeBeanstalkd(server.url, 1000),
      /cannot reach beanstalkd at beanstalk:\/\/127\.0\.0\.1:\d+ \(/,
    );
  },
});

Deno.test({
  name: `beanstalkd example: runBenchmark delivers exactly once, with and ` +
    `without fanout${skipped}`,
  ignore: !available,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const pids: number[] = [];
    // Fedify fans out (one message per activity, expanded by a worker) from
    // 5 inboxes on; below that, the sender enqueues one message per inbox.
    for (const recipients of [6, 3]) {
      await t.step(`${recipients} recipients`, async () => {
        const document = await runBenchmark({
          drivers: [beanstalkdDriver],
          total: 4,
          recipients,
          parallel: [1, 2],
          timeoutSeconds: 120,
          stallTimeoutSeconds: 30,
          // The deliveries are the point, not the figures: no seconds spent
          // measuring the machine's speed before each row.
          calibrate: false,
        });
        pids.push(...assertExact(document, recipients));
      });
    }
    assert.deepEqual(await survivors(pids), [], "no process outlives a run");
  },
});

Deno.test({
  name: `beanstalkd example: the CLI runs it as --driver-module${skipped}`,
  ignore: !available,
  async fn() {
    const root = new URL("../", import.meta.url).pathname;
    const out = await Deno.makeTempDir({ prefix: "fqb-beanstalkd-cli-" });
    try {
      const { code, stderr } = await new Deno.Command(Deno.execPath(), {
        args: [
          ...["run", "-A", "bench.ts"],
          ...["--driver-module", "./examples/beanstalkd.ts"],
          ...["--drivers", "beanstalkd", "--total", "3", "--recipients", "6"],
          ...["--parallel", "1", "--no-baseline", "--no-calibrate"],
          ...["--out", out],
        ],
        cwd: root,
        env: { NO_COLOR: "1" },
        stdout: "null",
        stderr: "piped",
      }).output();
      assert.equal(code, 0, new TextDecoder().decode(stderr));
      const document: ResultsDocument = JSON.parse(
        await Deno.readTextFile(`${out}/latest.json`),
      );
      assert.deepEqual(
        document.results.map((r) => [r.id, r.status, r.delivered]),
        [["beanstalkd", "ok", 18]],
      );
    } finally {
      await Deno.remove(out, { recursive: true });
    }
  },
});
