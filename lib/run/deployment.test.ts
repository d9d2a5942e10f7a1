/**
 * A run's deployment end to end: a queue server behind the delay proxies
 * (`--queue-rtt`), a queue without a server that says the flag does not
 * apply, the app pinned to fewer cores (`--cpus`) with the server and
 * the others on the rest, and the workers on hosts of their own
 * (`--worker-hosts`, as root), or skipped without namespaces.  Only lower
 * bounds of time are asserted.
 */
import assert from "node:assert/strict";
import { missingBecause } from "../testing/tools.ts";
import { serversMissing } from "../testing/servers.ts";
import { builtinDrivers, findDriver } from "../../drivers/mod.ts";
import {
  allowedCpus,
  benchNamespaces,
  formatCpuList,
  namespacesUnavailable,
  ServiceManager,
} from "../services/mod.ts";
import { redisService } from "../../drivers/redis/mod.ts";
import {
  assertExactAccounting,
  assertOutcome,
  smallSuiteParams,
} from "../testing/mod.ts";
import { noneDriver } from "../../drivers/none/none.ts";
import { deploymentRecord } from "./deployment.ts";
import { runSuite } from "./suite.ts";

const noRedis = serversMissing(redisService) != null;
const redis = findDriver(builtinDrivers, "redis")!;
const inProcess = findDriver(builtinDrivers, "in-process")!;
const noNamespaces = missingBecause(
  "the --worker-hosts tests",
  namespacesUnavailable(),
);

/** This process's namespaces and links that exist now. */
async function ownNamespaces(): Promise<string[]> {
  const { namespaces, links } = await benchNamespaces();
  return [...namespaces, ...links].filter((name) =>
    name.startsWith(`fqb-ns-${Deno.pid}-`) || name.includes(`${Deno.pid}x`)
  );
}

Deno.test("a row's deployment names its cores and round trip, and why a flag does not apply", () => {
  const params = smallSuiteParams({ queueRttMs: [5] });
  assert.deepEqual(
    deploymentRecord({ driver: redis, parallelism: 1, queueRttMs: 5 }, params),
    { cpus: null, queueRttMs: 5, workerHosts: null },
  );
  const plain = deploymentRecord(
    { driver: inProcess, parallelism: 1, cpus: 1 },
    params,
  );
  assert.equal(plain.cpus, 1);
  assert.equal(plain.queueRttMs, null);
  assert.match(
    plain.notApplied?.queueRttMs ?? "",
    /^in-process has no queue server/,
  );
  assert.match(
    deploymentRecord(
      { driver: noneDriver, parallelism: 1, direct: true },
      params,
    ).notApplied?.queueRttMs ?? "",
    /the baseline has no queue/,
  );
  // Not asked: nothing to say.
  assert.deepEqual(
    deploymentRecord({ driver: inProcess, parallelism: 1 }, smallSuiteParams()),
    { cpus: null, queueRttMs: null, workerHosts: null },
  );
  const hosts = smallSuiteParams({ workerHosts: [2] });
  assert.deepEqual(
    deploymentRecord({ driver: redis, parallelism: 1, workerHosts: 2 }, hosts),
    { cpus: null, queueRttMs: null, workerHosts: 2 },
  );
  assert.match(
    deploymentRecord({ driver: inProcess, parallelism: 1 }, hosts).notApplied
      ?.workerHosts ?? "",
    /^in-process's queue is not shared across processes/,
  );
  assert.match(
    deploymentRecord(
      { driver: noneDriver, parallelism: 1, direct: true },
      hosts,
    ).notApplied?.workerHosts ?? "",
    /the baseline has no queue, so there are no workers/,
  );
});

