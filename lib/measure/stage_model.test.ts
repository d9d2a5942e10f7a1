/**
 * The model's bounds (the formula in stage_model.ts, worked by hand) and
 * the resource that limits a row.
 */
import assert from "node:assert/strict";
import {
  limitedBy,
  type ModelInput,
  pipelineRate,
  predict,
} from "./stage_model.ts";
import type { StageFigures, StagesRecord } from "../results/stages_record.ts";

const figures = (meanMs: number, count: number): StageFigures => ({
  count,
  meanMs,
  p50Ms: meanMs,
  p99Ms: meanMs,
  totalSeconds: meanMs * count / 1000,
});

function input(
  stages: Partial<StagesRecord>,
  overrides: Partial<ModelInput> = {},
): ModelInput {
  return {
    stages: {
      byStage: {},
      slots: 1,
      windowSeconds: 10,
      peakInFlight: 1,
      serial: true,
      notes: [],
      ...stages,
    },
    delivered: 1000,
    deliveriesPerSecond: 100,
    parallelism: 1,
    cores: 2,
    appCpuMs: 4,
    serverCpuMs: 0.5,
    inboxCpuMs: 0.5,
    eventLoopSeconds: null,
    firstDeliverySeconds: null,
    ...overrides,
  };
}

Deno.test("at ×1 a serial queue's handler and turnaround take turns on one slot", () => {
  // 1,000 deliveries from 10 fanout messages: 1,010 hand-offs.
  const row = input({
    byStage: {
      outbox: figures(8, 1000),
      fanout: figures(20, 10),
      "queue.after": figures(1, 1100),
    },
  });
  const prediction = predict(row);
  // cpu: 2 × 1000 ÷ (4 + 0.5 + 0.5) = 400.
  assert.equal(prediction.bounds.cpu, 400);
  // consumer: 1000 ÷ (8 + 20 × 10 ÷ 1000 + 1 × 1.01) = 1000 ÷ 9.21.
  assert.equal(prediction.bounds.consumer, 108.6);
  assert.equal(prediction.bounds.dequeue, null);
  assert.equal(prediction.deliveriesPerSecond, 108.6);
  const limit = limitedBy(row, prediction)!;
  assert.equal(limit.resource, "consumer");
  assert.equal(limit.utilisation, 0.921);
  assert.match(limit.evidence, /1 handler slot busy 92% of the time/);
});

