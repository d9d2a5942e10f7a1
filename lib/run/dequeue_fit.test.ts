/**
 * The pure parts of `deno task dequeue-cost`'s measurement: messages,
 * timing, the fit and the drain projection.
 */
import assert from "node:assert/strict";
import { fitCost, projectDrain, summariseArrivals } from "./dequeue_fit.ts";
import { outboxMessages } from "./outbox_messages.ts";
import {
  type DequeueCostPoint,
  readDequeueCostDocument,
} from "../results/dequeue_cost_record.ts";

Deno.test("outbox messages are about the asked size and all distinct", () => {
  const message = outboxMessages(4096);
  const texts = Array.from(
    { length: 300 },
    (_, i) => JSON.stringify(message(i)),
  );
  for (const text of texts) {
    assert.ok(Math.abs(text.length - 4096) < 64, `${text.length} bytes`);
  }
  assert.equal(new Set(texts).size, texts.length);
  assert.equal((message(0) as { type: string }).type, "outbox");
});

Deno.test("timing, fit and projection", () => {
  assert.deepEqual(summariseArrivals([5]), {
    dequeued: 0,
    msPerDequeue: null,
    gapMs: null,
  });
  assert.deepEqual(summariseArrivals([0, 1, 3, 6]), {
    dequeued: 3,
    msPerDequeue: 2,
    gapMs: { p50: 2, p90: 3, max: 3 },
  });
  // Nearest rank: the p50 of an even number of gaps is one of them.
  assert.equal(summariseArrivals([0, 1, 3, 6, 10])?.gapMs?.p50, 2);
  const point = (backlog: number, ms: number): DequeueCostPoint => ({
    driver: "redis",
    backlog,
    status: "ok",
    fillSeconds: 1,
    dequeued: 200,
    msPerDequeue: ms,
    gapMs: null,
  });
  // ms = 1 + 0.005 × backlog, exactly.
  const fit = fitCost("redis", [
    point(1000, 6),
    point(5000, 26),
    point(20000, 101),
  ])!;
  assert.ok(Math.abs(fit.interceptMs - 1) < 1e-9);
  assert.ok(Math.abs(fit.slopeMs - 0.005) < 1e-12);
  assert.ok(Math.abs(fit.r2! - 1) < 1e-12);
  assert.equal(fitCost("redis", [point(1000, 6)]), null);
  // Σ_{b=1..1000} (1 + 0.005 b) ms = 1000 + 0.005 × 500500 = 3502.5 ms.
  const projection = projectDrain(fit, 1000);
  assert.ok(Math.abs(projection.seconds - 3.5025) < 1e-9);
  assert.equal(projection.dequeuesIn600Seconds, 1000);
});

Deno.test("the published fits and projection are what the points give, to the bit", async () => {
  const document = await readDequeueCostDocument(
    new URL("../../results/dequeue-cost/latest.json", import.meta.url)
      .pathname,
  );
  const fits = document.params.drivers.map((d) => fitCost(d, document.points))
    .filter((f) => f != null);
  assert.deepEqual(fits, document.fits);
  assert.deepEqual(
    fits.filter((f) => document.params.project.includes(f.driver)).map((f) =>
      projectDrain(f, document.params.projectionBacklog)
    ),
    document.projections,
  );
});