Deno.test({
  name:
    "--queue-rtt: the app reaches Redis through the proxies, which add at least the delay asked and count round trips",
  ignore: noRedis,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { results: [r] } = await runSuite({
      params: smallSuiteParams({ queueRttMs: [2] }),
      drivers: [redis],
      parallel: [1],
    });
    assert.equal(r.id, "redis-rtt2");
    assertExactAccounting(r, 24);
    assertOutcome(r, (r) => {
      assert.deepEqual(r.deployment, {
        cpus: null,
        queueRttMs: 2,
        workerHosts: null,
      });
      const proxy = r.proxy!;
      assert.equal(proxy.oneWayMs, 1);
      for (const traffic of [proxy.sender, proxy.workers!]) {
        assert.ok(traffic.connections >= 1, `${traffic.connections}`);
        assert.ok(traffic.turns > 0, `${traffic.turns} turns`);
        assert.ok(traffic.bytesUp > 0 && traffic.bytesDown > 0);
        assert.ok(
          traffic.addedDelayMs.median! >= 1,
          `median ${traffic.addedDelayMs.median} ms, under 1 ms one way`,
        );
        assert.ok(traffic.addedDelayMs.p99! >= traffic.addedDelayMs.median!);
        assert.ok(traffic.busiestChunksPerSecond >= 1);
      }
      const trips = r.roundTripsPerDelivery!;
      assert.ok(trips.enqueue! > 0, `enqueue ${trips.enqueue}`);
      assert.ok(trips.dequeue! > 0, `dequeue ${trips.dequeue}`);
    });
  },
});

Deno.test({
  name:
    "--queue-rtt on a queue without a server: the row runs without a proxy and says the flag does not apply",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { results: [r] } = await runSuite({
      params: smallSuiteParams({ queueRttMs: [2] }),
      drivers: [inProcess],
      parallel: [1],
    });
    assert.equal(r.id, "in-process");
    assertExactAccounting(r, 24);
    assertOutcome(r, (r) => {
      assert.equal(r.deployment?.queueRttMs, null);
      assert.match(
        r.deployment?.notApplied?.queueRttMs ?? "",
        /in-process has no queue server/,
      );
      assert.equal(r.proxy, undefined);
      assert.equal(r.roundTripsPerDelivery, undefined);
    });
  },
});

Deno.test({
  name:
    "--cpus 1: the app on the first CPU, the server and the others on the rest, and the bench's CPUs back after",
  ignore: noRedis || allowedCpus().length < 2,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const before = allowedCpus();
    const services = new ServiceManager();
    try {
      const { results: [r] } = await runSuite({
        params: smallSuiteParams({ cpus: [1] }),
        drivers: [redis],
        parallel: [1],
        services,
      });
      assert.equal(r.id, "redis-cpu1");
      assertExactAccounting(r, 24);
      const rest = formatCpuList(before.slice(1));
      assertOutcome(r, (r) => {
        assert.equal(r.deployment?.cpus, 1);
        assert.deepEqual(r.deployment?.pinning, {
          app: `${before[0]}`,
          others: rest,
          server: rest,
        });
      });
      const [server] = services.startedPids();
      assert.deepEqual(allowedCpus(server), before.slice(1));
      assert.deepEqual(allowedCpus(), before);
    } finally {
      await services.stopAll();
    }
  },
});

for (const queueRttMs of [undefined, 2]) {
  Deno.test({
    name: "--worker-hosts 2" +
      (queueRttMs == null ? "" : ` --queue-rtt ${queueRttMs}`) +
      ": two workers, each in a network namespace of its own, deliver " +
      "everything once, and nothing is left",
    ignore: noRedis || noNamespaces,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const { results: [r] } = await runSuite({
        params: smallSuiteParams({
          workers: 2,
          workerHosts: [2],
          ...(queueRttMs == null ? {} : { queueRttMs: [queueRttMs] }),
        }),
        drivers: [redis],
        parallel: [1],
      });
      assert.equal(
        r.id,
        queueRttMs == null ? "redis-hosts2" : `redis-rtt${queueRttMs}-hosts2`,
      );
      assertExactAccounting(r, 24);
      assertOutcome(r, (r) => {
        assert.equal(r.deployment?.workerHosts, 2);
        assert.equal(r.deployment?.queueRttMs, queueRttMs ?? null);
        const addresses = r.deployment?.hostAddresses ?? [];
        assert.equal(addresses.length, 2);
        assert.notEqual(addresses[0], addresses[1]);
        const processes = r.processes ?? [];
        const workers = processes.filter((p) => p.role === "worker");
        assert.equal(workers.length, 2);
        // Each worker ran in a namespace of its own, not the bench's.
        const networks = workers.map((w) => w.network);
        assert.ok(networks.every((n) => /^net:\[\d+\]$/.test(n ?? "")));
        assert.notEqual(networks[0], networks[1]);
        for (const p of processes.filter((p) => p.role !== "worker")) {
          assert.equal(p.network, undefined, `${p.role} on the bench's host`);
        }
        if (queueRttMs != null) {
          assert.ok(r.proxy!.workers!.turns > 0);
          assert.ok(r.roundTripsPerDelivery!.dequeue! > 0);
        }
      });
      assert.deepEqual(await ownNamespaces(), []);
    },
  });
}

