/**
 * The command line as a user meets it: bad input, --list, a real small run,
 * and an unreachable server URL.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { ResultsDocument } from "./lib/results/mod.ts";
import {
  exists,
  runDeno,
  serversMissing,
  spawnDeno,
  survivors,
} from "./lib/testing/mod.ts";
import { assertCommitRecorded } from "./lib/testing/tools.ts";
import { redisService } from "./drivers/redis/mod.ts";

const BENCH = new URL("./bench.ts", import.meta.url).pathname;

function bench(args: string[], env: Record<string, string> = {}) {
  return runDeno(["run", "-A", "--unstable-kv", BENCH, ...args], { env });
}

Deno.test("bad input: exit 2, a message naming the problem, nothing written", async () => {
  const dir = await Deno.makeTempDir();
  const out = join(dir, "out");
  try {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [[], { TOTAL: "abc" }, /TOTAL must be a whole number, got "abc"/],
      [[], { RECIPIENTS: "0" }, /RECIPIENTS must be between 1 and/],
      [["--total", "-3"], {}, /--total/],
      [["--total", "999999999"], {}, /--total must be between 1 and/],
      [
        ["--drivers", "none,nope"],
        {},
        /unknown driver "nope"; known drivers: none, in-process/,
      ],
      [
        ["--driver-module", "./no/such/module.ts"],
        {},
        /cannot load a driver module/,
      ],
      [["--wat"], {}, /Unknown option '--wat'/],
      [
        ["--fedify-source", join(dir, "no-fedify")],
        {},
        /--fedify-source .*no-fedify: no packages\/redis\/src\/mod\.ts there; give the root of a Fedify checkout/,
      ],
      [
        [],
        { FEDIFY_SOURCE: join(dir, "no-fedify") },
        /no packages\/redis\/src\/mod\.ts there/,
      ],
    ];
    for (const [args, env, message] of cases) {
      const result = await bench(["--out", out, ...args], env);
      assert.equal(
        result.code,
        2,
        `${args} ${JSON.stringify(env)}: ${result.stderr}`,
      );
      assert.match(result.stderr, message);
      assert.equal(await exists(out), false, "nothing may be written");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a source tree whose package fails to load fails that driver's rows with the path and the error", async () => {
  const dir = await Deno.makeTempDir({ prefix: "fqb-bad-source-" });
  const out = join(dir, "out");
  try {
    // Every package is there, so the tree passes the start-up check; the
    // sqlite package's module throws when imported.
    for (const name of ["redis", "postgres", "amqp", "denokv", "sqlite"]) {
      const pkg = join(dir, "tree", "packages", name);
      await Deno.mkdir(join(pkg, "src"), { recursive: true });
      await Deno.writeTextFile(
        join(pkg, "deno.json"),
        JSON.stringify({ version: "2.3.5", imports: { "#sqlite": "./x.ts" } }),
      );
      await Deno.writeTextFile(
        join(pkg, "src", "mod.ts"),
        'throw new Error("this tree is broken");\n',
      );
    }
    const result = await bench([
      "--fedify-source",
      join(dir, "tree"),
      "--drivers",
      "none,sqlite",
      "--parallel",
      "1",
      "--total",
      "1",
      "--recipients",
      "1",
      "--no-baseline",
      "--no-calibrate",
      "--out",
      out,
    ], { FEDIFY_SOURCE: "" });
    assert.equal(result.code, 1, result.stderr);
    const document: ResultsDocument = JSON.parse(
      await Deno.readTextFile(join(out, "latest.json")),
    );
    const byId = Object.fromEntries(document.results.map((r) => [r.id, r]));
    assert.equal(byId.none.status, "ok");
    assert.equal(byId.sqlite.status, "failed");
    assert.match(
      byId.sqlite.reason ?? "",
      /packages\/sqlite\/src\/mod\.ts: this tree is broken/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a queue's own stall is a result: exit 0; a child of ours that crashes is the bench's failure: exit 1", async () => {
  const dir = await Deno.makeTempDir({ prefix: "fqb-exit-" });
  const faulty = new URL("./lib/testing/faulty_drivers.ts", import.meta.url)
    .pathname;
  const run = (driver: string, out: string) =>
    bench([
      "--driver-module",
      faulty,
      "--drivers",
      driver,
      "--parallel",
      "1",
      "--total",
      "1",
      "--recipients",
      "1",
      "--stall-timeout",
      "2",
      "--no-baseline",
      "--no-calibrate",
      "--out",
      join(dir, out),
    ]);
  try {
    const stalled = await run("test-blackhole", "stalled");
    assert.equal(stalled.code, 0, stalled.stderr);
    const document: ResultsDocument = JSON.parse(
      await Deno.readTextFile(join(dir, "stalled", "latest.json")),
    );
    assert.equal(document.results[0].status, "incomplete");
    assert.match(document.results[0].reason ?? "", /stalled/);
    const crashed = await run("test-crashing-worker", "crashed");
    assert.equal(crashed.code, 1, crashed.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--list names every driver and whether it can run here", async () => {
  const result = await bench(["--list"]);
  assert.equal(result.code, 0, result.stderr);
  for (const name of ["none", "in-process", "deno-kv", "redis", "postgres"]) {
    assert.match(result.stdout, new RegExp(`^${name} `, "m"));
  }
  assert.match(result.stdout, /available/);
  assert.match(
    result.stdout,
    /A default run \(deno task bench, no flags\) takes about \d+ minutes .* and measures none, in-process, deno-kv-single, redis, postgres at ×1 and ×4/,
  );
});

Deno.test("--help exits 0", async () => {
  const result = await bench(["--help"]);
  assert.equal(result.code, 0);
  assert.match(result.stdout, /Usage: deno task bench/);
});

Deno.test({
  name:
    "a small run writes latest.json and latest.md; a bad URL fails only its configuration, without leaking the password",
  sanitizeResources: false,
  async fn() {
    const out = await Deno.makeTempDir();
    try {
      const result = await bench(
        [
          "--drivers",
          "none,postgres,in-process",
          "--parallel",
          "1",
          "--no-baseline",
          "--no-calibrate",
          "--out",
          out,
        ],
        {
          TOTAL: "3",
          RECIPIENTS: "6",
          POSTGRES_URL: "postgres://bench:hunter2secret@127.0.0.1:1/nowhere",
        },
      );
      assert.equal(
        result.code,
        1,
        "a failed configuration makes the exit code 1",
      );
      const json = await Deno.readTextFile(join(out, "latest.json"));
      const md = await Deno.readTextFile(join(out, "latest.md"));
      const html = await Deno.readTextFile(join(out, "report.html"));
      for (const text of [result.stdout, result.stderr, json, md, html]) {
        assert.doesNotMatch(text, /hunter2secret/);
      }
      const document: ResultsDocument = JSON.parse(json);
      assert.equal(document.schemaVersion, 2);
      assert.deepEqual(document.params.total, 3);
      assert.deepEqual(document.params.recipients, 6);
      assert.ok(document.finishedAt);
      const byId = Object.fromEntries(document.results.map((r) => [r.id, r]));
      assert.deepEqual(Object.keys(byId), ["none", "postgres", "in-process"]);
      assert.equal(byId.postgres.status, "failed");
      assert.match(byId.postgres.reason!, /POSTGRES_URL.*127\.0\.0\.1:1/);
      for (const id of ["none", "in-process"]) {
        assert.equal(byId[id].status, "ok");
        assert.equal(byId[id].delivered, 18);
        assert.equal(byId[id].duplicates, 0);
        assert.equal(byId[id].missing, 0);
        for (
          const key of [
            "id",
            "driver",
            "parallelism",
            "status",
            "reason",
            "expected",
            "delivered",
            "duplicates",
            "missing",
            "sendSeconds",
            "receiveSeconds",
            "totalSeconds",
            "deliveriesPerSecond",
          ]
        ) assert.ok(key in byId[id], key);
      }
      assert.match(result.stdout, /\| none +\| ok +\|/);
      assert.match(md, /\| postgres +\| failed +\|/);
      // Where each delivery's time went: Fedify's spans and the queue seam,
      // every delivery timed once flushed, and the model's prediction.
      const queued = byId["in-process"];
      for (const stage of ["outbox", "post", "sign", "queue.wait"] as const) {
        assert.equal(queued.stages?.byStage[stage]?.count, 18, stage);
      }
      assert.equal(queued.stages?.byStage.fanout?.count, 3);
      assert.equal(queued.stages?.slots, 1);
      assert.equal(typeof queued.predictedDeliveriesPerSecond, "number");
      assert.ok(queued.limitedBy != null);
      assert.equal(byId.none.stages?.byStage.sign?.count, 18);
      assert.equal(byId.none.stages?.byStage.outbox, undefined);
      // No queue: predicted by its CPU and event-loop bounds alone.
      assert.equal(typeof byId.none.predictedDeliveriesPerSecond, "number");
      assert.equal(byId.none.prediction?.consumer, null);
      assert.match(md, /## Where a delivery's time goes/);
      // Provenance: the command line as run, this checkout's commit (or,
      // where git cannot read one, why none: also on the console).
      // FEDIFY_SOURCE, inherited where CI sets it, is recorded relative.
      const command = document.environment!.command!.filter((part) => {
        if (!part.startsWith("FEDIFY_SOURCE=")) return true;
        assert.ok(!part.slice("FEDIFY_SOURCE=".length).startsWith("/"), part);
        return false;
      });
      assert.deepEqual(command.slice(0, 2), ["TOTAL=3", "RECIPIENTS=6"]);
      assert.match(command[2], /bench\.ts$/);
      assert.deepEqual(document.environment?.command?.slice(-2), [
        "--out",
        out,
      ]);
      await assertCommitRecorded(document.environment, md);
      const { commit, noCommitReason } = document.environment!;
      if (commit === null) {
        assert.ok(
          result.stdout.includes(`commit: none recorded (${noCommitReason})`),
          result.stdout,
        );
      } else assert.doesNotMatch(result.stdout, /commit: none recorded/);
      assert.ok((document.suiteSeconds ?? 0) > 0);
      const pids = document.results.flatMap((r) =>
        r.processes.map((p) => p.pid)
      );
      assert.deepEqual(await survivors(pids), []);
    } finally {
      await Deno.remove(out, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "a plain run writes a new folder of runs/ with runs/latest pointing at it, never results/",
  sanitizeResources: false,
  async fn() {
    const cwd = await Deno.makeTempDir();
    try {
      const result = await runDeno([
        "run",
        "-A",
        "--unstable-kv",
        "--config",
        new URL("./deno.json", import.meta.url).pathname,
        BENCH,
        "--drivers",
        "none",
        "--parallel",
        "1",
        "--no-baseline",
        "--no-calibrate",
      ], { cwd, env: { TOTAL: "2", RECIPIENTS: "5" } });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(await exists(join(cwd, "results")), false);
      const runs = [...Deno.readDirSync(join(cwd, "runs"))].map((e) => e.name)
        .sort();
      assert.equal(runs.length, 2, `a run folder and latest: ${runs}`);
      assert.match(runs[0], /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ$/);
      assert.equal(runs[1], "latest");
      const document: ResultsDocument = JSON.parse(
        await Deno.readTextFile(join(cwd, "runs", "latest", "latest.json")),
      );
      assert.equal(document.results[0].status, "ok");
      assert.match(
        result.stdout,
        new RegExp(`Results: runs/${runs[0]}/latest\\.json`),
      );
      assert.match(result.stdout, /deno task compare/);
    } finally {
      await Deno.remove(cwd, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "Ctrl-C stops the run, keeps what finished, and leaves no process or server behind",
  ignore: serversMissing(redisService) != null,
  sanitizeResources: false,
  async fn() {
    const out = await Deno.makeTempDir();
    try {
      const child = spawnDeno([
        "run",
        "-A",
        "--unstable-kv",
        BENCH,
        "--drivers",
        "none,redis",
        "--parallel",
        "1",
        "--no-baseline",
        "--no-calibrate",
        // A seed whose order runs none first, then redis.
        "--order-seed",
        "1",
        "--total",
        "100",
        "--recipients",
        "30",
        "--out",
        out,
      ], { env: { TOTAL: "", RECIPIENTS: "" } });
      const stdout = child.stdout.pipeThrough(new TextDecoderStream())
        .getReader();
      let stderr = "";
      const reader = child.stderr.pipeThrough(new TextDecoderStream())
        .getReader();
      // Interrupt once the redis configuration is under way.
      while (!/\[redis\] \d+\/\d+ delivered/.test(stderr)) {
        const { value, done } = await reader.read();
        if (done) break;
        stderr += value;
      }
      child.kill("SIGINT");
      const drain = async () => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          stderr += value;
        }
      };
      const [status] = await Promise.all([
        child.status,
        drain(),
        (async () => {
          while (!(await stdout.read()).done) { /* drain */ }
        })(),
      ]);
      assert.equal(status.code, 130, stderr);
      assert.match(stderr, /interrupted/);
      const document: ResultsDocument = JSON.parse(
        await Deno.readTextFile(join(out, "latest.json")),
      );
      assert.deepEqual(document.rounds, [["none", "redis"]]);
      assert.equal(document.params.orderSeed, 1);
      const [none, redis] = document.results;
      assert.equal(none.status, "ok", "the finished configuration is kept");
      assert.equal(redis.status, "incomplete");
      assert.equal(redis.reason, "interrupted");
      assert.equal(redis.totalSeconds, null);
      const pids = document.results.flatMap((r) =>
        r.processes.map((p) => p.pid)
      );
      assert.ok(redis.processes.some((p) => p.role === "server"));
      assert.deepEqual(await survivors(pids), []);
    } finally {
      await Deno.remove(out, { recursive: true });
    }
  },
});
