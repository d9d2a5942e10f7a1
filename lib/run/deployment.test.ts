/**
 * A run's deployment end to end: a queue server behind the delay proxies
 * (`--queue-rtt`), a queue without a server that says the flag does not
 * apply, and the app pinned to fewer cores (`--cpus`) with the server and
 * the others on the rest.  Only lower bounds of time are asserted.
 */
import assert from "node:assert/strict";
import { builtinDrivers, findDriver } from "../../drivers/mod.ts";
import {
  allowedCpus,
  formatCpuList,
  redisService,
  ServiceManager,
} from "../services/mod.ts";
import {
  assertExactAccounting,
  assertOutcome,
  smallSuiteParams,
} from "../testing/mod.ts";
import { noneDriver } from "../../drivers/none.ts";
import { deploymentRecord } from "./deployment.ts";
import { runSuite } from "./suite.ts";

const noRedis = !new ServiceManager().availability(redisService).available;
const redis = findDriver(builtinDrivers, "redis")!;
const inProcess = findDriver(builtinDrivers, "in-process")!;

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
