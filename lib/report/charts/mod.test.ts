import assert from "node:assert/strict";
import { renderCharts } from "./mod.ts";
import { result, syntheticDocument } from "../../testing/chart_fixtures.ts";

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
    // The headline chart says, in words, that amqp failed.
    if (chart.name === "send-receive") continue;
    assert.ok(!chart.svg.includes("amqp"), `${chart.name} omits the failure`);
  }
  const [sendReceive, cumulative, latency, rate, depth] = charts;

  const shown = [
    [sendReceive, ["in-process", "redis ×4", "Send", "Receive"]],
    [cumulative, [
      "in-process",
      "redis ×4",
      "postgres (incomplete)",
      "Distinct deliveries (count)",
      "Time since first send (s)",
      "expected 200",
    ]],
    [latency, [
      "in-process",
      "redis ×4",
      "postgres (incomplete)",
      "(s, log scale)",
      "p99.9",
      "max",
    ]],
    [rate, [
      "in-process",
      "postgres (incomplete)",
      "Distinct deliveries per second (1/s)",
      "Time since first send (s)",
    ]],
  ] as const;
  for (const [chart, texts] of shown) {
    for (const text of texts) {
      assert.ok(chart.svg.includes(text), `${chart.name} has ${text}`);
    }
  }

  assert.ok(sendReceive.svg.includes("Time (s)"));
  // Every configuration has a mark: the stopped and the failed ones too.
  for (
    const text of [
      "postgres (incomplete)",
      "incomplete on purpose — no estimate",
      "amqp (failed)",
    ]
  ) assert.ok(sendReceive.svg.includes(text), text);
  assert.deepEqual(sendReceive.omitted, []);
  assert.ok(sendReceive.svg.includes("0.60 s (0.50–0.80)"), "spread shown");

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

Deno.test("renderCharts: concurrent calls give the same SVG", async () => {
  const alone = await renderCharts(syntheticDocument());
  const together = await Promise.all([
    renderCharts(syntheticDocument()),
    renderCharts(syntheticDocument()),
    renderCharts(syntheticDocument()),
  ]);
  for (const charts of together) assert.deepEqual(charts, alone);
});

Deno.test("no configuration label is shortened, however long", async () => {
  const driver = "a-queue-driver-with-a-rather-long-name-for-its-package";
  const latencyMs = { p50: 900, p90: 2000, p99: 3500, p999: 4000, max: 4100 };
  const charts = await renderCharts({
    ...syntheticDocument(),
    results: [
      result(driver, 16, "ok", {
        sendSeconds: 1,
        receiveSeconds: 2,
        totalSeconds: 3,
        latencyMs,
      }),
      result("redis", 1, "ok", {
        sendSeconds: 1,
        receiveSeconds: 2,
        totalSeconds: 3,
        latencyMs,
      }),
    ],
  });
  for (const name of ["send-receive", "latency"]) {
    const svg = charts.find((c) => c.name === name)!.svg;
    assert.ok(svg.includes(`${driver} ×16`), name);
    assert.doesNotMatch(svg, /…/, name);
  }
});
