/**
 * The suite's bookkeeping: which configurations it makes, their ids, and
 * what `--resume` keeps.
 */
import assert from "node:assert/strict";
import { builtinDrivers, findDriver } from "../../drivers/mod.ts";
import type { ResultsDocument, SuiteParams } from "../results/mod.ts";
import {
  configurationUnfit,
  expandConfigurations,
  idOf,
  suiteEntries,
} from "./configurations.ts";
import { LOAD_PARAMS } from "../testing/load_fixtures.ts";
import { runSuite } from "./suite.ts";
import { planRounds } from "./order.ts";

const drivers = ["none", "redis"].map((n) => findDriver(builtinDrivers, n)!);

Deno.test("expandConfigurations: baseline first, none once, queues per level", () => {
  const ids = expandConfigurations(drivers, [1, 4], true).map((c) => idOf(c));
  assert.deepEqual(ids, [
    "baseline",
    "baseline-x4",
    "none",
    "redis",
    "redis-x4",
  ]);
});

Deno.test("expandConfigurations: each runtime repeats the suite, its rows named by it; Deno's keep their names", () => {
  const configurations = expandConfigurations(
    drivers,
    [1, 4],
    true,
    undefined,
    ["fedify"],
    ["deno", "node"],
  );
  assert.deepEqual(configurations.map((c) => idOf(c)), [
    "baseline",
    "baseline-x4",
    "none",
    "redis",
    "redis-x4",
    "baseline-node",
    "baseline-x4-node",
    "none-node",
    "redis-node",
    "redis-x4-node",
  ]);
  assert.equal(configurations[0].runtime, undefined);
  assert.equal(configurations[5].runtime, "node");
});

Deno.test("under steady load each runtime gets its own load generator row, first", () => {
  const configurations = expandConfigurations(
    drivers,
    [1],
    false,
    undefined,
    ["fedify"],
    ["deno", "node", "bun"],
  );
  const entries = suiteEntries(
    configurations,
    {
      load: { ...LOAD_PARAMS, rates: [], senders: [], idleSeconds: undefined },
    } as unknown as SuiteParams,
  );
  assert.deepEqual(entries.map((e) => e.id), [
    "generator",
    "generator-node",
    "generator-bun",
    "none-max-rate",
    "redis-max-rate",
    "none-node-max-rate",
    "redis-node-max-rate",
    "none-bun-max-rate",
    "redis-bun-max-rate",
  ]);
  assert.deepEqual(
    entries.slice(0, 3).map((e) => e.configuration.runtime ?? "deno"),
    ["deno", "node", "bun"],
  );
});

Deno.test("expandConfigurations: each host count repeats the queues with separate workers, after the round trip in ids", () => {
  const sqlite = findDriver(builtinDrivers, "sqlite")!;
  const inProcess = findDriver(builtinDrivers, "in-process")!;
  const configurations = expandConfigurations(
    [...drivers, sqlite, inProcess],
    [1],
    true,
    undefined,
    ["fedify"],
    ["deno"],
    { cpus: [1], queueRttMs: [5], workerHosts: [1, 2] },
  );
  assert.deepEqual(configurations.map((c) => idOf(c)), [
    // The baseline, none and in-process have no separate workers: the
    // hosts do not multiply them.  sqlite's file is shared across
    // processes, so its workers can move (it has no server to delay).
    "baseline-cpu1",
    "none-cpu1",
    "redis-cpu1-rtt5-hosts1",
    "redis-cpu1-rtt5-hosts2",
    "sqlite-cpu1-hosts1",
    "sqlite-cpu1-hosts2",
    "in-process-cpu1",
  ]);
  assert.equal(configurations[3].workerHosts, 2);
  assert.equal(configurations[6].workerHosts, undefined);
});

