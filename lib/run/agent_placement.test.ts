/**
 * Rows whose workers run on agents: two agents, each in a network namespace
 * of its own (as root), started with `deno task agent`'s script; a row with
 * one worker on each delivers everything once, records each agent with its
 * roles, CPU, memory and clock, and leaves no process or namespace behind;
 * the same row on the bench's host beside it (`--placement local`); and the
 * errors of a bench that cannot use its agents.
 */
import assert from "node:assert/strict";
import { missingBecause } from "../testing/tools.ts";
import { serversMissing } from "../testing/servers.ts";
import { builtinDrivers, findDriver } from "../../drivers/mod.ts";
import { redisService } from "../../drivers/redis/mod.ts";
import {
  benchNamespaces,
  freePort,
  NamespaceHosts,
  namespacesUnavailable,
} from "../services/mod.ts";
import { startAgent, type TestAgent } from "../testing/agents.ts";
import {
  assertExactAccounting,
  assertOutcome,
  isAlive,
  smallSuiteParams,
} from "../testing/mod.ts";
import { AgentPlacement } from "./agent_placement.ts";
import { runSuite } from "./suite.ts";

const TOKEN = "placement-test";
const redis = findDriver(builtinDrivers, "redis")!;
const noRedis = serversMissing(redisService) != null;
const noNamespaces = missingBecause(
  "the tests of agents in network namespaces",
  namespacesUnavailable(),
);

/** Starts one agent per namespace host, each listening on its address. */
function agentsIn(hosts: NamespaceHosts): Promise<TestAgent[]> {
  return Promise.all(hosts.hosts.map((host, index) =>
    startAgent({
      listen: `${host.address}:7070`,
      token: TOKEN,
      wrap: (launcher) => hosts.launcher(launcher, index),
    })
  ));
}

Deno.test({
  name:
    "--agents: two agents in network namespaces of their own run a row's two workers, every delivery once, and the sender too; nothing is left",
  ignore: noRedis || noNamespaces,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const previous = Deno.env.get("BENCH_AGENT_TOKEN");
    Deno.env.set("BENCH_AGENT_TOKEN", TOKEN);
    const hosts = await NamespaceHosts.create(2);
    let agents: TestAgent[] = [];
    const workerPids: number[] = [];
    try {
      agents = await agentsIn(hosts);
      const addresses = agents.map((a) => a.address);
      const { results } = await runSuite({
        params: smallSuiteParams({
          agents: addresses.join(","),
          scale: [2],
          placement: ["agents", "local"],
        }),
        drivers: [redis],
        parallel: [1],
      });
      assert.deepEqual(results.map((r) => r.id).sort(), [
        "redis-w2",
        "redis-w2-agents",
      ]);
      for (const r of results) assertExactAccounting(r, 24);
      const onAgents = results.find((r) => r.id === "redis-w2-agents")!;
      assertOutcome(onAgents, (r) => {
        const record = r.deployment?.agents;
        assert.ok(record != null);
        assert.equal(r.deployment?.placement, "agents");
        assert.equal(r.deployment?.scale, 2);
        assert.equal(record.gateway, hosts.gateway);
        assert.deepEqual(
          record.agents.map((a) => [a.address, a.roles]),
          addresses.map((a) => [a, ["worker"]]),
        );
        for (const agent of record.agents) {
          assert.ok(agent.cpuSeconds != null && agent.cpuSeconds > 0);
          assert.ok(agent.peakRssBytes != null && agent.peakRssBytes > 0);
          assert.ok(agent.clock.after != null);
          // One kernel, one clock: the offset is within its bounds of 0.
          assert.ok(
            Math.abs(agent.clock.before.offsetMs) <=
              agent.clock.before.uncertaintyMs + 0.01,
            JSON.stringify(agent.clock),
          );
        }
        const workers = (r.processes ?? []).filter((p) => p.role === "worker");
        assert.deepEqual(workers.map((w) => w.agent).sort(), addresses);
        workerPids.push(...workers.map((w) => w.pid));
        for (
          const p of (r.processes ?? []).filter((p) => p.role !== "worker")
        ) {
          assert.equal(p.agent, undefined, `${p.role} on the bench's host`);
        }
      });
      const local = results.find((r) => r.id === "redis-w2")!;
      assertOutcome(local, (r) => {
        assert.equal(r.deployment?.placement, "local");
        assert.equal(r.deployment?.agents, undefined);
        assert.ok((r.processes ?? []).every((p) => p.agent == null));
      });
      // The sender on the second agent, the worker on the first.
      const [senderRow] = (await runSuite({
        params: smallSuiteParams({
          agents: addresses[0],
          senderAgent: addresses[1],
        }),
        drivers: [redis],
        parallel: [1],
      })).results;
      assertExactAccounting(senderRow, 24);
      assertOutcome(senderRow, (r) => {
        const byRole = Object.fromEntries(
          (r.processes ?? []).filter((p) => p.agent != null)
            .map((p) => [p.role, p.agent]),
        );
        assert.deepEqual(byRole, {
          worker: addresses[0],
          sender: addresses[1],
        });
        assert.deepEqual(
          r.deployment?.agents?.agents.map((a) => a.roles),
          [["worker"], ["sender"]],
        );
        assert.ok(r.latencyMs != null && r.latencyMs.p50 > 0);
        workerPids.push(
          ...(r.processes ?? []).filter((p) => p.agent != null).map((p) =>
            p.pid
          ),
        );
      });
    } finally {
      await Promise.all(agents.map((a) => a.close()));
      await hosts.close();
      if (previous == null) Deno.env.delete("BENCH_AGENT_TOKEN");
      else Deno.env.set("BENCH_AGENT_TOKEN", previous);
    }
    for (const pid of [...workerPids, ...agents.map((a) => a.pid)]) {
      assert.ok(!isAlive(pid), `${pid} outlived the test`);
    }
    const { namespaces } = await benchNamespaces();
    assert.deepEqual(
      namespaces.filter((n) => n.startsWith(`fqb-ns-${Deno.pid}-`)),
      [],
    );
  },
});

