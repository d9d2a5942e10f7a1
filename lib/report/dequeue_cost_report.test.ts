import assert from "node:assert/strict";
import {
  renderDequeueCost,
  renderDequeueCostChart,
} from "./dequeue_cost_report.ts";
import { dequeueCostChart } from "./charts/dequeue_cost_chart.ts";
import { PALETTE } from "./charts/theme.ts";
import {
  type DequeueCostDocument,
  readDequeueCostDocument,
} from "../results/dequeue_cost_record.ts";

const PUBLISHED = new URL("../../results/dequeue-cost/", import.meta.url);

function published(): Promise<DequeueCostDocument> {
  return readDequeueCostDocument(
    new URL("latest.json", PUBLISHED).pathname,
  );
}

Deno.test("the published latest.md is what its JSON renders, byte for byte, and links its chart", async () => {
  const document = await published();
  const markdown = await Deno.readTextFile(new URL("latest.md", PUBLISHED));
  assert.equal(renderDequeueCost(document, true), markdown);
  assert.match(markdown, /\]\(charts\/dequeue-cost\.svg\)/);
  assert.ok(
    (await Deno.stat(new URL("charts/dequeue-cost.svg", PUBLISHED))).isFile,
  );
});

Deno.test("dequeue-cost report: not-ok points, no fit, no projection", async () => {
  const document = await published();
  const text = renderDequeueCost({
    ...document,
    points: [
      {
        driver: "redis",
        backlog: 1000,
        fillSeconds: 0.1,
        dequeued: 200,
        msPerDequeue: 3.34,
        gapMs: { p50: 2.38, p90: 5.53, max: 22.3 },
        status: "timeout",
        reason: "one dequeue took over 60 s",
      },
      {
        driver: "postgres",
        backlog: 1000,
        status: "skipped",
        reason: "postgres is not available",
        fillSeconds: null,
        dequeued: 0,
        msPerDequeue: null,
        gapMs: null,
      },
    ],
    fits: [],
    projections: [],
  });
  const lines = text.split("\n");
  assert.ok(
    lines.includes(
      "| redis | 1,000 | 0.1 s | 200 | 3.34 | 2.38 | 5.53 | 22.3 | " +
        "timeout: one dequeue took over 60 s |",
    ),
    text,
  );
  assert.ok(
    lines.includes(
      "| postgres | 1,000 | — | 0 | — | — | — | — | " +
        "skipped: postgres is not available |",
    ),
    text,
  );
  assert.doesNotMatch(text, /Least-squares|Projection/);
});

Deno.test("dequeue-cost report: getDepth() call time per backlog, or not supported", async () => {
  const document = await published();
  const text = renderDequeueCost({
    ...document,
    params: { ...document.params, depthBacklogs: [0, 10000, 50000] },
    depth: [
      {
        driver: "mysql",
        supported: true,
        callMs: { "0": 0.569, "10000": 2.017, "50000": 32.781 },
      },
      {
        driver: "amqp",
        supported: true,
        callMs: { "0": 1.5 },
        reason: "connection closed",
      },
      { driver: "redis", supported: false },
    ],
  });
  const lines = text.split("\n");
  for (
    const row of [
      "| Driver | getDepth() | ms at 0 | ms at 10,000 | ms at 50,000 | Note |",
      "| mysql | yes | 0.57 | 2.02 | 32.8 |  |",
      "| amqp | yes | 1.50 | — | — | connection closed |",
      "| redis | not in the installed version | — | — | — |  |",
    ]
  ) assert.ok(lines.includes(row), `${row}\n${text}`);
  // Files made before depth was measured render without the section.
  assert.doesNotMatch(
    renderDequeueCost({ ...document, depth: undefined }),
    /getDepth/,
  );
});

Deno.test("dequeue-cost chart: a line per driver in the order measured, in the palette's colours", async () => {
  const document = await published();
  const chart = dequeueCostChart(document)!;
  const color = (chart.spec as unknown as {
    encoding: { color: { scale: { domain: string[]; range: string[] } } };
  }).encoding.color.scale;
  assert.deepEqual(color.domain, document.params.drivers);
  assert.deepEqual(color.range, PALETTE.slice(0, color.domain.length));
  const svg = await renderDequeueCostChart(document);
  assert.match(svg!, /^<svg /);
  assert.match(svg!, /Time per dequeue against backlog/);
  assert.equal(await renderDequeueCostChart(document), svg, "deterministic");
  const none = {
    ...document,
    points: document.points.map((p) => ({ ...p, msPerDequeue: null })),
  };
  assert.equal(dequeueCostChart(none), null);
  assert.equal(await renderDequeueCostChart(none), null);
});