Deno.test("expandConfigurations: each core count repeats the suite, each round trip the queues with a server; ids name both", () => {
  const sqlite = findDriver(builtinDrivers, "sqlite")!;
  const configurations = expandConfigurations(
    [...drivers, sqlite],
    [1, 4],
    true,
    undefined,
    ["fedify"],
    ["deno"],
    { cpus: [1, 2], queueRttMs: [0, 5] },
  );
  const ids = configurations.map((c) => idOf(c));
  assert.deepEqual(ids, [
    // The baseline, the queue-less none and sqlite have no queue server:
    // the round trips do not multiply them.
    "baseline-cpu1",
    "baseline-x4-cpu1",
    "none-cpu1",
    "redis-cpu1-rtt0",
    "redis-cpu1-rtt5",
    "redis-x4-cpu1-rtt0",
    "redis-x4-cpu1-rtt5",
    "sqlite-cpu1",
    "sqlite-x4-cpu1",
    "baseline-cpu2",
    "baseline-x4-cpu2",
    "none-cpu2",
    "redis-cpu2-rtt0",
    "redis-cpu2-rtt5",
    "redis-x4-cpu2-rtt0",
    "redis-x4-cpu2-rtt5",
    "sqlite-cpu2",
    "sqlite-x4-cpu2",
  ]);
  assert.equal(configurations[3].queueRttMs, 0);
  assert.equal(configurations[7].queueRttMs, undefined);
  // Without the flags, nothing changes.
  assert.deepEqual(
    expandConfigurations(drivers, [1], false, undefined, ["fedify"], [
      "deno",
    ], {}).map((c) => idOf(c)),
    ["none", "redis"],
  );
  // Under steady load, one load generator row per runtime and core count.
  const entries = suiteEntries(
    expandConfigurations(drivers, [1], false, undefined, ["fedify"], [
      "deno",
      "node",
    ], { cpus: [1, 2] }),
    {
      load: { ...LOAD_PARAMS, rates: [], senders: [], idleSeconds: undefined },
    } as unknown as SuiteParams,
  );
  assert.deepEqual(
    entries.filter((e) => e.configuration.generator).map((e) => e.id),
    [
      "generator-cpu1",
      "generator-cpu2",
      "generator-node-cpu1",
      "generator-node-cpu2",
    ],
  );
});

Deno.test("a queue that runs on Deno only is unfit on Node.js and Bun, with its reason", () => {
  const denoKv = findDriver(builtinDrivers, "deno-kv")!;
  assert.equal(
    configurationUnfit({ driver: denoKv, parallelism: 1 }, undefined),
    null,
  );
  for (const runtime of ["node", "bun"] as const) {
    assert.match(
      configurationUnfit(
        { driver: denoKv, parallelism: 1, runtime },
        undefined,
      ) ?? "",
      new RegExp(`^runs on deno only, not ${runtime}: .*Deno\\.openKv`),
    );
  }
  // A queue of the npm registry runs everywhere.
  const redis = findDriver(builtinDrivers, "redis")!;
  assert.equal(
    configurationUnfit(
      { driver: redis, parallelism: 1, runtime: "bun" },
      undefined,
    ),
    null,
  );
});

Deno.test("expandConfigurations: swept axes multiply every configuration", () => {
  const axes = { fanout: ["auto", "skip"] as const, rsaBits: [2048, 4096] };
  const ids = expandConfigurations(drivers, [1], true, {
    fanout: [...axes.fanout],
    rsaBits: axes.rsaBits,
  }).map((c) => idOf(c, { fanout: [...axes.fanout], rsaBits: axes.rsaBits }));
  assert.deepEqual(ids, [
    // The baseline does not call sendActivity: fanout does not apply.
    "baseline-rsa2048",
    "baseline-rsa4096",
    "none-fanout-auto-rsa2048",
    "none-fanout-skip-rsa2048",
    "none-fanout-auto-rsa4096",
    "none-fanout-skip-rsa4096",
    "redis-fanout-auto-rsa2048",
    "redis-fanout-skip-rsa2048",
    "redis-fanout-auto-rsa4096",
    "redis-fanout-skip-rsa4096",
  ]);
});

