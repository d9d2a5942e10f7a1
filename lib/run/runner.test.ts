/**
 * The runner's bounded waiting and cleanup, with drivers that misbehave on
 * purpose (loaded as a user driver module, as `--driver-module` would).
 */
import assert from "node:assert/strict";
import { loadDrivers } from "../../drivers/mod.ts";
import type { SuiteParams } from "../results/mod.ts";
import { runSuite } from "./suite.ts";
import { survivors } from "../testing/mod.ts";

const faulty = new URL("../testing/faulty_drivers.ts", import.meta.url).href;

const params: SuiteParams = {
  total: 3,
  recipients: 6,
  fanout: "auto",
  rsaBits: 2048,
  timeoutSeconds: 60,
  stallTimeoutSeconds: 2,
};

async function run(names: string[], overrides: Partial<SuiteParams> = {}) {
  const drivers = (await loadDrivers([faulty])).filter((d) =>
    names.includes(d.name)
  );
  return await runSuite({
    params: { ...params, ...overrides },
    drivers,
    parallel: [1],
    driverModules: [faulty],
  });
}

Deno.test({
  name: "a queue that never delivers is stopped as incomplete, with no times",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { results: [r] } = await run(["test-blackhole"]);
    assert.equal(r.status, "incomplete");
    assert.match(r.reason!, /stalled: no new delivery for 2 s/);
    assert.equal(r.delivered, 0);
    assert.equal(r.missing, 18);
    assert.equal(r.filledAtSeconds, null, "no fanout was ever handled");
    assert.equal(r.receiveSeconds, null);
    assert.equal(r.totalSeconds, null);
    assert.ok(r.sendSeconds != null, "the send loop itself finished");
    assert.deepEqual(await survivors(r.processes.map((p) => p.pid)), []);
  },
});

Deno.test({
  name: "a queue still working before its first delivery has not stalled",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // Its fanout handlers enqueue for about 4 s and it delivers from 5 s
    // on, against a stall window of 2 s: its stage timings show the work.
    const { results: [r] } = await run(["test-slow-fanout"]);
    assert.equal(r.status, "ok", r.reason ?? "");
    assert.equal(r.delivered, 18);
    assert.ok(r.totalSeconds! >= 5, `${r.totalSeconds} s`);
    // Its queue filled once the three fanouts had enqueued their 18
    // deliveries, 300 ms apart: seconds in.
    const filled = r.filledAtSeconds;
    assert.ok(filled != null && filled >= 3, `filled at ${filled} s`);
    assert.deepEqual(await survivors(r.processes.map((p) => p.pid)), []);
  },
});

Deno.test({
  name: "a run cut off by the time limit says so and reports its progress",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { results: [r] } = await run(["test-blackhole"], {
      stallTimeoutSeconds: 60,
      timeoutSeconds: 1,
    });
    assert.equal(r.status, "incomplete");
    assert.match(r.reason!, /timed out after 1 s/);
    assert.equal(r.totalSeconds, null);
    assert.deepEqual(await survivors(r.processes.map((p) => p.pid)), []);
  },
});

Deno.test({
  name: "a worker that dies fails the configuration and nothing is left",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { results: [r] } = await run(["test-crashing-worker"]);
    assert.equal(r.status, "failed");
    assert.match(r.reason!, /worker process exited with code 3/);
    assert.equal(r.receiveSeconds, null);
    assert.ok(r.processes.some((p) => p.role === "inbox"));
    assert.deepEqual(await survivors(r.processes.map((p) => p.pid)), []);
  },
});
