/**
 * Where a delivery's time goes, in the report: a slot's time per delivery
 * split into the timed stages and what is left, the section's table and
 * notes, and the stacked bar chart.
 */
import assert from "node:assert/strict";
import { consumerParts, stagesSection } from "./stages_table.ts";
import { renderSpecs } from "./charts/mod.ts";
import { stagesChart } from "./charts/stages_chart.ts";
import { chartContext } from "./charts/context.ts";
import { result, syntheticDocument } from "../testing/chart_fixtures.ts";
import type {
  ConfigurationResult,
  ResultsDocument,
  StageFigures,
} from "../results/mod.ts";

const figures = (meanMs: number, count: number): StageFigures => ({
  count,
  meanMs,
  p50Ms: meanMs,
  p99Ms: meanMs * 3,
  totalSeconds: meanMs * count / 1000,
});

/** 200 deliveries at 100/s on one slot: 10 ms of slot time each. */
function timedRow(): ConfigurationResult {
  return result("postgres", 1, "ok", {
    delivered: 200,
    missing: 0,
    receiveSeconds: 2,
    totalSeconds: 2.2,
    deliveriesPerSecond: 100,
    stages: {
      byStage: {
        "queue.wait": figures(40, 200),
        outbox: figures(6, 200),
        post: figures(5, 200),
        sign: figures(2, 200),
        fanout: figures(20, 20),
        "queue.after": figures(1, 220),
      },
      slots: 1,
      windowSeconds: 2,
      peakInFlight: 1,
      serial: true,
      notes: [],
    },
    limitedBy: {
      resource: "consumer",
      evidence: "1 handler slot busy 97% of the time",
      utilisation: 0.97,
    },
    predictedDeliveriesPerSecond: 103.1,
    prediction: { cpu: 400, eventLoop: null, consumer: 103.1, dequeue: null },
  });
}

Deno.test("a slot's time per delivery splits into the timed stages and the rest", () => {
  const parts = consumerParts(timedRow())!;
  const ms = Object.fromEntries(parts.map((p) => [p.part, p.ms]));
  assert.deepEqual(ms, {
    "signing": 2,
    "POST without signing": 3,
    "rest of the outbox handler": 1,
    // 20 fanout messages × 20 ms over 200 deliveries.
    "fanout": 2,
    // No parallel wrapper: no slot pick-up or hand-over.
    "slot pick-up": 0,
    "slot hand-over": 0,
    // 1 ms per hand-off, 1.1 hand-offs per delivery.
    "queue turnaround": 1.1,
    "idle or not timed": 10 - 9.1,
  });
  assert.ok(Math.abs(parts.at(-1)!.ms - 0.9) < 1e-9);
  // Without a queue, a rate or an outbox handler there is nothing to split.
  const none = { ...timedRow(), stages: { ...timedRow().stages!, slots: 0 } };
  assert.equal(consumerParts(none), null);
  assert.equal(
    consumerParts({ ...timedRow(), deliveriesPerSecond: null }),
    null,
  );
});

Deno.test("the section gives measured and predicted rates, the limit and the stages", () => {
  const document: ResultsDocument = {
    ...syntheticDocument(),
    results: [timedRow(), result("redis", 1, "ok")],
  };
  const text = stagesSection(document);
  assert.match(text, /^## Where a delivery's time goes/);
  const rows = text.split("\n").filter((line) =>
    line.startsWith("| ") && !line.startsWith("| -")
  );
  // The header and the one row with stages.
  assert.equal(rows.length, 2, text);
  assert.match(
    rows[1],
    /^\| postgres +\| +100\.0\/s \| 103\.1\/s \(\+3%\) \| consumer \(97%\) \| +40\.0 ms \/ 120 ms \| +6\.0 ms \/ 18\.0 ms \| +2\.00 \| +5\.00 \| +1\.00 \| +— \| +1 \| +91% \|$/,
  );
  assert.match(text, /- \*\*postgres\*\*: consumer: 1 handler slot busy 97%/);
  assert.equal(
    stagesSection({ ...document, results: [result("redis", 1, "ok")] }),
    "",
  );
});

Deno.test("the stages chart draws one stacked bar per configuration with a queue", async () => {
  const none = result("none", 1, "ok", {
    deliveriesPerSecond: 100,
    stages: {
      byStage: { sign: figures(2, 10) },
      slots: 0,
      windowSeconds: 1,
      peakInFlight: 0,
      serial: true,
      notes: [],
    },
  });
  const document: ResultsDocument = {
    ...syntheticDocument(),
    results: [none, timedRow()],
  };
  const spec = stagesChart(chartContext(document))!;
  assert.equal(spec.name, "stages");
  assert.deepEqual(spec.omitted, ["none (no queue: no handler slots)"]);
  const [chart] = await renderSpecs([spec]);
  for (const text of ["postgres", "signing", "queue turnaround", "10.0 ms"]) {
    assert.ok(chart.svg.includes(text), text);
  }
  assert.equal(stagesChart(chartContext(syntheticDocument())), null);
});
