import assert from "node:assert/strict";
import { idleCpuChart } from "./idle.ts";
import { backlogChart, loadLatencyChart } from "./load_chart.ts";
import { loadContext } from "./load_context.ts";
import { renderCharts } from "./mod.ts";
import { syntheticDocument } from "../../testing/chart_fixtures.ts";
import { steadyDocument } from "../../testing/load_fixtures.ts";
import type { ResultsDocument } from "../../results/mod.ts";

Deno.test("renderCharts: a steady-load document adds its charts after the others", async () => {
  const charts = await renderCharts(steadyDocument());
  assert.deepEqual(charts.map((chart) => chart.name), [
    // The senders row is a burst.
    "send-receive",
    "load-latency",
    "backlog",
    "idle-cpu",
  ]);
  const byName = new Map(charts.map((chart) => [chart.name, chart.svg]));
  const shown = {
    "load-latency": [
      "Latency against offered rate",
      "redis",
      "postgres ×4",
      "fell behind",
      "p99",
      "max-rate p99 bound 5.00 s",
      "(activities/s, log scale)",
    ],
    "backlog": ["Backlog over time", "redis", "postgres ×4", "8/s", "64/s"],
    "idle-cpu": ["Idle CPU", "sender", "worker", "server", "9.75%", "0.80%"],
  } as const;
  for (const [name, texts] of Object.entries(shown)) {
    const svg = byName.get(name)!;
    assert.match(svg, /^<svg /, name);
    for (const text of texts) assert.ok(svg.includes(text), `${name}: ${text}`);
  }
  // The burst charts draw only the burst row.
  assert.ok(!byName.get("send-receive")!.includes("rate 8/s"));
  assert.ok(byName.get("send-receive")!.includes("redis 8 senders"));
});

Deno.test("the steady-load charts need their rows", () => {
  const burst = loadContext(syntheticDocument());
  assert.equal(loadLatencyChart(burst), null);
  assert.equal(backlogChart(burst), null);
  assert.equal(idleCpuChart(burst), null);
});

Deno.test("load-latency marks the runs that fell behind", () => {
  const spec = JSON.stringify(
    loadLatencyChart(loadContext(steadyDocument()))!.spec,
  );
  // redis at 64/s fell behind; postgres ×4 kept up at both rates.
  const rows = JSON.parse(spec).layer[0].data.values as {
    configuration: string;
    verdict: string;
  }[];
  assert.deepEqual(
    [
      ...new Set(
        rows.filter((r) => r.verdict === "fell behind")
          .map((r) => r.configuration),
      ),
    ],
    ["redis"],
  );
  assert.equal(rows.length, 8, "p50 and p99 of four rate runs");
});

Deno.test("load-latency draws a configuration without rate runs from its probes", () => {
  const document = steadyDocument();
  const searchesOnly: ResultsDocument = {
    ...document,
    params: {
      ...document.params,
      load: { ...document.params.load!, rates: [] },
    },
    results: document.results.filter((r) => r.load == null || r.maxRate),
  };
  const context = loadContext(searchesOnly);
  assert.equal(context.rates.length, 0);
  assert.match(context.subtitle, /^max-rate probes: fixed arrivals over 10 s/);
  const rows = JSON.parse(JSON.stringify(loadLatencyChart(context)!.spec))
    .layer[0].data.values as {
      configuration: string;
      percentile: string;
      rate: number;
      verdict: string;
    }[];
  // redis's four probes (p99 each); postgres ×4's one probe, not kept up.
  assert.deepEqual(
    rows.map((r) => [r.configuration, r.rate, r.verdict]),
    [
      ["redis", 4.1, "kept up"],
      ["redis", 16.2, "kept up"],
      ["redis", 64.3, "fell behind"],
      ["redis", 17.6, "fell behind"],
      ["postgres ×4", 4, "fell behind"],
    ],
  );
  assert.ok(rows.every((r) => r.percentile === "p99"));
});

Deno.test("backlog resamples long series to their peak per bucket", () => {
  const document = steadyDocument();
  const long: ResultsDocument = {
    ...document,
    results: document.results.map((r) =>
      r.load == null || r.driver === "generator" || r.maxRate != null ? r : {
        ...r,
        load: {
          ...r.load,
          backlog: Array.from(
            { length: 3000 },
            (_, i) => [i / 10, i % 7] as [number, number],
          ),
        },
      }
    ),
  };
  const chart = backlogChart(loadContext(long))!;
  const spec = chart.spec as unknown as {
    data: { values: { configuration: string; rate: string }[] };
    title: { subtitle: string[] };
  };
  const redis8 = spec.data.values.filter((r) =>
    r.configuration === "redis" && r.rate === "8/s"
  );
  assert.ok(redis8.length <= 600, `${redis8.length} points`);
  assert.match(spec.title.subtitle.join(" "), /peak per 0\.50 s/);
});

Deno.test("idle-cpu stacks the app's processes before the server", () => {
  const spec = idleCpuChart(loadContext(steadyDocument()))!.spec as unknown as {
    layer: { encoding: { color?: { scale: { domain: string[] } } } }[];
  };
  assert.deepEqual(spec.layer[0].encoding.color!.scale.domain, [
    "sender",
    "worker",
    "server",
  ]);
});
