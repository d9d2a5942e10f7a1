import assert from "node:assert/strict";
import { renderCharts } from "./charts.ts";
import type {
  ConfigurationResult,
  ResultsDocument,
  Series,
  Status,
} from "../results/types.ts";

const PARAMS = {
  total: 20,
  recipients: 10,
  fanout: "auto",
  rsaBits: 2048,
  timeoutSeconds: 60,
  stallTimeoutSeconds: 30,
} as const;

/** A configuration result with the given figures and no data by default. */
function result(
  driver: string,
  parallelism: number,
  status: Status,
  extra: Partial<ConfigurationResult> = {},
): ConfigurationResult {
  return {
    id: parallelism > 1 ? `${driver}-x${parallelism}` : driver,
    driver,
    parallelism,
    status,
    reason: status === "ok" ? null : `${status} on purpose`,
    expected: 200,
    delivered: 0,
    duplicates: 0,
    missing: 200,
    unexpected: 0,
    sendSeconds: null,
    receiveSeconds: null,
    totalSeconds: null,
    deliveriesPerSecond: null,
    elapsedSeconds: null,
    sendErrors: 0,
    workers: 1,
    stallTimeoutSeconds: 30,
    timeoutSeconds: 60,
    server: null,
    processes: [],
    ...extra,
  };
}

/** Per-second deliveries and their running total, from per-bucket counts. */
function timeline(counts: readonly number[], depth: Series = []) {
  const deliveries: Series = counts.map((count, i) => [i, count]);
  let sum = 0;
  const cumulative: Series = counts.map((count, i) => [i + 1, sum += count]);
  return { bucketSeconds: 1, deliveries, cumulative, queueDepth: depth };
}

function syntheticDocument(): ResultsDocument {
  return {
    schemaVersion: 1,
    startedAt: "2025-01-01T00:00:00.000Z",
    finishedAt: "2025-01-01T00:05:00.000Z",
    params: PARAMS,
    results: [
      result("in-process", 1, "ok", {
        delivered: 200,
        missing: 0,
        sendSeconds: 0.4,
        receiveSeconds: 4,
        totalSeconds: 4.5,
        latencyMs: { p50: 900, p90: 2000, p99: 3500, p999: 4000, max: 4100 },
        timeline: timeline([20, 50, 50, 50, 30]),
      }),
      result("redis", 4, "ok", {
        delivered: 200,
        missing: 0,
        sendSeconds: 0.6,
        receiveSeconds: 9,
        totalSeconds: 9.8,
        latencyMs: { p50: 40, p90: 80, p99: 150, p999: 180, max: 200 },
        // A stall between seconds 3 and 8: flat, then the rest.
        timeline: timeline([40, 60, 20, 0, 0, 0, 0, 0, 50, 30], [
          [0.5, 120],
          [4.5, 80],
          [9.5, 0],
        ]),
        spread: {
          sendSeconds: { min: 0.5, max: 0.8 },
          receiveSeconds: { min: 8.5, max: 11 },
        },
      }),
      result("postgres", 1, "incomplete", {
        delivered: 90,
        missing: 110,
        sendSeconds: 1.2,
        deliveriesPerSecond: 1.5,
        latencyMs: {
          p50: 5000,
          p90: 20000,
          p99: 40000,
          p999: 50000,
          max: 55000,
        },
        timeline: timeline([30, 30, 30]),
      }),
      result("amqp", 1, "failed"),
    ],
  };
}