Deno.test({
  name:
    "a bench that cannot use its agents says why before anything starts: no token, no answer, too few",
  sanitizeResources: false,
  async fn() {
    const previous = Deno.env.get("BENCH_AGENT_TOKEN");
    try {
      Deno.env.delete("BENCH_AGENT_TOKEN");
      const nowhere = `127.0.0.1:${freePort()}`;
      await assert.rejects(
        AgentPlacement.open({
          workers: { addresses: [nowhere] },
          workerCount: 1,
          oneEach: false,
        }),
        /BENCH_AGENT_TOKEN is not set/,
      );
      Deno.env.set("BENCH_AGENT_TOKEN", TOKEN);
      await assert.rejects(
        AgentPlacement.open({
          workers: { addresses: [nowhere] },
          workerCount: 1,
          oneEach: false,
        }),
        /did not answer GET \/v1\/hello: .*deno task agent --listen/,
      );
      await assert.rejects(
        AgentPlacement.open({
          workers: { addresses: [nowhere] },
          workerCount: 2,
          oneEach: true,
        }),
        /--scale 2 puts each worker on an agent of its own, and --agents gives 1/,
      );
    } finally {
      if (previous == null) Deno.env.delete("BENCH_AGENT_TOKEN");
      else Deno.env.set("BENCH_AGENT_TOKEN", previous);
    }
  },
});

Deno.test({
  name:
    "a row whose agent does not answer fails with the reason, and the suite goes on",
  ignore: noRedis,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const previous = Deno.env.get("BENCH_AGENT_TOKEN");
    Deno.env.set("BENCH_AGENT_TOKEN", TOKEN);
    try {
      const { results: [r] } = await runSuite({
        params: smallSuiteParams({ agents: `127.0.0.1:${freePort()}` }),
        drivers: [redis],
        parallel: [1],
      });
      assert.equal(r.id, "redis-agents");
      assert.equal(r.status, "failed");
      assert.match(
        r.reason ?? "",
        /did not answer GET \/v1\/hello: .*deno task agent --listen/,
      );
      assert.equal(r.delivered, 0);
    } finally {
      if (previous == null) Deno.env.delete("BENCH_AGENT_TOKEN");
      else Deno.env.set("BENCH_AGENT_TOKEN", previous);
    }
  },
});
