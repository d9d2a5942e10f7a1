/**
 * The bench's workers on Docker Swarm, tried as a user runs it
 * (`deno task bench --agents swarm`, as root with a running daemon): two
 * replicas run a row's two workers and deliver everything once beside the
 * same row on the bench's host under the same CPU limit; then one Ctrl-C
 * while a row runs on the replicas.  After each, no service, container or
 * network of the bench's, no CPU-limit group and no process is left, and
 * the swarm is as it was.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { ResultsDocument } from "./lib/results/mod.ts";
import { redisService } from "./drivers/redis/mod.ts";
import { benchCpuGroups, cpuQuotaUnavailable } from "./lib/services/mod.ts";
import { checkoutImage } from "./lib/deploy/mod.ts";
import {
  DOCKER_LABEL,
  dockerQuiet,
  dockerUnavailable,
} from "./lib/system/docker.ts";
import { missingBecause } from "./lib/testing/tools.ts";
import { withSwarmLock } from "./lib/testing/swarm_lock.ts";
import {
  assertExactAccounting,
  Output,
  processesUsing,
  serversMissing,
  spawnDeno,
} from "./lib/testing/mod.ts";

const ROOT = new URL(".", import.meta.url).pathname;
const BENCH = join(ROOT, "bench.ts");

const noSwarm = missingBecause(
  "the tests of agents on Docker Swarm",
  (await dockerUnavailable()) ?? cpuQuotaUnavailable() ??
    serversMissing(redisService),
);

/** What the bench's Docker objects and the swarm look like now. */
async function dockerState(): Promise<string> {
  const label = `label=${DOCKER_LABEL}`;
  const [services, containers, networks, swarm] = await Promise.all([
    dockerQuiet(["service", "ls", "-q", "--filter", label]),
    dockerQuiet(["ps", "-aq", "--filter", label]),
    dockerQuiet(["network", "ls", "-q", "--filter", label]),
    dockerQuiet(["info", "--format", "{{.Swarm.LocalNodeState}}"]),
  ]);
  return JSON.stringify({
    services: services?.trim() ?? "",
    containers: containers?.trim() ?? "",
    networks: networks?.trim() ?? "",
    swarm: swarm?.trim(),
  });
}

/** A bench with `--agents swarm`, its output read as it comes. */
function spawnBench(out: string, tmp: string, ...args: string[]) {
  const bench = spawnDeno([
    "run",
    "-A",
    "--unstable-kv",
    BENCH,
    "--out",
    out,
    "--drivers",
    "redis",
    "--parallel",
    "1",
    "--no-baseline",
    "--no-calibrate",
    "--agents",
    "swarm",
    "--scale",
    "2",
    "--worker-cpu-limit",
    "0.5",
    ...args,
  ], { env: { TMPDIR: tmp, TOTAL: "", RECIPIENTS: "" } });
  return {
    bench,
    stdout: new Output(bench.stdout),
    stderr: new Output(bench.stderr),
  };
}

Deno.test({
  name:
    "--agents swarm: two replicas run a row's workers, every delivery once; after the end and after Ctrl-C nothing of ours is left",
  ignore: noSwarm,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: (t) =>
    withSwarmLock(async () => {
      const base = await Deno.makeTempDir({ prefix: "bench-agents-test-" });
      const tmp = join(base, "tmp");
      await Deno.mkdir(tmp);
      const before = await dockerState();
      const image = await checkoutImage(ROOT);
      const imageExisted =
        ((await dockerQuiet(["image", "ls", "-q", image.name])) ?? "")
          .trim() !==
          "";
      const groupsBefore = benchCpuGroups();
      try {
        await t.step("to the end: exact, recorded, nothing left", async () => {
          const out = join(base, "out");
          const { bench, stdout, stderr } = spawnBench(
            out,
            tmp,
            "--total",
            "4",
            "--recipients",
            "6",
            "--placement",
            "agents,local",
          );
          const status = await bench.status;
          await Promise.all([stdout.done, stderr.done]);
          assert.equal(status.code, 0, stdout.text + stderr.text);
          const document: ResultsDocument = JSON.parse(
            await Deno.readTextFile(join(out, "latest.json")),
          );
          assert.deepEqual(
            document.results.map((r) => r.id).sort(),
            ["redis-w2", "redis-w2-agents"],
          );
          for (const r of document.results) assertExactAccounting(r, 24);
          const onAgents = document.results.find((r) =>
            r.id === "redis-w2-agents"
          )!;
          const agents = onAgents.deployment?.agents?.agents ?? [];
          assert.equal(agents.length, 2);
          for (const agent of agents) {
            assert.deepEqual(agent.roles, ["worker"]);
            assert.equal(agent.cpuLimit, 0.5);
            assert.match(agent.image ?? "", /^fedify-queue-bench-agent:/);
            assert.ok(agent.clock.after != null);
          }
          assert.equal(
            document.results.find((r) => r.id === "redis-w2")!.deployment
              ?.workerCpuLimit?.cpus,
            0.5,
          );
          assert.equal(await dockerState(), before);
          assert.deepEqual(benchCpuGroups(), groupsBefore);
          assert.deepEqual(processesUsing(base), []);
        });
        await t.step(
          "Ctrl-C while the replicas work: nothing left",
          async () => {
            const out = join(base, "out-interrupted");
            const { bench, stdout, stderr } = spawnBench(
              out,
              tmp,
              "--total",
              "200",
              "--recipients",
              "50",
            );
            try {
              await stderr.waitFor(
                /\[redis-w2-agents\] \d+\/10000 delivered/,
                240_000,
              );
            } catch (error) {
              bench.kill("SIGKILL");
              throw error;
            }
            bench.kill("SIGINT");
            const status = await bench.status;
            await Promise.all([stdout.done, stderr.done]);
            const text = stdout.text + stderr.text;
            assert.equal(status.code, 130, text);
            assert.match(text, /interrupted: stopping processes/);
            assert.equal(await dockerState(), before);
            assert.deepEqual(benchCpuGroups(), groupsBefore);
            assert.deepEqual(processesUsing(base), []);
          },
        );
      } finally {
        if (!imageExisted) {
          await dockerQuiet(["image", "rm", "--force", image.name]);
        }
        await Deno.remove(base, { recursive: true });
      }
    }),
});
