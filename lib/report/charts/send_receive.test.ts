import assert from "node:assert/strict";
import { chartContext } from "./context.ts";
import { renderCharts } from "./mod.ts";
import { LINEAR_SPAN, sendReceiveChart } from "./send_receive.ts";
import { missingFigure, type SendReceiveDatum } from "./send_receive_data.ts";
import {
  ESTIMATE_FILL_OPACITY,
  ESTIMATE_INK,
  ESTIMATE_PHASE,
} from "./theme.ts";
import {
  result,
  stoppedDocument,
  syntheticDocument,
} from "../../testing/chart_fixtures.ts";
import type { ResultsDocument } from "../../results/mod.ts";

/** A layer of the chart, as far as the tests read it. */
interface Layer {
  readonly transform?: readonly unknown[];
  readonly mark: {
    readonly type: string;
    readonly fill?: string;
    readonly fillOpacity?: number;
    readonly stroke?: string;
    readonly strokeDash?: readonly number[];
  };
  readonly encoding: Readonly<
    Record<string, { readonly field?: string; readonly [key: string]: unknown }>
  >;
}

/** The parts of the chart's spec the tests read. */
interface Spec {
  readonly title: { readonly subtitle: string | string[] };
  readonly data: { readonly values: SendReceiveDatum[] };
  readonly layer: Layer[];
}

function specOf(document: ResultsDocument): Spec {
  const chart = sendReceiveChart(chartContext(document));
  assert.ok(chart != null);
  return chart.spec as unknown as Spec;
}

/** The bar layer whose length is `field`. */
function bar(spec: Spec, field: string): Layer {
  const layer = spec.layer.find((l) =>
    l.mark.type === "bar" && l.encoding.x.field === field
  );
  assert.ok(layer != null, `a bar of ${field}`);
  return layer;
}

Deno.test("sendReceiveChart: a mark for every configuration that is not skipped", () => {
  const chart = sendReceiveChart(chartContext(stoppedDocument()));
  assert.ok(chart != null);
  assert.deepEqual(chart.omitted, [], "nothing left out for being stopped");
  const values = (chart.spec as unknown as Spec).data.values;
  assert.deepEqual([...new Set(values.map((d) => d.configuration))], [
    "in-process",
    "sqlite ×4",
    "redis (incomplete)",
    "postgres ×4 (incomplete)",
    "deno-kv (incomplete)",
    "amqp (failed)",
  ]);
  // Each one's second row: a measured bar, an estimate, or why neither.
  assert.deepEqual(
    values.filter((d) => d.slot === "second").map((d) => [
      d.configuration,
      d.kind,
      d.text,
    ]),
    [
      ["in-process", "measured", "78.2 s"],
      ["sqlite ×4", "measured", "98.0 s"],
      ["redis (incomplete)", "estimate", "~2,247 s (estimate)"],
      ["postgres ×4 (incomplete)", "estimate", "~494 s (estimate)"],
      ["deno-kv (incomplete)", "none", "stalled — no estimate"],
      ["amqp (failed)", "none", "failed"],
    ],
  );
  // A stopped row's send loop finished: its send bar is a measurement.
  const sends = values.filter((d) => d.phase === "Send");
  assert.ok(sends.every((d) => d.kind === "measured" && d.seconds != null));
  assert.deepEqual(sends.map((d) => d.configuration), [
    "in-process",
    "sqlite ×4",
    "redis (incomplete)",
    "postgres ×4 (incomplete)",
    "deno-kv (incomplete)",
  ]);
  // Words start at the axis's start: 1 s on this log axis.
  for (const d of values.filter((d) => d.kind === "none")) {
    assert.equal(d.textAt, 1, d.configuration);
  }
});

