/**
 * Agents on Docker Swarm (as root with a running daemon): the stack file
 * deployed, its replicas resolved through the engine and through Docker's
 * DNS, scaled, and removed on close, on an aborted deploy, on a forced exit
 * and after a killed bench.  Each test that deploys holds the swarm lock.
 */
import assert from "node:assert/strict";
import { withSwarmLock } from "../testing/swarm_lock.ts";
import { join } from "node:path";
import { missingBecause } from "../testing/tools.ts";
import { leftovers } from "../system/leftovers.ts";
import { fillDenoRootfs, ROOTFS_PATH } from "../system/deno_rootfs.ts";
import {
  DOCKER_LABEL,
  dockerImport,
  dockerQuiet,
  dockerUnavailable,
} from "../system/docker.ts";
import { localAddressToward, resolveSwarmAgents } from "./swarm.ts";
import {
  agentStackName,
  ensureSwarm,
  leaveSwarm,
  STACK_SERVICE,
  SwarmAgents,
  sweepStaleStacks,
} from "./swarm_stack.ts";

const noDocker = missingBecause(
  "the Docker Swarm tests",
  await dockerUnavailable(),
);
const TOKEN = "swarm-test-token";

/** A stand-in agent: 401 without the token, its host name with it. */
const STANDIN = `
Deno.serve({ hostname: "0.0.0.0", port: 7070 }, (request) =>
  request.headers.get("authorization") === "Bearer " +
      Deno.env.get("BENCH_AGENT_TOKEN")
    ? Response.json({ protocol: 1, agent: { host: Deno.hostname() } })
    : new Response("unauthorized", { status: 401 }));
`;

