import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { missingBecause } from "../testing/tools.ts";
import { DOCKER_LABEL, dockerUnavailable } from "../system/docker.ts";
import { runToEnd } from "../system/run_to_end.ts";
import {
  agentImageName,
  buildAgentImage,
  IMAGE_ENTRYPOINT,
  imageChanges,
} from "./agent_image.ts";

const PROJECT = fileURLToPath(new URL("../../", import.meta.url));
const noDocker = missingBecause(
  "the agent image test",
  await dockerUnavailable(),
);

Deno.test("the image's name holds the commit, or dev", () => {
  assert.equal(agentImageName("1a2b3c4"), "fedify-queue-bench-agent:1a2b3c4");
  assert.equal(agentImageName(null), "fedify-queue-bench-agent:dev");
});

Deno.test("the image runs the agent from its own cache, labelled", () => {
  const changes = imageChanges("fedify-queue-bench-agent:x", true);
  assert.ok(changes.includes(`LABEL ${DOCKER_LABEL}=agent`));
  assert.ok(changes.includes("ENV BENCH_IMAGE=fedify-queue-bench-agent:x"));
  assert.ok(changes.includes("ENV FEDIFY_SOURCE=/fedify-source"));
  assert.ok(IMAGE_ENTRYPOINT.includes("--cached-only"));
  assert.deepEqual(IMAGE_ENTRYPOINT.slice(-3), [
    "/app/lib/cli/agent.ts",
    "--listen",
    "0.0.0.0:7070",
  ]);
});

Deno.test({
  name: "the image imports Fedify offline (--network none)",
  ignore: noDocker,
  async fn() {
    const name = `fedify-queue-bench-agent:test-${Deno.pid}`;
    const probe = await Deno.makeTempDir({ prefix: "fqb-image-probe-" });
    const container = `fqb-image-probe-${Deno.pid}`;
    try {
      const image = await buildAgentImage({
        projectDir: PROJECT,
        name,
        fedifySource: null,
        timeoutMs: 600_000,
        signal: new AbortController().signal,
        log: () => {},
      });
      assert.equal(image.name, name);
      assert.ok(image.bytes > 0);
      assert.ok(image.entrypoints.includes("lib/child/worker.ts"));
      await Deno.writeTextFile(
        join(probe, "probe.ts"),
        'import { createFederation } from "@fedify/fedify";\n' +
          "console.log(typeof createFederation, Deno.env.get('BENCH_IMAGE'));\n",
      );
      const run = await runToEnd("docker", [
        "run",
        "--name",
        container,
        "--label",
        `${DOCKER_LABEL}=test`,
        "--network",
        "none",
        "--volume",
        `${probe}:/probe:ro`,
        "--entrypoint",
        "deno",
        name,
        "run",
        "--cached-only",
        "--allow-env",
        "--config",
        "/app/deno.json",
        "/probe/probe.ts",
      ], { timeoutMs: 120_000 });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout.trim(), `function ${name}`);
    } finally {
      await runToEnd("docker", ["rm", "--force", container], {
        timeoutMs: 60_000,
      });
      await runToEnd("docker", ["image", "rm", "--force", name], {
        timeoutMs: 60_000,
      });
      await Deno.remove(probe, { recursive: true });
    }
    const left = await runToEnd("docker", [
      "image",
      "ls",
      "--quiet",
      name,
    ], { timeoutMs: 30_000 });
    assert.equal(left.stdout.trim(), "");
  },
});