Deno.test("sendReceiveChart: an estimate is drawn hollow, dashed, with its bounds and its name", () => {
  const spec = specOf(stoppedDocument());
  const redis = spec.data.values.find((d) =>
    d.configuration === "redis (incomplete)" && d.slot === "second"
  );
  assert.deepEqual(
    redis && {
      phase: redis.phase,
      kind: redis.kind,
      seconds: redis.seconds,
      estimate: redis.estimate,
      low: redis.low,
      high: redis.high,
      textAt: redis.textAt,
    },
    {
      phase: ESTIMATE_PHASE,
      kind: "estimate",
      seconds: null,
      estimate: 2247.1,
      low: 584.3,
      high: 4464.1,
      textAt: 4464.1,
    },
  );
  assert.match(redis!.detail, /between 584 and 4,464 s: an estimate, not a/);
  // Each bar starts at the axis: none is stacked on another.
  for (const field of ["seconds", "estimate"]) {
    assert.equal(bar(spec, field).encoding.x.stack, null, field);
  }
  // Solid bars draw measurements alone; estimates have a bar of their own.
  assert.deepEqual(bar(spec, "seconds").transform, [
    { filter: { field: "kind", equal: "measured" } },
  ]);
  const hollow = bar(spec, "estimate");
  assert.deepEqual(hollow.transform, [
    { filter: { field: "kind", equal: "estimate" } },
  ]);
  assert.equal(hollow.mark.stroke, ESTIMATE_INK);
  assert.equal(hollow.mark.fillOpacity, ESTIMATE_FILL_OPACITY);
  assert.ok(ESTIMATE_FILL_OPACITY <= 0.2, "all but hollow");
  assert.ok((hollow.mark.strokeDash ?? []).length > 0, "a dashed outline");
  assert.equal(hollow.encoding.color, undefined, "not a phase's colour");
  assert.ok(
    spec.layer.some((l) =>
      l.mark.type === "rule" && l.encoding.x.field === "low" &&
      l.encoding.x2.field === "high"
    ),
    "whiskers from the low bound to the high one",
  );
  // The legend and the subtitle say what the hollow bars are.
  const color = bar(spec, "seconds").encoding.color as {
    scale: { domain: string[] };
    legend: { encoding?: { symbols?: unknown } };
  };
  assert.deepEqual(color.scale.domain, ["Send", "Receive", ESTIMATE_PHASE]);
  assert.ok(color.legend.encoding?.symbols != null, "a hollow legend entry");
  const subtitle = [spec.title.subtitle].flat().join(" · ");
  assert.match(subtitle, /hollow, dashed: the estimated total/);
  assert.match(subtitle, /not a measurement/);
});

Deno.test("sendReceiveChart: the time axis turns logarithmic only when estimates dwarf the measured bars", () => {
  const x = (spec: Spec) =>
    bar(spec, "seconds").encoding.x as {
      title: string;
      scale: { type?: string; domain: number[] };
    };
  const stopped = x(specOf(stoppedDocument()));
  assert.equal(stopped.scale.type, "log");
  assert.equal(stopped.title, "Time (s, log scale)");
  assert.equal(stopped.scale.domain[0], 1);
  assert.ok(stopped.scale.domain[1] > 4464.1, "room for the high bound");

  const plain = x(specOf(syntheticDocument()));
  assert.equal(plain.scale.type, undefined);
  assert.equal(plain.title, "Time (s)");

  // An estimate within LINEAR_SPAN times the slowest measured run (11 s).
  const document = syntheticDocument();
  const near = {
    ...document,
    results: document.results.map((r) =>
      r.driver === "postgres"
        ? {
          ...r,
          estimate: {
            totalSeconds: 30,
            lowSeconds: 20,
            highSeconds: LINEAR_SPAN * 11 - 1,
            deliveriesPerSecond: 1.5,
            stoppedBy: "time limit" as const,
            basis: "on purpose",
          },
        }
        : r
    ),
  };
  const spec = specOf(near);
  assert.equal(x(spec).scale.type, undefined);
  assert.ok(
    spec.data.values.some((d) =>
      d.configuration === "postgres (incomplete)" && d.kind === "estimate"
    ),
  );
});

Deno.test("missingFigure: why a configuration has neither a receive bar nor an estimate", () => {
  assert.equal(missingFigure(result("amqp", 1, "failed")), "failed");
  assert.equal(
    missingFigure(result("redis", 1, "incomplete", {
      reason: "stalled: no new delivery for 30 s",
    })),
    "stalled — no estimate",
  );
  assert.equal(
    missingFigure(result("redis", 1, "incomplete", { reason: "interrupted" })),
    "interrupted — no estimate",
  );
  assert.equal(
    missingFigure(result("redis", 1, "incomplete", {
      reason: "stalled after the worker and server crash: 3 deliveries lost",
    })),
    "incomplete — no estimate",
  );
  assert.equal(
    missingFigure(result("redis", 1, "ok")),
    "no receive time recorded",
  );
});

Deno.test("the send and receive SVG: estimates labelled as such, words for the rest", async () => {
  const chart = (await renderCharts(stoppedDocument()))
    .find((c) => c.name === "send-receive");
  assert.ok(chart != null);
  for (
    const text of [
      "redis (incomplete)",
      "~2,247 s (estimate)",
      "~494 s (estimate)",
      "Total (estimate)",
      "Time (s, log scale)",
      "deno-kv (incomplete)",
      "stalled — no estimate",
      "amqp (failed)",
      "78.2 s",
    ]
  ) assert.ok(chart.svg.includes(text), text);
  assert.match(chart.svg, /stroke-dasharray="4,3"/, "dashed outlines");
  assert.ok(!chart.svg.includes("mysql"), "skipped rows are not drawn");
  assert.deepEqual(chart.omitted, []);
});
