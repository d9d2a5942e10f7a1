/**
 * Order violations counted end to end: real Fedify, a real inbox process,
 * a queue that reverses on purpose (known violations) and Fedify's
 * in-process queue with ordering keys (none).
 */
import assert from "node:assert/strict";
import {
  builtinDrivers,
  inProcessDriver,
  loadDrivers,
} from "../../drivers/mod.ts";
import type { SuiteParams } from "../results/mod.ts";
import { withEnv } from "../testing/mod.ts";
import { runSuite } from "./suite.ts";
import { orderingSupport } from "./ordering_outcome.ts";

const reordering = new URL("../testing/reordering_driver.ts", import.meta.url)
  .href;

const params: SuiteParams = {
  total: 6,
  recipients: 2,
  fanout: "auto",
  rsaBits: 2048,
  timeoutSeconds: 60,
  stallTimeoutSeconds: 20,
  workload: "cud",
};

Deno.test({
  name: "a queue that reverses each note's steps: every violation counted, " +
    "with and without keys, never shown as supported",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const drivers = (await loadDrivers([reordering])).filter((d) =>
      d.name === "test-reversing"
    );
    const { results } = await runSuite({
      params: {
        ...params,
        axes: {
          fanout: ["auto"],
          rsaBits: [2048],
          orderingKey: ["none", "object"],
        },
      },
      drivers,
      parallel: [1],
      driverModules: [reordering],
    });
    assert.deepEqual(results.map((r) => r.id), [
      "test-reversing-key-none",
      "test-reversing-key-object",
    ]);
    for (const r of results) {
      assert.equal(r.status, "ok", r.reason ?? "");
      assert.equal(r.delivered, 12);
      // 2 notes × 2 recipients, each getting Delete, Update, Create: the
      // Update and the Create arrive after a later step.
      assert.deepEqual(r.ordering, {
        key: r.orderingKey,
        supported: false,
        note: "test: reverses groups on purpose",
        violations: 8,
      });
    }
  },
});

Deno.test({
  name: "in-process with --ordering-key object: no violations",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { results: [r] } = await runSuite({
      params: { ...params, total: 9, recipients: 6, orderingKey: "object" },
      drivers: [inProcessDriver],
      parallel: [1],
    });
    assert.equal(r.status, "ok", r.reason ?? "");
    assert.equal(r.delivered, 54);
    assert.equal(r.ordering?.key, "object");
    assert.equal(r.ordering?.supported, true);
    assert.equal(r.ordering?.violations, 0);
  },
});

Deno.test("Fedify's ParallelMessageQueue does not keep a key's order; the awaiting wrapper keeps the queue's", () => {
  const x4 = { driver: inProcessDriver, parallelism: 4 };
  assert.equal(
    orderingSupport({ driver: inProcessDriver, parallelism: 1 }).supported,
    true,
  );
  assert.equal(orderingSupport(x4).supported, false);
  assert.match(orderingSupport(x4).note, /ParallelMessageQueue/);
  assert.equal(
    orderingSupport({ ...x4, parallelImpl: "awaiting" }).supported,
    true,
  );
  assert.equal(
    orderingSupport({
      ...x4,
      driver: { ...inProcessDriver, ordering: undefined },
    })
      .note,
    "not declared by the driver (its `ordering` field)",
  );
});

Deno.test("every built-in driver declares whether it honours orderingKey; packages that predate it say so", async () => {
  const common = [
    "none",
    "in-process",
    "deno-kv",
    "deno-kv-single",
    "deno-kv-fifo",
    "deno-kv-single-fifo",
    "deno-kv-standin",
    "deno-kv-single-standin",
  ];
  const rest = [
    "amqp-ordered",
    "sqlite",
    "sqlite-poll1s",
    "sqlite-lock-in-dequeue",
    "mysql",
    "mysql-poll200ms",
  ];
  // Without a Fedify source tree, Redis and PostgreSQL are 1.8.7.
  await withEnv({ FEDIFY_SOURCE: undefined }, () => {
    for (const driver of builtinDrivers) {
      assert.ok(driver.ordering != null, `${driver.name} declares ordering`);
    }
    const honours = builtinDrivers.filter((d) => d.ordering!.supported)
      .map((d) => d.name);
    assert.deepEqual(honours, [...common, ...rest]);
    for (const driver of builtinDrivers) {
      if (/^(redis|postgres)/.test(driver.name)) {
        assert.match(
          driver.ordering!.note,
          /^not supported by the installed version/,
        );
      }
    }
  });
  // With one, those that follow it run 2.x, which takes a lock per key;
  // the 1.8.7 variants and the hand-made index stay on 1.8.7.
  await withEnv({ FEDIFY_SOURCE: "/nonexistent-fedify" }, () => {
    const honours = builtinDrivers.filter((d) => d.ordering!.supported)
      .map((d) => d.name);
    assert.deepEqual(honours, [
      ...common,
      "redis",
      "redis-rdb",
      "redis-aof",
      "redis-limit1",
      "postgres",
      ...rest,
    ]);
    for (const name of ["redis-1.8.7", "postgres-1.8.7", "postgres-indexed"]) {
      const driver = builtinDrivers.find((d) => d.name === name)!;
      assert.match(
        driver.ordering!.note,
        /^not supported by the installed version/,
      );
    }
  });
});
