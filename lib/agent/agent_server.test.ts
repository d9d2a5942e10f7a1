/**
 * The agent against the bench's side of it: the token, the protocol, a
 * worker started there and driven as a local child, its readings, a bench
 * that lets go, and the command line.
 */
import assert from "node:assert/strict";
import { AgentClient, AgentServer } from "./mod.ts";
import { Child } from "../system/process.ts";
import { isAlive } from "../testing/mod.ts";
import { sleep } from "../system/sleep.ts";

const TOKEN = "test-token";
const WORKER = new URL("../child/worker.ts", import.meta.url);
/** A worker of the in-process queue: it opens nothing outside itself. */
const WORKER_SPEC = {
  queue: {
    driver: "in-process",
    driverModules: [],
    config: {},
    parallelism: 1,
  },
  reportDepth: false,
};

async function withAgent(
  fn: (server: AgentServer, client: AgentClient) => Promise<void>,
): Promise<void> {
  const server = await AgentServer.start({
    hostname: "127.0.0.1",
    port: 0,
    token: TOKEN,
  });
  try {
    await fn(server, new AgentClient(`127.0.0.1:${server.port}`, TOKEN));
  } finally {
    await server.close();
  }
}

Deno.test("an agent refuses a request without its token, and says which", async () => {
  await withAgent(async (server) => {
    for (
      const authorization of [undefined, "Bearer wrong", `Bearer ${TOKEN}x`]
    ) {
      const response = await fetch(`http://127.0.0.1:${server.port}/v1/hello`, {
        headers: authorization == null ? {} : { authorization },
      });
      assert.equal(response.status, 401);
      assert.match(await response.text(), /BENCH_AGENT_TOKEN/);
    }
    const client = new AgentClient(`127.0.0.1:${server.port}`, "wrong");
    await assert.rejects(
      client.hello(),
      /refused the token: set BENCH_AGENT_TOKEN/,
    );
  });
});

Deno.test("an agent says who it is, where it sees the bench, and its clock", async () => {
  await withAgent(async (_server, client) => {
    const hello = await client.hello();
    assert.equal(hello.protocol, 1);
    assert.equal(hello.peer, "127.0.0.1");
    assert.equal(hello.agent.pid, Deno.pid);
    assert.equal(hello.agent.runtime, `deno ${Deno.version.deno}`);
    const [before, agent, after] = await client.clockSample();
    assert.ok(before <= agent && agent <= after, `${before} ${agent} ${after}`);
  });
});

Deno.test({
  name:
    "a worker started by an agent is driven as a local child: ready, readings, stop, exit",
  sanitizeResources: false,
  async fn() {
    await withAgent(async (server, client) => {
      const child = await Child.launch({
        role: "worker",
        script: WORKER,
        spec: WORKER_SPEC,
        launcher: client.launcher(),
      });
      const ready = await child.waitFor("ready", 60_000);
      assert.equal(ready.pid, child.pid);
      assert.ok(isAlive(child.pid));
      const sample = await child.remoteProbe!.sample();
      assert.ok(
        sample != null && sample.cpuSeconds > 0,
        JSON.stringify(sample),
      );
      assert.ok(sample.peakRssBytes > 0);
      assert.equal(child.remoteProbe!.agent, client.address);
      assert.equal(server.running, 1);
      await child.stop();
      assert.deepEqual(child.status, { success: true, code: 0, signal: null });
      assert.ok(!isAlive(child.pid));
      assert.equal(server.running, 0);
      assert.equal(await child.remoteProbe!.sample(), null, "gone");
    });
  },
});

Deno.test({
  name: "a child whose bench lets go of its events is stopped by the agent",
  sanitizeResources: false,
  async fn() {
    await withAgent(async (server, client) => {
      const started = await fetch(
        `http://127.0.0.1:${server.port}/v1/children`,
        {
          method: "POST",
          headers: { authorization: `Bearer ${TOKEN}` },
          body: JSON.stringify({
            role: "worker",
            spec: JSON.stringify(WORKER_SPEC),
          }),
        },
      );
      const { id, pid } = await started.json();
      const events = await fetch(
        `http://127.0.0.1:${server.port}/v1/children/${id}/events`,
        { headers: { authorization: `Bearer ${TOKEN}` } },
      );
      const reader = events.body!.getReader();
      await reader.read(); // its first line: the worker runs
      assert.ok(isAlive(pid));
      await reader.cancel();
      const deadline = Date.now() + 15_000;
      while (isAlive(pid) && Date.now() < deadline) await sleep(50);
      assert.ok(!isAlive(pid), `worker ${pid} outlived its bench's stream`);
      assert.equal(client.address, `127.0.0.1:${server.port}`);
    });
  },
});

Deno.test("an agent starts only the sender and workers", async () => {
  await withAgent(async (server, client) => {
    const response = await fetch(
      `http://127.0.0.1:${server.port}/v1/children`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify({ role: "inbox", spec: "{}" }),
      },
    );
    assert.equal(response.status, 400);
    assert.match(await response.text(), /only sender and worker/);
    await assert.rejects(
      client.start(new URL("file:///elsewhere/x.ts"), "{}", "worker"),
      /starts only the sender and workers/,
    );
  });
});

Deno.test("deno task agent refuses to start without BENCH_AGENT_TOKEN, and names the fix", async () => {
  const env = Deno.env.toObject();
  delete env.BENCH_AGENT_TOKEN;
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      new URL("../cli/agent.ts", import.meta.url).pathname,
      "--listen",
      "127.0.0.1:7999",
    ],
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 2);
  assert.match(
    new TextDecoder().decode(output.stderr),
    /BENCH_AGENT_TOKEN is not set: .*BENCH_AGENT_TOKEN=SECRET deno task agent/,
  );
  const bad = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      new URL("../cli/agent.ts", import.meta.url).pathname,
      "--listen",
      "nowhere",
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(bad.code, 2);
  assert.match(
    new TextDecoder().decode(bad.stderr),
    /--listen expects HOST:PORT/,
  );
});