Deno.test({
  name:
    "--worker-hosts on a queue not shared across processes: the row runs on the bench's host and says the flag does not apply",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { results: [r] } = await runSuite({
      params: smallSuiteParams({ workerHosts: [2] }),
      drivers: [inProcess],
      parallel: [1],
    });
    assert.equal(r.id, "in-process");
    assertExactAccounting(r, 24);
    assertOutcome(r, (r) => {
      assert.equal(r.deployment?.workerHosts, null);
      assert.match(
        r.deployment?.notApplied?.workerHosts ?? "",
        /in-process's queue is not shared across processes/,
      );
      assert.ok((r.processes ?? []).every((p) => p.network == null));
    });
  },
});

Deno.test({
  name:
    "--worker-hosts without root: the rows are skipped with the reason and nothing is made",
  ignore: noRedis,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { results } = await runSuite({
      params: smallSuiteParams({ workerHosts: [2] }),
      drivers: [redis],
      parallel: [1],
      namespaceProbe: { uid: () => 1000, ip: () => "/sbin/ip" },
    });
    const [r] = results;
    assert.equal(r.id, "redis-hosts2");
    assert.equal(r.status, "skipped");
    assert.match(r.reason ?? "", /^network namespaces need root: .*uid 1000/);
    assert.equal(r.deployment?.workerHosts, 2);
    assert.deepEqual(await ownNamespaces(), []);
  },
});

Deno.test({
  name:
    "--worker-hosts: a row that fails once the hosts are made removes them, naming the fix",
  ignore: noRedis || noNamespaces,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // A driver whose prepared configuration hides the server's URL: the
    // workers' connections cannot be routed, after the hosts were made.
    const hidden = {
      ...redis,
      prepare: () =>
        Promise.resolve({ config: {}, cleanup: () => Promise.resolve() }),
    };
    const { results: [r] } = await runSuite({
      params: smallSuiteParams({ workers: 2, workerHosts: [2] }),
      drivers: [hidden],
      parallel: [1],
    });
    assert.equal(r.status, "failed");
    assert.match(
      r.reason ?? "",
      /--worker-hosts: the driver's prepared configuration holds no URL .* or drop --worker-hosts/,
    );
    assert.deepEqual(await ownNamespaces(), []);
  },
});

Deno.test({
  name:
    "--worker-hosts above --workers: no more hosts are made than there are workers",
  ignore: noRedis || noNamespaces,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { results: [r] } = await runSuite({
      params: smallSuiteParams({ workers: 1, workerHosts: [3] }),
      drivers: [redis],
      parallel: [1],
    });
    assertExactAccounting(r, 24);
    assertOutcome(r, (r) => {
      assert.equal(r.deployment?.workerHosts, 3);
      assert.equal(r.deployment?.hostAddresses?.length, 1);
      const [worker] = (r.processes ?? []).filter((p) => p.role === "worker");
      assert.match(worker.network ?? "", /^net:\[\d+\]$/);
    });
    assert.deepEqual(await ownNamespaces(), []);
  },
});
