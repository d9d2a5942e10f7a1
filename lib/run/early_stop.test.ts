/**
 * The budget's early stop and its estimate, end to end, with a queue whose
 * speed is known by construction (`lib/testing/paced_driver.ts`).
 */
import assert from "node:assert/strict";
import { loadDrivers } from "../../drivers/mod.ts";
import { PACED_INTERVAL_MS } from "../testing/paced_driver.ts";
import { survivors } from "../testing/mod.ts";
import { runSuite } from "./suite.ts";

const paced = new URL("../testing/paced_driver.ts", import.meta.url).href;

Deno.test({
  name: "a row that cannot finish within its budget stops early with an " +
    "estimate near its known finish",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // 75 activities × 4 recipients (below Fedify's fanout threshold): 300
    // deliveries, one every 100 ms: 30 s by construction.
    const total = 75;
    const recipients = 4;
    const known = total * recipients * PACED_INTERVAL_MS / 1000;
    // Clearly beyond: even with the rest taking 0.45 of its estimate it
    // would end past 1.5 × 8 s from the start (0.55 t + 13.5 s).
    const budgetSeconds = 8;
    const drivers = await loadDrivers([paced]);
    const { results: [r], params } = await runSuite({
      params: {
        total,
        recipients,
        fanout: "auto",
        rsaBits: 2048,
        timeoutSeconds: 120,
        stallTimeoutSeconds: 30,
        budgetSeconds,
      },
      drivers: drivers.filter((d) => d.name === "test-paced"),
      parallel: [1],
      driverModules: [paced],
    });
    assert.equal(params.budgetSeconds, budgetSeconds);
    assert.equal(r.status, "incomplete", r.reason ?? "");
    assert.match(r.reason!, /cannot finish within 1\.5× the budget of 8 s/);
    // Stopped before the budget ran out, by its estimate.
    assert.ok(r.elapsedSeconds! < budgetSeconds, `${r.elapsedSeconds} s`);
    assert.ok(r.delivered > 0 && r.delivered < r.expected);
    assert.equal(r.totalSeconds, null, "no measured total");
    // Four recipients: Fedify sends without a fanout message.
    assert.equal(r.filledAtSeconds, undefined);
    const estimate = r.estimate;
    assert.ok(estimate != null, "an estimate");
    assert.equal(estimate.stoppedBy, "budget");
    assert.match(estimate.basis, /of 300 delivered in/);
    const error = Math.abs(estimate.totalSeconds / known - 1);
    assert.ok(
      error <= 0.25,
      `estimate ${estimate.totalSeconds} s against the known ${known} s`,
    );
    assert.ok(estimate.settled);
    assert.ok(estimate.lowSeconds > 1.5 * budgetSeconds);
    assert.deepEqual(await survivors(r.processes.map((p) => p.pid)), []);
  },
});
