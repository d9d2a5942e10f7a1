/**
 * The dequeue costs per message waiting are the slopes `deno task
 * dequeue-cost` fitted in the published results/dequeue-cost.
 */
import assert from "node:assert/strict";
import { DEQUEUE_MS_PER_QUEUED, dequeueMsPerQueued } from "./backlog_cost.ts";

const FILE = new URL("../../results/dequeue-cost/latest.json", import.meta.url);

Deno.test("each cost is the published fit's slope, to 4 significant digits", async () => {
  const document = JSON.parse(await Deno.readTextFile(FILE)) as {
    fits: { driver: string; slopeMs: number }[];
  };
  for (
    const [key, { ms, measuredAs }] of Object.entries(DEQUEUE_MS_PER_QUEUED)
  ) {
    const fit = document.fits.find((f) => f.driver === measuredAs);
    assert.ok(fit != null, `${key}: no fit for ${measuredAs}`);
    assert.equal(Number(fit.slopeMs.toPrecision(4)), ms, key);
  }
});

Deno.test("which versions read their backlog", () => {
  assert.equal(dequeueMsPerQueued("redis", "2.3.5"), 0.004764);
  assert.equal(dequeueMsPerQueued("redis", "1.8.7"), 0.005643);
  assert.equal(dequeueMsPerQueued("redis", "2.4.0"), 0.004764);
  assert.equal(dequeueMsPerQueued("redis", "1.9.0"), 0.005643);
  assert.equal(dequeueMsPerQueued("postgres", "1.8.7"), 0.0001049);
  // PostgreSQL 2.x indexes its table: no backlog cost.
  assert.equal(dequeueMsPerQueued("postgres", "2.3.5"), null);
  assert.equal(dequeueMsPerQueued("redis", null), null);
});
