/**
 * Every built-in driver, end to end: real Fedify, real HTTP, real servers
 * (throwaway ones, or REDIS_URL / POSTGRES_URL / AMQP_URL / MYSQL_URL when
 * set), in both of Fedify's delivery paths, with exact accounting and no
 * process left behind.  A driver whose queue delivers at least once
 * (`delivery: "at-least-once"`) must deliver everything, and its duplicates
 * are reported instead of failing the test, up to one per expected delivery
 * (more, each delivery handled over twice on average, is a bug).
 *
 * A worker that sees another process's messages only at a poll of a minute
 * or more (`deno-kv` on a local Deno KV) is not made to wait it out: its run
 * replaces the worker once sending is over (a worker crash at 0 % of the
 * deliveries), and the new worker starts on the messages already in the
 * queue, which it drains at once.  The poll itself has its own focused test
 * beside the stand-in (`drivers/deno_kv/denokv_standin.test.ts`).
 *
 * Each path runs at ×1 and ×4 (the parallel wrapper around the same queue)
 * when the driver opens a queue of its own.  With a Fedify source tree
 * (`FEDIFY_SOURCE`, as CI sets it where `shared/` has Fedify 2.3.5), the
 * drivers that follow it must have run the tree's code: their rows say
 * `origin: "fedify-source"` with the tree's version.  A
 * driver out of the default suite (an ablation or a persistence mode: the
 * queue of a default driver with one change, which its own test shows) runs
 * once, on the fanout path at ×1: the rest is its base driver's.
 *
 * The default suite's drivers run the same round trips with the app on
 * Node.js and Bun (`--runtime`) where this machine can install them
 * (`lib/testing/runtimes.ts` says why not where it cannot); a driver whose
 * queue runs on Deno only is skipped there, with its reason.
 *
 * These are minutes of tests: `deno task test` shares them between its two
 * processes (`shardedTest`, lib/testing/shards.ts), so every test here is
 * registered through it.  The round trips of one server run in one of them
 * and share the server (`SharedServers`), as a suite's configurations do:
 * it starts once, and the last of its tests stops it and checks it gone.
 */
import assert from "node:assert/strict";
import { ServiceManager } from "../lib/services/mod.ts";
import { driverAvailability } from "../lib/run/configurations.ts";
import { runSuite } from "../lib/run/suite.ts";
import {
  assertOutcome,
  smallSuiteParams,
  survivors,
  withLogDir,
} from "../lib/testing/mod.ts";
import { builtinDrivers } from "./mod.ts";
import { runtimesHere } from "../lib/testing/runtimes.ts";
import { SharedServers } from "../lib/testing/servers.ts";
import { shardedTest } from "../lib/testing/shards.ts";
import {
  FedifySource,
  SOURCE_PACKAGES,
  type SourcePackage,
} from "./packages.ts";

/**
 * A cross-process poll this long or longer (a driver's quiet period) is not
 * waited out: the worker is replaced once sending is over instead.
 */
const SLOW_POLL_SECONDS = 30;

/** The drivers that run a given Fedify source tree's package. */
const FOLLOWS_SOURCE = [
  "redis",
  "postgres",
  "amqp",
  "deno-kv",
  "deno-kv-single",
  "sqlite",
];

const source = FedifySource.fromEnv();
const versions = new Map<string, string>();
if (source != null) {
  for (const name of SOURCE_PACKAGES) {
    versions.set(name, await source.version(name));
  }
}

const runtimes = await runtimesHere();
const shared = new SharedServers();

