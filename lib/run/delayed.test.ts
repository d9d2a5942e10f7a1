/**
 * `--inbox-dead-rate` end to end on small runs through real Fedify: the
 * healthy deliveries are all that is expected, the dead inboxes are
 * attempted, and retries and the circuit breaker build a delayed backlog,
 * read from `getDepth()` (Fedify's in-process queue) or from the bench's
 * own count (a queue without `getDepth()`).
 */
import assert from "node:assert/strict";
import { inProcessDriver } from "../../drivers/in_process/in_process.ts";
import { loadDrivers } from "../../drivers/mod.ts";
import { runSuite } from "./suite.ts";
import { assertExactAccounting, smallSuiteParams } from "../testing/runs.ts";
import { INSTANT_INBOX } from "../params/mod.ts";

const known = new URL("../testing/depth_drivers.ts", import.meta.url).href;

Deno.test({
  name: "dead inboxes build a delayed backlog while healthy deliveries finish",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const none = (await loadDrivers([known])).find((d) =>
      d.name === "test-depth-none"
    )!;
    const { results } = await runSuite({
      params: smallSuiteParams({
        total: 6,
        inbox: { ...INSTANT_INBOX, deadRate: 0.5 },
      }),
      drivers: [inProcessDriver, none],
      parallel: [1],
      driverModules: [known],
    });
    for (const r of results) {
      // 6 activities × 3 healthy recipients of 6.
      assertExactAccounting(r, 18);
      const d = r.delayed!;
      assert.equal(d.inboxDeadRate, 0.5);
      assert.equal(d.deadRecipients, 3);
      assert.ok(d.deadAttempts >= 3, `${r.id}: ${d.deadAttempts}`);
      // Every failed attempt is retried with a delay (or held by the
      // circuit breaker), so some delayed message was waiting.
      assert.ok(d.peakDelayedBacklogBench > 0, r.id);
      assert.ok(d.peakDelayedBacklog! > 0, r.id);
      assert.ok(d.series.length > 0, r.id);
      const seriesPeak = Math.max(...d.series.map(([, n]) => n));
      assert.ok(seriesPeak <= d.peakDelayedBacklog!, r.id);
      assert.ok(d.series.every(([t], i) => i === 0 || t > d.series[i - 1][0]));
      assert.equal(d.healthyDeliveriesPerSecond, r.deliveriesPerSecond);
      assert.deepEqual(d.healthyLatencyMs, r.latencyMs);
    }
    assert.equal(results[0].delayed!.delayedSource, "getDepth");
    // From getDepth(), the series is the samples, so its peak is the peak.
    const sampled = results[0].delayed!;
    assert.equal(
      Math.max(...sampled.series.map(([, n]) => n)),
      sampled.peakDelayedBacklog,
    );
    assert.equal(results[1].delayed!.delayedSource, "bench");
  },
});