Deno.test("renderCharts: every chart with data, labelled", async () => {
  const charts = await renderCharts(syntheticDocument());
  assert.deepEqual(charts.map((chart) => chart.name), [
    "send-receive",
    "cumulative",
    "latency",
    "deliveries-rate",
    "queue-depth",
  ]);
  for (const chart of charts) {
    assert.match(chart.svg, /^<svg /, chart.name);
    assert.match(chart.name, /^[a-z0-9-]+$/);
    assert.ok(chart.title.length > 0);
    assert.ok(chart.svg.includes(chart.title), `${chart.name} shows its title`);
    assert.ok(!chart.svg.includes("amqp"), `${chart.name} omits the failure`);
  }
  const [sendReceive, cumulative, latency, rate, depth] = charts;

  for (const text of ["in-process", "redis ×4", "Send", "Receive"]) {
    assert.ok(sendReceive.svg.includes(text), `send-receive has ${text}`);
  }
  assert.ok(sendReceive.svg.includes("Time (s)"));
  assert.ok(!sendReceive.svg.includes("postgres"), "only ok configurations");
  assert.ok(sendReceive.svg.includes("0.60 s (0.50–0.80)"), "spread shown");

  for (
    const text of [
      "in-process",
      "redis ×4",
      "postgres (incomplete)",
      "Distinct deliveries (count)",
      "Time since first send (s)",
      "expected 200",
    ]
  ) {
    assert.ok(cumulative.svg.includes(text), `cumulative has ${text}`);
  }

  for (
    const text of [
      "in-process",
      "redis ×4",
      "postgres (incomplete)",
      "(s, log scale)",
      "p99.9",
      "max",
    ]
  ) {
    assert.ok(latency.svg.includes(text), `latency has ${text}`);
  }

  for (
    const text of [
      "in-process",
      "postgres (incomplete)",
      "Distinct deliveries per second (1/s)",
      "Time since first send (s)",
    ]
  ) {
    assert.ok(rate.svg.includes(text), `deliveries-rate has ${text}`);
  }

  assert.ok(depth.svg.includes("redis ×4"));
  assert.ok(!depth.svg.includes("in-process"), "only series with samples");
  assert.ok(depth.svg.includes("Messages waiting in the queue (count)"));
});

Deno.test("renderCharts: the same document gives the same SVG", async () => {
  const first = await renderCharts(syntheticDocument());
  const second = await renderCharts(syntheticDocument());
  assert.deepEqual(second, first);
});

Deno.test("renderCharts: nothing to draw gives no charts", async () => {
  const document = syntheticDocument();
  assert.deepEqual(
    await renderCharts({
      ...document,
      results: [
        result("amqp", 1, "failed"),
        result("redis", 4, "failed"),
        result("sqlite", 1, "skipped"),
      ],
    }),
    [],
  );
  assert.deepEqual(await renderCharts({ ...document, results: [] }), []);
});

Deno.test("renderCharts: figures without timelines give only bars", async () => {
  const document = syntheticDocument();
  const charts = await renderCharts({
    ...document,
    results: [
      result("in-process", 1, "ok", { sendSeconds: 1, receiveSeconds: 2 }),
    ],
  });
  assert.deepEqual(charts.map((chart) => chart.name), ["send-receive"]);
});

Deno.test("renderCharts: long timelines are merged into wider buckets", async () => {
  const counts = Array.from({ length: 5000 }, (_, i) => i % 60 < 2 ? 300 : 0);
  const charts = await renderCharts({
    ...syntheticDocument(),
    params: { ...PARAMS, total: 25_000, recipients: 100 },
    results: [
      result("deno-kv", 1, "incomplete", { timeline: timeline(counts) }),
    ],
  });
  const rate = charts.find((chart) => chart.name === "deliveries-rate");
  assert.ok(rate != null);
  assert.ok(rate.svg.includes("mean over 10 s buckets"), "merged to 10 s");
  assert.ok(rate.svg.includes("Time since first send (min)"));
  for (const chart of charts) {
    assert.ok(chart.svg.length < 200_000, `${chart.name} stays small`);
  }
});

Deno.test("renderCharts: concurrent calls give the same SVG", async () => {
  const alone = await renderCharts(syntheticDocument());
  const together = await Promise.all([
    renderCharts(syntheticDocument()),
    renderCharts(syntheticDocument()),
    renderCharts(syntheticDocument()),
  ]);
  for (const charts of together) assert.deepEqual(charts, alone);
});

Deno.test("renderCharts: the scaling chart draws a line per wrapper", async () => {
  const point = (
    parallelism: number,
    deliveriesPerSecond: number,
    parallelImpl?: "fedify" | "awaiting",
  ) =>
    result("redis", parallelism, "ok", {
      id: `redis-x${parallelism}-${parallelImpl ?? "none"}`,
      deliveriesPerSecond,
      ...(parallelImpl == null ? {} : { parallelImpl }),
    });
  const charts = await renderCharts({
    ...syntheticDocument(),
    params: { ...PARAMS, parallelImpl: ["fedify", "awaiting"] },
    results: [
      point(1, 100),
      point(2, 180, "fedify"),
      point(2, 150, "awaiting"),
      point(4, 300, "fedify"),
      point(4, 200, "awaiting"),
    ],
  });
  const scaling = charts.find((chart) => chart.name === "scaling");
  assert.ok(scaling != null);
  assert.ok(scaling.svg.includes("one line per driver and wrapper"));
  assert.ok(scaling.svg.includes("Driver and wrapper"));
  assert.ok(scaling.svg.includes("redis awaiting"), "its own line");
});