for (const runtime of runtimes) {
  for (const driver of builtinDrivers) {
    const onDeno = runtime === "deno";
    if (!onDeno && driver.suite === "named") continue;
    const suffix = onDeno ? "" : `-${runtime}`;
    const unavailable = await driverAvailability(driver, new ServiceManager());
    if (driver.runtimes != null && !driver.runtimes.includes(runtime)) {
      shardedTest({
        name: `${driver.name} on ${runtime}: skipped, with its reason`,
        ignore: !unavailable.available,
        sanitizeResources: false,
        sanitizeOps: false,
        async fn() {
          const document = await runSuite({
            params: smallSuiteParams({ runtime: [runtime] }),
            drivers: [driver],
            parallel: [1],
          });
          const [r] = document.results;
          assert.equal(r.id, `${driver.name}${suffix}`);
          assert.equal(r.status, "skipped");
          assert.match(r.reason ?? "", new RegExp(`not ${runtime}`));
        },
      });
      continue;
    }
    const atLeastOnce = driver.delivery === "at-least-once";
    const startsOnBacklog = driver.crossProcess && driver.open != null &&
      (driver.quietPeriodSeconds ?? 0) >= SLOW_POLL_SECONDS;
    const variant = driver.suite === "named";
    const levels = driver.open != null && !variant ? [1, 4] : [1];
    const paths: [string, number, number[]][] = variant
      ? [["fanout", 6, [1]]]
      : [["fanout", 6, levels], ["direct", 3, levels]];
    const fromSource = source != null && FOLLOWS_SOURCE.includes(driver.name);
    if (source != null && driver.name === "amqp-defaults") continue;
    // Fedify fans out (one message per activity, expanded by a worker) from 5
    // inboxes on; below that, the sender enqueues one message per inbox.  One
    // test per path, so that each stays short.
    for (const [path, recipients, parallel] of paths) {
      const here = shardedTest({
        name: `${driver.name}${onDeno ? "" : ` on ${runtime}`}, ${
          path === "fanout" ? "with" : "without"
        } fanout: every delivery arrives ${
          atLeastOnce ? "at least once" : "exactly once"
        }${
          startsOnBacklog
            ? ", to a worker that starts on the queued messages"
            : ""
        }`,
        ignore: !unavailable.available,
        sanitizeResources: false,
        sanitizeOps: false,
        async fn(t) {
          const services = shared.manager(driver.service);
          const pids: number[] = [];
          let kept: number[] = [];
          try {
            {
              await t.step(
                `${path}: ${recipients} recipients at ${
                  parallel.map((n) => `×${n}`).join(" and ")
                }`,
                () =>
                  withLogDir(async (logDir) => {
                    const document = await runSuite({
                      params: smallSuiteParams({
                        recipients,
                        ...(startsOnBacklog ? { crash: { workerAt: 0 } } : {}),
                        ...(onDeno ? {} : { runtime: [runtime] }),
                      }),
                      drivers: [driver],
                      parallel,
                      services,
                      logDir,
                    });
                    const expectedIds = parallel.map((n) =>
                      (n === 1 ? driver.name : `${driver.name}-x${n}`) + suffix
                    );
                    assert.deepEqual(
                      document.results.map((r) => r.id),
                      expectedIds,
                    );
                    for (const result of document.results) {
                      pids.push(...result.processes.map((p) => p.pid));
                      assertOutcome(result, (r) => {
                        assert.equal(r.status, "ok", `${r.id}: ${r.reason}`);
                        assert.equal(r.expected, 4 * recipients, r.id);
                        assert.equal(r.delivered, r.expected, r.id);
                        assert.equal(r.missing, 0, r.id);
                        if (!atLeastOnce) assert.equal(r.duplicates, 0, r.id);
                        else {
                          assert.ok(
                            r.duplicates <= r.expected,
                            `${r.id}: ${r.duplicates} duplicates for ${r.expected} ` +
                              "deliveries, over twice each on average: a bug, not " +
                              "at-least-once delivery",
                          );
                          if (r.duplicates > 0) {
                            console.log(
                              `${r.id}: ${r.duplicates} duplicate deliveries ` +
                                `(the queue delivers at least once)`,
                            );
                          }
                        }
                        assert.equal(r.unexpected, 0, r.id);
                        assert.equal(r.runtime?.name, runtime, r.id);
                        if (fromSource) {
                          const name = r.implementation!.specifier
                            .replace("@fedify/", "") as SourcePackage;
                          assert.equal(
                            r.implementation?.origin,
                            "fedify-source",
                            r.id,
                          );
                          assert.equal(
                            r.implementation?.version,
                            versions.get(name),
                            r.id,
                          );
                        }
                        assert.equal(r.sendErrors, 0, r.id);
                        assert.ok(
                          r.sendSeconds! > 0 && r.receiveSeconds! >= 0,
                          r.id,
                        );
                        assert.ok(r.totalSeconds! >= r.receiveSeconds!, r.id);
                        const roles = r.processes.map((p) => p.role).sort();
                        const server = r.server?.startedByBench
                          ? ["server"]
                          : [];
                        const workers = startsOnBacklog
                          ? ["worker", "worker"] // the first, and its replacement
                          : ["worker"];
                        const expectedRoles =
                          driver.crossProcess && driver.open != null
                            ? ["inbox", "sender", ...server, ...workers]
                            : ["inbox", "sender", ...server];
                        if (startsOnBacklog) {
                          assert.equal(r.crashes?.length, 1, r.id);
                          assert.equal(r.lost, 0, r.id);
                        }
                        assert.deepEqual(roles, expectedRoles.sort(), r.id);
                      });
                    }
                  }),
              );
            }
          } finally {
            kept = await shared.release(driver.service);
          }
          // The server kept for this process's next test of it is checked
          // by the test that stops it.
          assert.deepEqual(
            await survivors(pids.filter((pid) => !kept.includes(pid))),
            [],
            "no process outlives the runs",
          );
        },
      }, driver.service?.name);
      if (here && unavailable.available) shared.expect(driver.service);
    }
  }
}

shardedTest({
  name:
    "amqp-defaults on Fedify's own source (nativeRetrial: false): the second acknowledgement closes the channel and deliveries stop (Finding 1)",
  ignore: source == null ||
    !(await driverAvailability(
      builtinDrivers.find((d) => d.name === "amqp-defaults")!,
      new ServiceManager(),
    )).available,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const driver = builtinDrivers.find((d) => d.name === "amqp-defaults")!;
    const services = new ServiceManager();
    try {
      await withLogDir(async (logDir) => {
        const document = await runSuite({
          params: smallSuiteParams({ recipients: 6, stallTimeoutSeconds: 10 }),
          drivers: [driver],
          parallel: [1],
          services,
          logDir,
        });
        const [r] = document.results;
        assertOutcome(r, (r) => {
          assert.equal(r.implementation?.origin, "fedify-source");
          assert.notEqual(r.status, "ok", r.id);
          assert.ok(r.delivered < r.expected, `${r.delivered}/${r.expected}`);
        });
      });
    } finally {
      await services.stopAll();
    }
  },
});