/** Builds the stand-in image from this Deno binary; removed by the test. */
async function standinImage(name: string): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "fqb-swarm-standin-" });
  try {
    await fillDenoRootfs(root);
    await Deno.writeTextFile(join(root, "standin.ts"), STANDIN);
    await dockerImport(root, name, {
      changes: [
        `LABEL ${DOCKER_LABEL}=test`,
        `ENV PATH=${ROOTFS_PATH}`,
        'ENTRYPOINT ["deno", "run", "--allow-net", "--allow-env", "--allow-sys", "/standin.ts"]',
      ],
      timeoutMs: 300_000,
      signal: new AbortController().signal,
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/** Everything of a stack still there: services, containers, networks. */
async function remains(stack: string): Promise<string[]> {
  const label = `label=com.docker.stack.namespace=${stack}`;
  const mine = (list: string | null) =>
    (list ?? "").split("\n").filter((line) => line.includes(stack));
  return [
    ...mine(
      await dockerQuiet([
        "ps",
        "-a",
        "--filter",
        `label=${DOCKER_LABEL}`,
        "--filter",
        label,
        "--format",
        "{{.Names}}",
      ]),
    ),
    ...mine(await dockerQuiet(["service", "ls", "--format", "{{.Name}}"])),
    ...mine(await dockerQuiet(["network", "ls", "--format", "{{.Name}}"])),
  ];
}

/**
 * `resolveSwarmAgents(…, {via: "dns"})` run by a container attached to the
 * stack's overlay network, as a bench inside the swarm runs it.
 */
async function resolveInside(
  image: string,
  stack: string,
): Promise<{ via: string; agents: { url: string; benchAddress: string }[] }> {
  const name = `${stack}-inside`;
  const script = `
    import { resolveSwarmAgents } from "/src/lib/agent/swarm.ts";
    const found = await resolveSwarmAgents("${stack}_agent", {
      via: "dns", replicas: 2, timeoutMs: 30_000,
    });
    console.log(JSON.stringify(found));`;
  try {
    const out = await new Deno.Command("docker", {
      args: [
        "run",
        "--name",
        name,
        "--label",
        `${DOCKER_LABEL}=test`,
        "--network",
        `${stack}_agents`,
        "--volume",
        `${new URL("../../", import.meta.url).pathname}:/src:ro`,
        "--env",
        "DENO_DIR=/tmp/deno",
        "--entrypoint",
        "deno",
        image,
        "eval",
        script,
      ],
      stdin: "null",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.ok(out.success, stderr);
    return JSON.parse(new TextDecoder().decode(out.stdout));
  } finally {
    await dockerQuiet(["rm", "--force", name]);
  }
}

/** The tasks' URLs on the overlay network, from the engine. */
async function overlayUrls(tasks: readonly string[]): Promise<string[]> {
  const inspected = JSON.parse(
    (await dockerQuiet(["inspect", "--type", "task", ...tasks]))!,
  ) as { NetworksAttachments: { Addresses: string[] }[] }[];
  return inspected.map((task) =>
    `http://${task.NetworksAttachments[0].Addresses[0].split("/")[0]}:7070`
  );
}

/**
 * Whether a replica connects to a listener of this process at the
 * agent's `benchAddress` (the listener on every address, as the bench's
 * forwarders listen).
 */
async function reaches(
  agent: { benchAddress: string; container: string | null },
): Promise<boolean> {
  const listener = Deno.listen({ hostname: "0.0.0.0", port: 0 });
  const accepted = listener.accept().then((conn) => {
    conn.close();
    return true;
  }, () => false);
  try {
    const out = await new Deno.Command("docker", {
      args: [
        "exec",
        agent.container!,
        "deno",
        "eval",
        `(await Deno.connect({ hostname: "${agent.benchAddress}", port: ${
          (listener.addr as Deno.NetAddr).port
        } })).close();`,
      ],
      stdin: "null",
    }).output();
    return out.success && await accepted;
  } finally {
    listener.close();
    await accepted;
  }
}

/** The swarm state and whether docker_gwbridge is there. */
async function swarmState(): Promise<string> {
  const state = await dockerQuiet([
    "info",
    "--format",
    "{{.Swarm.LocalNodeState}}",
  ]);
  const bridge = await dockerQuiet(["network", "inspect", "docker_gwbridge"]);
  return `${state} ${bridge == null ? "no bridge" : "bridge"}`;
}

/** The host name each agent reports with the token. */
async function hosts(urls: readonly string[]): Promise<string[]> {
  return await Promise.all(urls.map(async (url) => {
    const response = await fetch(`${url}/v1/hello`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    return ((await response.json()) as { agent: { host: string } }).agent.host;
  }));
}

Deno.test("the local address toward a peer is on its network", () => {
  const nic = (address: string, netmask: string) => ({
    family: "IPv4" as const,
    name: "eth0",
    address,
    netmask,
    scopeid: null,
    cidr: `${address}/24`,
    mac: "00:00:00:00:00:00",
  });
  const interfaces = [
    nic("127.0.0.1", "255.0.0.0"),
    nic("10.0.1.5", "255.255.255.0"),
  ];
  assert.equal(localAddressToward("10.0.1.3", interfaces), "10.0.1.5");
  assert.equal(localAddressToward("172.17.0.3", interfaces), null);
});

Deno.test("a stack's name holds its owner", () => {
  assert.match(
    agentStackName(),
    new RegExp(`^fqb-agents-${Deno.pid}-\\d+-\\d+$`),
  );
});

Deno.test({
  name: "swarm agents deploy, resolve, scale and go away with close()",
  ignore: noDocker,
  fn: () =>
    withSwarmLock(async () => {
      const image = `fedify-queue-bench-standin:${Deno.pid}`;
      const agents = new SwarmAgents();
      const swarmBefore = await swarmState();
      let stack = "";
      try {
        await standinImage(image);
        const two = await agents.deploy({
          image,
          replicas: 2,
          cpus: 0.25,
          token: TOKEN,
          timeoutMs: 90_000,
        });
        stack = agents.stack!;
        assert.equal(two.via, "engine");
        assert.equal(two.agents.length, 2);
        const names = await hosts(two.agents.map((a) => a.url));
        assert.deepEqual(
          names.toSorted(),
          two.agents.map((a) => a.container!.slice(0, 12)).toSorted(),
        );
        for (const agent of two.agents) {
          assert.match(agent.benchAddress, /^\d+\.\d+\.\d+\.\d+$/);
          assert.ok(agent.task != null && agent.node != null);
        }
        const limit = await dockerQuiet([
          "service",
          "inspect",
          "--format",
          '{{.Spec.TaskTemplate.Resources.Limits.NanoCPUs}} {{index .Spec.Labels "fedify-queue-bench"}}',
          agents.service!,
        ]);
        assert.equal(limit, "250000000 agent");
        const again = await resolveSwarmAgents(agents.service!, {
          timeoutMs: 30_000,
        });
        assert.deepEqual(
          again.agents.map((a) => a.url),
          two.agents.map((a) => a.url),
        );
        assert.ok(await reaches(two.agents[0]), "a replica reaches the bench");
        const inside = await resolveInside(image, stack);
        const subnet = (url: string) =>
          new URL(url).hostname.split(".").slice(0, 3).join(".");
        assert.equal(
          subnet(`http://${inside.agents[0].benchAddress}`),
          subnet(inside.agents[0].url),
        );
        assert.equal(inside.via, "dns");
        assert.deepEqual(
          inside.agents.map((a) => a.url).toSorted(),
          (await overlayUrls(two.agents.map((a) => a.task!))).toSorted(),
        );
        const one = await agents.scale(1, { timeoutMs: 60_000 });
        assert.equal(one.agents.length, 1);
      } finally {
        await agents.close();
        await dockerQuiet(["image", "rm", "--force", image]);
      }
      assert.deepEqual(await remains(stack), []);
      // A swarm close() made is gone again, with its bridge.
      assert.equal(await swarmState(), swarmBefore);
    }),
});

Deno.test({
  name: "an aborted deploy leaves nothing of its stack",
  ignore: noDocker,
  fn: () =>
    withSwarmLock(async () => {
      // An image no node has: the replicas never run, so the deploy waits
      // for them until the abort.
      const agents = new SwarmAgents();
      const stack = agentStackName();
      const controller = new AbortController();
      const timer = setTimeout(
        () => controller.abort(new Error("test abort")),
        3_000,
      );
      try {
        await assert.rejects(
          agents.deploy({
            image: "fedify-queue-bench-absent:none",
            replicas: 2,
            cpus: 0.25,
            token: TOKEN,
            stack,
            signal: controller.signal,
            timeoutMs: 60_000,
          }),
          /test abort/,
        );
        assert.equal(agents.stack, null);
        assert.deepEqual(await remains(stack), []);
      } finally {
        clearTimeout(timer);
        await agents.close();
      }
    }),
});

Deno.test({
  name: "a forced exit (second Ctrl-C) removes the stack at once",
  ignore: noDocker,
  fn: () =>
    withSwarmLock(async () => {
      const image = `fedify-queue-bench-standin:${Deno.pid}-forced`;
      const agents = new SwarmAgents();
      const swarmBefore = await swarmState();
      let stack = "";
      try {
        await standinImage(image);
        await agents.deploy({
          image,
          replicas: 1,
          cpus: 0.25,
          token: TOKEN,
          timeoutMs: 90_000,
        });
        stack = agents.stack!;
        leftovers.forceCleanup();
        assert.deepEqual(await remains(stack), []);
      } finally {
        await agents.close();
        await dockerQuiet(["image", "rm", "--force", image]);
      }
      assert.equal(await swarmState(), swarmBefore);
    }),
});

Deno.test({
  name: "a killed bench's stack is swept, a running one's stays",
  ignore: noDocker,
  fn: () =>
    withSwarmLock(async () => {
      const dead = new Deno.Command("true").spawn();
      await dead.status;
      const stale = `fqb-agents-${dead.pid}-1-1`;
      const live = agentStackName();
      const made = await ensureSwarm();
      const env = {
        AGENT_IMAGE: "fedify-queue-bench-absent:none",
        AGENT_REPLICAS: "0",
        BENCH_AGENT_TOKEN: TOKEN,
      };
      try {
        for (const stack of [stale, live]) {
          const out = await new Deno.Command("docker", {
            args: ["stack", "deploy", "-c", "deploy/swarm/stack.yml", stack],
            env,
            cwd: new URL("../../", import.meta.url),
          }).output();
          assert.ok(out.success, new TextDecoder().decode(out.stderr));
        }
        const swept = await sweepStaleStacks();
        assert.ok(swept.includes(stale));
        assert.ok(!swept.includes(live));
        assert.deepEqual(await remains(stale), []);
        assert.ok((await remains(live)).includes(`${live}_${STACK_SERVICE}`));
      } finally {
        await dockerQuiet(["stack", "rm", stale]);
        await dockerQuiet(["stack", "rm", live]);
        for (let i = 0; i < 60 && (await remains(live)).length > 0; i++) {
          await new Promise((r) => setTimeout(r, 500));
        }
        if (made) await leaveSwarm();
      }
      assert.deepEqual(await remains(live), []);
    }),
});