Deno.test("crash tests skip configurations with nothing to crash", () => {
  const sqlite = findDriver(builtinDrivers, "sqlite")!;
  const [baseline, none, redis] = expandConfigurations(drivers, [1], true);
  const [local] = expandConfigurations([sqlite], [1]);
  const worker = { workerAt: 0.5 };
  const server = { serverAt: 0.5 };
  assert.equal(configurationUnfit(redis, undefined), null);
  assert.equal(configurationUnfit(redis, worker), null);
  assert.equal(configurationUnfit(redis, server), null);
  assert.equal(configurationUnfit(local, worker), null);
  assert.match(
    configurationUnfit(baseline, worker)!,
    /--crash-worker-at: .*no queue/,
  );
  assert.match(
    configurationUnfit(none, worker)!,
    /no queue, so a crash has nothing/,
  );
  assert.match(
    configurationUnfit(none, server)!,
    /--crash-server-at: .*no queue/,
  );
  assert.match(configurationUnfit(local, server)!, /no queue server to crash/);
});

const params: SuiteParams = {
  total: 2,
  recipients: 6,
  fanout: "auto",
  rsaBits: 2048,
  timeoutSeconds: 60,
  stallTimeoutSeconds: 10,
};

Deno.test({
  name:
    "--resume keeps ok results with the same parameters and reruns the rest",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const none = findDriver(builtinDrivers, "none")!;
    const inProcess = findDriver(builtinDrivers, "in-process")!;
    const first = await runSuite({
      params,
      drivers: [none, inProcess],
      parallel: [1],
    });
    assert.deepEqual(first.results.map((r) => r.status), ["ok", "ok"]);
    // Pretend in-process had failed: it must run again, none must not.
    const previous: ResultsDocument = {
      ...first,
      results: [
        first.results[0],
        { ...first.results[1], status: "failed", reason: "pretend" },
      ],
    };
    const resumed = await runSuite({
      params,
      drivers: [none, inProcess],
      parallel: [1],
      resumeFrom: previous,
    });
    assert.deepEqual(resumed.results[0], first.results[0], "none was kept");
    assert.equal(resumed.results[1].status, "ok", "in-process ran again");
    assert.notDeepEqual(
      resumed.results[1].processes,
      first.results[1].processes,
      "with new processes",
    );
    // Other parameters: nothing is kept.
    const other = await runSuite({
      params: { ...params, recipients: 7 },
      drivers: [none],
      parallel: [1],
      resumeFrom: first,
    });
    assert.equal(other.results[0].expected, 14);
    assert.notDeepEqual(other.results[0].processes, first.results[0].processes);
  },
});

Deno.test({
  name:
    "rounds: every first run before any second, in the order the seed gives; results keep the configurations' order",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const chosen = ["none", "in-process"].map((n) =>
      findDriver(builtinDrivers, n)!
    );
    const ids = ["baseline", "none", "in-process"];
    // Every round in the seed's order, no row pinned.
    const plan = (seed: number) => planRounds(ids, 2, seed);
    // A seed whose rounds differ from each other and from the given order.
    const seed = [...Array(50).keys()].find((s) => {
      const [a, b] = plan(s);
      return a.join() !== ids.join() && a.join() !== b.join();
    })!;
    const document = await runSuite({
      params: { ...params, runs: 2, orderSeed: seed },
      drivers: chosen,
      parallel: [1],
      baseline: true,
    });
    assert.equal(document.params.orderSeed, seed);
    assert.deepEqual(document.rounds, plan(seed));
    assert.equal(document.params.budgetSeconds, undefined);
    assert.deepEqual(document.results.map((r) => r.id), ids);
    for (const r of document.results) {
      assert.equal(r.status, "ok", r.id);
      assert.equal(r.runs?.length, 2, r.id);
    }
  },
});
