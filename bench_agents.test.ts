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
import { sleep } from "./lib/system/sleep.ts";
import { missingBecause } from "./lib/testing/tools.ts";
import { withSwarmLock } from "./lib/testing/swarm_lock.ts";
import {
  assertExactAccounting,
  processesUsing,
  serversMissing,
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
  return new Deno.Command(Deno.execPath(), {
    args: [
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
    ],
    env: { NO_COLOR: "1", TMPDIR: tmp, TOTAL: "", RECIPIENTS: "" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Reads a stream to its end into `into.text`. */
function collect(
  stream: ReadableStream<Uint8Array>,
  into: { text: string },
): Promise<void> {
  return (async () => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      into.text += chunk;
    }
  })();
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
          const bench = spawnBench(
            out,
            tmp,
            "--total",
            "4",
            "--recipients",
            "6",
            "--placement",
            "agents,local",
          );
          const output = { text: "" };
          const reading = [
            collect(bench.stdout, output),
            collect(bench.stderr, output),
          ];
          const status = await bench.status;
          await Promise.all(reading);
          assert.equal(status.code, 0, output.text);
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
            const bench = spawnBench(
              out,
              tmp,
              "--total",
              "200",
              "--recipients",
              "50",
            );
            const output = { text: "" };
            const reading = [
              collect(bench.stdout, output),
              collect(bench.stderr, output),
            ];
            const deadline = Date.now() + 240_000;
            while (
              !/\[redis-w2-agents\] \d+\/10000 delivered/.test(output.text)
            ) {
              if (Date.now() > deadline || output.text.includes("] ok")) {
                bench.kill("SIGKILL");
                throw new Error(`no row under way:\n${output.text}`);
              }
              await sleep(100);
            }
            bench.kill("SIGINT");
            const status = await bench.status;
            await Promise.all(reading);
            assert.equal(status.code, 130, output.text);
            assert.match(output.text, /interrupted: stopping processes/);
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