Deno.test("under ParallelMessageQueue the slots and the dequeue loop are separate bounds", () => {
  const row = input({
    slots: 4,
    byStage: { outbox: figures(10, 1000), "queue.after": figures(5, 1000) },
  }, { parallelism: 4, deliveriesPerSecond: 190 });
  const prediction = predict(row);
  assert.equal(prediction.bounds.consumer, 400);
  assert.equal(prediction.bounds.dequeue, 200);
  // Together a little below the loop's own bound.
  assert.ok(prediction.bounds.pipeline! < 200);
  assert.ok(prediction.bounds.pipeline! > 180);
  assert.equal(prediction.deliveriesPerSecond, prediction.bounds.pipeline);
  const limit = limitedBy(row, prediction)!;
  assert.equal(limit.resource, "dequeue");
  assert.match(limit.evidence, /turnaround between hand-offs \(5\.00 ms/);
});

Deno.test("under ParallelMessageQueue a slot's hand-over counts as its time", () => {
  const row = input({
    slots: 4,
    byStage: {
      outbox: figures(10, 1000),
      "queue.after": figures(1, 1000),
      // 1,000 messages, 6 ms each from a slot's taking one to its start.
      "queue.handover": figures(6, 1000),
    },
  }, { parallelism: 4, deliveriesPerSecond: 240 });
  const prediction = predict(row);
  // 4 × 1000 ÷ (10 + 6).
  assert.equal(prediction.bounds.consumer, 250);
  assert.equal(limitedBy(row, prediction)!.resource, "consumer");
});

Deno.test("a queue that runs handlers concurrently itself has only the CPU and event-loop bounds", () => {
  const row = input({
    slots: 9,
    serial: false,
    peakInFlight: 9,
    byStage: { outbox: figures(10, 1000) },
  }, { deliveriesPerSecond: 20 });
  const prediction = predict(row);
  assert.deepEqual(prediction.bounds, {
    cpu: 400,
    eventLoop: null,
    consumer: null,
    dequeue: null,
    pipeline: null,
  });
  const limit = limitedBy(row, prediction)!;
  assert.equal(limit.resource, "unexplained");
  assert.match(
    limit.evidence,
    /^nothing measured is near its limit; the nearest: CPU 0\.10 of 2 cores \(5%\)/,
  );
});

Deno.test("a CPU-bound row is limited by CPU; without a rate there is no limit", () => {
  const row = input({ byStage: { outbox: figures(1, 1000) } }, {
    deliveriesPerSecond: 380,
  });
  const prediction = predict(row);
  assert.equal(prediction.deliveriesPerSecond, 400);
  assert.equal(limitedBy(row, prediction)!.resource, "cpu");
  assert.equal(
    limitedBy({ ...row, deliveriesPerSecond: null }, prediction),
    null,
  );
});

Deno.test("a worker whose event loop is near one core is limited by it", () => {
  // 1,000 deliveries for 3.3 s of the worker's main thread: at most 303/s.
  const row = input({ slots: 4, byStage: { outbox: figures(8, 1000) } }, {
    parallelism: 4,
    deliveriesPerSecond: 290,
    eventLoopSeconds: 3.3,
  });
  const prediction = predict(row);
  assert.equal(prediction.bounds.eventLoop, 303);
  assert.equal(prediction.deliveriesPerSecond, 303);
  const limit = limitedBy(row, prediction)!;
  assert.equal(limit.resource, "event-loop");
  assert.match(
    limit.evidence,
    /event loop \(its main thread\) busy 0\.96 of one core/,
  );
});

Deno.test("a serial queue under ParallelMessageQueue: the dequeue loop and the slots together", () => {
  // Turnaround 4 ms (250/s alone), slots 4 × 1000 ÷ 15 ms (267/s alone):
  // together, each waiting on the other, fewer than either.
  const together = pipelineRate(4, 15, 4);
  assert.ok(together < 250 && together > 150, String(together));
  // A quick loop leaves the slots as the limit; quick slots, the loop.
  assert.ok(Math.abs(pipelineRate(0.001, 15, 4) - 4000 / 15) < 1);
  assert.ok(Math.abs(pipelineRate(4, 0.001, 4) - 250) < 1);
  const row = input({
    slots: 4,
    byStage: { outbox: figures(15, 1000), "queue.after": figures(4, 1000) },
  }, { parallelism: 4, deliveriesPerSecond: 200 });
  const prediction = predict(row);
  assert.equal(prediction.bounds.pipeline, Math.round(together * 10) / 10);
  assert.equal(prediction.deliveriesPerSecond, prediction.bounds.pipeline);
  // 200/s is under 85% of either bound alone (80%, 75%), but near their pair.
  const limit = limitedBy(row, prediction)!;
  assert.equal(limit.resource, "dequeue");
  assert.match(limit.evidence, /the dequeue loop and the 4 slots together/);
});

Deno.test("the wait before the first delivery is added to the deliveries at the smallest bound", () => {
  // 1,000 deliveries at a consumer bound of 100/s take 10 s, after a 5 s
  // wait for the first: 1,000 ÷ 15 s.
  const row = input({
    byStage: { outbox: figures(10, 1000) },
  }, {
    deliveriesPerSecond: 1000 / 15,
    firstDeliverySeconds: 5,
    appCpuMs: 1,
    serverCpuMs: 0,
    inboxCpuMs: 0,
  });
  const prediction = predict(row);
  assert.equal(prediction.bounds.consumer, 100);
  assert.equal(prediction.bounds.firstDeliverySeconds, 5);
  assert.equal(prediction.deliveriesPerSecond, 66.7);
  // The resource is judged by the rate once deliveries flowed: 100/s over
  // the 10 s after the wait, the slot fully busy.
  const limit = limitedBy(row, prediction)!;
  assert.equal(limit.resource, "consumer");
  assert.equal(limit.utilisation, 1);
});

Deno.test("workers held to a CPU limit each are bounded by it, and limited by it when near", () => {
  // Two workers at 0.25 core each, 4 s of their CPU for 1,000 deliveries
  // (4 ms each): at most 2 × 0.25 × 1000 ÷ 4 = 125/s.
  const row = input({
    slots: 2,
    serial: false,
    peakInFlight: 2,
    byStage: { outbox: figures(3, 1000) },
  }, {
    deliveriesPerSecond: 118,
    consumerCpuLimit: 0.25,
    consumers: 2,
    consumerCpuSeconds: 4,
  });
  const prediction = predict(row);
  assert.equal(prediction.bounds.cpuLimit, 125);
  assert.equal(prediction.deliveriesPerSecond, 125);
  const limit = limitedBy(row, prediction)!;
  assert.equal(limit.resource, "cpu-limit");
  assert.match(
    limit.evidence,
    /^the consuming processes' CPU limit: 2 × 0\.25 cores, 0\.47 of 0\.5 used \(94%\)$/,
  );
  // Without a limit the bound is absent, not null.
  assert.equal("cpuLimit" in predict(input({})).bounds, false);
});

Deno.test("a CPU limit that is reached is the cause, though the slots are as busy", () => {
  // One slot busy all the time (its handler stretched by the quota), the
  // workers at 95% of their quarter core each.
  const row = input({ byStage: { outbox: figures(10, 1000) } }, {
    deliveriesPerSecond: 99,
    consumerCpuLimit: 0.25,
    consumers: 1,
    consumerCpuSeconds: 2.4,
  });
  const prediction = predict(row);
  assert.equal(prediction.bounds.consumer, 100);
  assert.equal(prediction.bounds.cpuLimit, 104.2);
  assert.equal(limitedBy(row, prediction)!.resource, "cpu-limit");
});
